import { skipReason } from '../../lib/matrix/feasibility';
import { topologyFromHello, TargetCapabilities } from '../../lib/matrix/target-probe';
import { columnTitle, formatMeasure } from '../../lib/matrix/table';
import { barChartSpec, logAxisBounds, wrapCategory } from '../../lib/matrix/bar-chart';
import { MatrixDocument, MATRIX_SCHEMA } from '../../lib/matrix/matrix-document';
import { findExperiment } from '../../lib/experiments/registry';
import { MatrixRow } from '../../lib/matrix/types';
import { latencyStats, percentile } from '../../lib/experiments/write-concern-latency';
import { cappedSizeFor, mibPerSecond } from '../../lib/experiments/most';
import { docsForRatio } from '../../lib/experiments/softlayer';

// Each experiment's measures and charts, as it declares them.
const EXPERIMENT = Object.fromEntries(
  ['most', 'write-concern-latency', 'presplit-import'].map((name) => [name, findExperiment(name)!]),
);

const standalone: TargetCapabilities = {
  topology: topologyFromHello({ ismaster: true }, 'isMaster'),
};
const replSet3: TargetCapabilities = {
  topology: topologyFromHello(
    { isWritablePrimary: true, setName: 'rs0', hosts: ['a:1', 'b:1'], passives: ['c:1'] },
    'hello',
  ),
};
const sharded: TargetCapabilities = { topology: topologyFromHello({ msg: 'isdbgrid' }, 'hello') };

describe('topology from hello', () => {
  it('setName = replica set (hosts + passives are data-bearing), msg isdbgrid = mongos, else standalone', () => {
    expect(standalone.topology).toEqual({ kind: 'standalone', dataMembers: 1, source: 'isMaster' });
    expect(replSet3.topology).toEqual({
      kind: 'replicaSet',
      setName: 'rs0',
      dataMembers: 3,
      source: 'hello',
    });
    expect(sharded.topology.kind).toBe('sharded');
  });
});

describe('which configurations a target can run', () => {
  it('w:2, w:3 and secondary reads are skipped on a standalone, with the reason', () => {
    expect(skipReason({ label: 'x', writeConcern: { w: 2 } }, standalone)).toBe(
      'w:2 needs a replica set with at least 2 data-bearing members; the target is a standalone',
    );
    expect(
      skipReason({ label: 'x', writeConcern: { w: 1 }, readPreference: 'secondary' }, standalone),
    ).toContain('readPreference secondary (the old slaveOk) needs a replica set');
    expect(skipReason({ label: 'x', writeConcern: { w: 1, j: true } }, standalone)).toBeUndefined();
    expect(skipReason({ label: 'x', writeConcern: { w: 'majority' } }, standalone)).toBeUndefined();
  });

  it('on a replica set, w:n runs when n members bear data', () => {
    expect(
      skipReason({ label: 'x', writeConcern: { w: 3 }, readPreference: 'secondary' }, replSet3),
    ).toBeUndefined();
    expect(skipReason({ label: 'x', writeConcern: { w: 5 } }, replSet3)).toBe(
      'w:5 needs 5 data-bearing members; replica set rs0 has 3',
    );
  });

  it('through mongos the member count is unknown: w:n is left to the server', () => {
    expect(skipReason({ label: 'x', writeConcern: { w: 3 } }, sharded)).toBeUndefined();
  });

  it('presplit-import needs a mongos: a standalone or a replica set skips it, saying so', () => {
    const way = { label: 'x', parameters: { way: 'ranged' } };
    expect(skipReason(way, standalone, EXPERIMENT['presplit-import'])).toBe(
      "not a mongos: presplit-import shards a collection and needs a sharded cluster's router; the target is a standalone",
    );
    expect(skipReason(way, replSet3, EXPERIMENT['presplit-import'])).toContain(
      'the target is a replica set (rs0)',
    );
    expect(skipReason(way, sharded, EXPERIMENT['presplit-import'])).toBeUndefined();
  });

  it('capped and w:0 follow the probes', () => {
    const caps: TargetCapabilities = {
      ...standalone,
      capped: { supported: false, reason: 'no capped here' },
      unacknowledgedWrites: { supported: false, reason: 'drops w:0' },
    };
    expect(skipReason({ label: 'x', writeConcern: { w: 1 }, capped: true }, caps)).toBe(
      'no capped here',
    );
    expect(skipReason({ label: 'x', writeConcern: { w: 0 } }, caps)).toBe('drops w:0');
    expect(skipReason({ label: 'x', writeConcern: { w: 1 }, capped: false }, caps)).toBeUndefined();
    const ok: TargetCapabilities = {
      ...standalone,
      capped: { supported: true },
      unacknowledgedWrites: { supported: true },
    };
    expect(skipReason({ label: 'x', writeConcern: { w: 0 }, capped: true }, ok)).toBeUndefined();
  });
});

describe('figures', () => {
  it('a consistent-read share below 100 % never displays as 100', () => {
    const pct = EXPERIMENT.most.measures.find((m) => m.key === 'consistentPct')!;
    expect(formatMeasure(99.97, pct)).toBe('99.9');
    expect(formatMeasure(100, pct)).toBe('100');
    expect(formatMeasure(null, pct)).toBe('–');
  });

  it('presplit-import: seconds to 0.1, ratios (CV, busiest/idlest) to 0.01, no unit after a ratio', () => {
    const byKey = Object.fromEntries(EXPERIMENT['presplit-import'].measures.map((m) => [m.key, m]));
    expect(formatMeasure(12.345, byKey.seconds)).toBe('12.3');
    expect(formatMeasure(Math.SQRT2, byKey.spreadCv)).toBe('1.41');
    expect(formatMeasure(null, byKey.busiestToIdlest)).toBe('–');
    expect(columnTitle(byKey.seconds)).toBe('Import time (s)');
    expect(columnTitle(byKey.busiestToIdlest)).toBe('Busiest/idlest');
  });

  it('exact latency statistics: nearest-rank percentiles', () => {
    const samples = Array.from({ length: 200 }, (_, i) => i + 1); // 1..200 ms
    expect(percentile([...samples], 50)).toBe(100);
    expect(percentile([...samples], 99)).toBe(198);
    expect(latencyStats(samples.reverse())).toEqual({
      count: 200,
      avg: 100.5,
      min: 1,
      max: 200,
      p50: 100,
      p99: 198,
    });
    expect(latencyStats([])).toMatchObject({ count: 0 });
  });

  it('MiB are 2^20 bytes; a capped collection holds the whole test with headroom', () => {
    expect(mibPerSecond(256 * 1024 * 1024, 2)).toBe(128);
    expect(cappedSizeFor(1000, 16_400)).toBeGreaterThan(1000 * 16_400);
    expect(docsForRatio(2, 1024, 512 * 1024)).toBe(4096);
  });
});

function row(
  label: string,
  group: string,
  series: string,
  status: MatrixRow['status'],
  value: number | null,
): MatrixRow {
  return { label, settings: '', status, measures: { writeMiBps: value }, group, series };
}

function doc(rows: MatrixRow[]): MatrixDocument {
  return {
    schema: MATRIX_SCHEMA,
    tool: { name: 'mongo-bench', version: 't' },
    name: 'most',
    experiment: 'most',
    source: 'preset most',
    complete: true,
    startedAt: '',
    target: { uri: 'mongodb://h', topology: 'standalone', serverVersion: '7.0.0' },
    capabilities: standalone,
    scale: 1,
    scaleNote: '',
    scaleApplied: true,
    parameters: {},
    measures: EXPERIMENT.most.measures,
    rows,
    notes: [],
  };
}

describe('grouped bar chart data', () => {
  const chart = EXPERIMENT.most.charts[0];

  it('one measure: x = groups, one bar per series; skipped cells have no bar but say why', () => {
    const spec = barChartSpec(
      doc([
        row('A', 'NORMAL', 'plain', 'ok', 10),
        row('B', 'SAFE', 'plain', 'ok', 20),
        row('C', 'NORMAL', 'capped', 'skipped', null),
        row('D', 'SAFE', 'capped', 'ok', 30),
      ]),
      chart,
    );
    expect(spec.categories).toEqual(['NORMAL', 'SAFE']);
    expect(spec.datasets.map((d) => [d.label, d.values, d.notes])).toEqual([
      ['plain', [10, 20], [null, null]],
      ['capped', [null, 30], ['skipped', null]],
    ]);
    expect(spec.warnings).toEqual([]);
  });

  it('several measures: x = configurations, one bar per measure', () => {
    const latency = EXPERIMENT['write-concern-latency'];
    const d: MatrixDocument = {
      ...doc([]),
      name: 'write-concern-latency',
      experiment: 'write-concern-latency',
      measures: latency.measures,
      target: { uri: 'x', topology: 'standalone', testDouble: true },
      rows: [
        {
          label: 'w:1',
          settings: '',
          status: 'ok',
          measures: { avgMs: 2, minMs: 1, maxMs: 9, p50Ms: 2, p99Ms: 8 },
          group: 'w:1',
          series: 's',
        },
        { label: 'w:2', settings: '', status: 'skipped', measures: {}, group: 'w:2', series: 's' },
      ],
    };
    const spec = barChartSpec(d, latency.charts[0]);
    expect(spec.categories).toEqual(['w:1', 'w:2']);
    expect(spec.datasets.map((s) => s.label)).toEqual(['Min', 'p50', 'Average', 'p99', 'Max']);
    expect(spec.datasets.map((s) => s.values[0])).toEqual([1, 2, 2, 8, 9]);
    // The reason stands once per configuration, under the middle bar (Average).
    expect(spec.datasets.map((s) => s.notes)).toEqual([
      [null, null],
      [null, null],
      [null, 'skipped'],
      [null, null],
      [null, null],
    ]);
    expect(spec.y.scale).toBe('log');
    expect(spec.warnings).toContain('TEST DOUBLE server: these numbers are not MongoDB numbers');
  });

  it('log bounds start at a power of ten under the smallest bar; long labels wrap', () => {
    expect(logAxisBounds([0.07, 0.13, 34.19])).toEqual({ min: 0.01, max: 100 });
    expect(wrapCategory('REPLICA_SAFE(2) (w:2), secondary reads', 18)).toEqual([
      'REPLICA_SAFE(2)',
      '(w:2),',
      'secondary reads',
    ]);
  });
});
