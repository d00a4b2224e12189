/**
 * The seeds' experiments as matrix definitions. The old driver options map to today's write concerns:
 * NORMAL = w:0, SAFE = w:1, FSYNC_SAFE / --journal = j:true (WiredTiger always journals), REPLICA_SAFE(n)
 * = w:n, slaveOk = readPreference "secondary".
 */
import { UsageError } from '../config/errors';
import { closest } from '../config/validate';
import { WAY_DEFINITIONS, wayLabel } from '../experiments/presplit-import/ways';
import { WAYS } from '../experiments/presplit-import/options';
import { MatrixConfiguration, MatrixDefinition, WriteConcernSpec } from './types';

export const MATRIX_PRESET_NAMES = ['most', 'write-concern-latency', 'softlayer', 'presplit-import'] as const;
export type MatrixPresetName = (typeof MATRIX_PRESET_NAMES)[number];

export const MATRIX_PRESET_DESCRIPTIONS: Record<MatrixPresetName, string> = {
  most: 'MOST (OCI 2011, Test Results 1-3): 16 KiB documents in batches of 256 by 6 writers, read back N..1; write/read MiB/s and consistent reads by write concern, capped, read preference',
  'write-concern-latency': 'Server Density (2013): 200 single inserts of {a: 1, b: "hat"} per write concern w:0, w:1, j:true, w:2, w:3; avg/min/max/p50/p99 ms',
  softlayer: 'SoftLayer (2012): the 6:1 query:update sweep, clients 1..32, 512 KiB documents, the four throughput charts',
  'presplit-import': 'Seeds 003/000 (Test Results 4-5): a bulk import into a sharded cluster (a mongos; needs --setup) three ways: ranged key, pre-split + balancer stopped, hashed key; inserts/sec on every shard over time, spread, chunks',
};

interface NamedConcern {
  name: string;
  writeConcern: WriteConcernSpec;
}

const NORMAL: NamedConcern = { name: 'NORMAL', writeConcern: { w: 0 } };
const SAFE: NamedConcern = { name: 'SAFE', writeConcern: { w: 1 } };
const JOURNALED: NamedConcern = { name: 'JOURNALED', writeConcern: { w: 1, j: true } };
const REPLICA_SAFE_2: NamedConcern = { name: 'REPLICA_SAFE(2)', writeConcern: { w: 2 } };
const REPLICA_SAFE_3: NamedConcern = { name: 'REPLICA_SAFE(3)', writeConcern: { w: 3 } };

function mostConfig(concern: NamedConcern, variant: 'plain' | 'capped' | 'secondary'): MatrixConfiguration {
  const wc = Object.entries(concern.writeConcern).map(([k, v]) => `${k}:${v}`).join(',');
  const suffix = variant === 'capped' ? ', capped' : variant === 'secondary' ? ', secondary reads' : '';
  return {
    label: `${concern.name} (${wc})${suffix}`,
    writeConcern: concern.writeConcern,
    capped: variant === 'capped',
    readPreference: variant === 'secondary' ? 'secondary' : 'primary',
    group: concern.name,
    series: variant === 'plain' ? 'not capped, primary reads' : variant === 'capped' ? 'capped, primary reads' : 'not capped, secondary reads',
  };
}

/**
 * MOST: Test Results 1/2 (single instance: write concern x capped) and 3 (replica set: REPLICA_SAFE(n),
 * slaveOk reads). Rows a standalone cannot run are reported as skipped.
 */
function mostPreset(): MatrixDefinition {
  const configurations: MatrixConfiguration[] = [];
  for (const variant of ['plain', 'capped'] as const) {
    for (const concern of [NORMAL, SAFE, JOURNALED, REPLICA_SAFE_2, REPLICA_SAFE_3]) configurations.push(mostConfig(concern, variant));
  }
  for (const concern of [NORMAL, SAFE, REPLICA_SAFE_2, REPLICA_SAFE_3]) configurations.push(mostConfig(concern, 'secondary'));
  return { name: 'most', experiment: 'most', parameters: {}, configurations, source: 'preset most' };
}

function latencyPreset(): MatrixDefinition {
  const configurations: MatrixConfiguration[] = [
    { label: 'w:0', writeConcern: { w: 0 } },
    { label: 'w:1', writeConcern: { w: 1 } },
    { label: 'j:true', writeConcern: { w: 1, j: true } },
    { label: 'w:2', writeConcern: { w: 2 } },
    { label: 'w:3', writeConcern: { w: 3 } },
  ];
  return { name: 'write-concern-latency', experiment: 'write-concern-latency', parameters: {}, configurations, source: 'preset write-concern-latency' };
}

/** One configuration; `--dataset-ratio 0.5,2` turns it into one per ratio (smaller and larger than RAM). */
function softlayerPreset(): MatrixDefinition {
  return {
    name: 'softlayer',
    experiment: 'softlayer',
    parameters: {},
    configurations: [{ label: '6:1 sweep', writeConcern: { w: 1 } }],
    source: 'preset softlayer',
  };
}

/** One configuration per way; each runs the experiment for that way alone (its setup, import, per-shard charts). */
function presplitImportPreset(): MatrixDefinition {
  const configurations: MatrixConfiguration[] = WAYS.map((way) => ({ label: wayLabel(way), description: WAY_DEFINITIONS[way].description, parameters: { way } }));
  return { name: 'presplit-import', experiment: 'presplit-import', parameters: {}, configurations, source: 'preset presplit-import' };
}

export function isMatrixPreset(name: string): name is MatrixPresetName {
  return (MATRIX_PRESET_NAMES as readonly string[]).includes(name);
}

/** The preset's definition; an unknown name is a UsageError suggesting the closest one. */
export function matrixPreset(name: string): MatrixDefinition {
  if (!isMatrixPreset(name)) {
    const suggestion = closest(name, MATRIX_PRESET_NAMES);
    throw new UsageError(`option --preset: unknown preset "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; presets: ${MATRIX_PRESET_NAMES.join(', ')}`);
  }
  switch (name) {
    case 'most':
      return mostPreset();
    case 'write-concern-latency':
      return latencyPreset();
    case 'softlayer':
      return softlayerPreset();
    case 'presplit-import':
      return presplitImportPreset();
  }
}
