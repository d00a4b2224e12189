/**
 * `--preset NAME`: named sets of `run` options. A preset sits below the config file and the flags:
 * anything given there wins. Kept few and explained; `mongo-bench run --dry-run --preset X` shows
 * what one amounts to.
 */
import { UsageError } from '../../config/errors';
import { closest } from '../../config/validate';
import type { BenchmarkFlags } from './run-option-table';
import type { TargetFlags } from '../../deployment/target-options';

export interface RunPreset {
  description: string;
  values: BenchmarkFlags & TargetFlags;
}

export const RUN_PRESETS = {
  smoke: {
    description:
      'does it work at all: clients 1 and 2, 2 s each, no warm-up, 1,000 small documents',
    values: { clients: [1, 2], seconds: 2, warmup: 0, docs: 1000, docSize: 256 },
  },
  quick: {
    description:
      'a first look: clients 1..16, 5 s each after 1 s of warm-up, 10,000 documents of 1 KB',
    values: { maxClients: 16, seconds: 5, warmup: 1, docs: 10_000, docSize: 1024 },
  },
  softlayer: {
    description:
      "the SoftLayer article's sweep: 6 queries : 1 update, clients 1..128, 60 s each after 10 s of warm-up",
    values: {
      workload: '6to1',
      maxClients: 128,
      seconds: 60,
      warmup: 10,
      docs: 100_000,
      docSize: 1024,
    },
  },
  most: {
    description: "MOST's documents: 16 KB each, loaded in batches of 256, clients 1..64, 30 s each",
    values: {
      workload: '6to1',
      maxClients: 64,
      seconds: 30,
      warmup: 5,
      docs: 20_000,
      docSize: 16 * 1024,
      batchSize: 256,
    },
  },
  'sharded-presplit': {
    description:
      "the seeds' sharded case on a local cluster: 5 one-member shards, ranged _id pre-split over the documents, balancer stopped",
    values: {
      topology: 'sharded',
      shards: 5,
      replicas: 1,
      stopBalancer: true,
      maxClients: 64,
      seconds: 10,
      warmup: 2,
    },
  },
} as const satisfies Record<string, RunPreset>;

export type RunPresetName = keyof typeof RUN_PRESETS;
export const RUN_PRESET_NAMES = Object.keys(RUN_PRESETS) as RunPresetName[];

export function runPreset(name: string, where = 'option --preset'): RunPreset {
  if (Object.prototype.hasOwnProperty.call(RUN_PRESETS, name))
    return RUN_PRESETS[name as RunPresetName];
  const suggestion = closest(name, RUN_PRESET_NAMES);
  throw new UsageError(
    `${where}: unknown preset "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; presets: ${RUN_PRESET_NAMES.join(', ')}`,
  );
}
