import { ResultDocument, StepResult } from '../../lib/result';
import {
  chooseLatencyScale,
  latencyChart,
  latencyComparisonChart,
  PALETTE,
  PARTIAL_NOTE,
  throughputChart,
  timelineChart,
  timelineSegments,
} from '../../lib/report/chart-data';
import { buildCharts } from '../../lib/report/chart-registry';
import { logTickLabel, wrapSubtitle } from '../../lib/report/render-chart';
import { COMPARISON, fixture } from './helpers';
import { resultStep } from '../support/results';

const latency = (base: number, count = 100) => ({
  avg: base,
  p50: base,
  p95: base * 2,
  p99: base * 4,
  p999: base * 8,
  max: base * 16,
  count,
});

/** A small hand-made step whose figures are all different, so a builder that reads the wrong field is caught. */
function step(
  clients: number,
  perSecond: Array<[number, number, number]>,
  extra: Partial<StepResult> = {},
): StepResult {
  return resultStep({
    clients,
    seconds: perSecond.length,
    opsPerSec: { total: clients * 111, reads: clients * 100, writes: clients * 11 },
    peakOpsPerSec: { total: clients * 222, reads: clients * 200, writes: clients * 22 },
    latencyMicros: { reads: latency(clients * 1000), writes: latency(clients * 3000) },
    perSecond: perSecond.map(([reads, writes, errors], t) => ({ t, reads, writes, errors })),
    ...extra,
  });
}

function result(
  label: string,
  steps: StepResult[],
  extra: Partial<ResultDocument> = {},
): ResultDocument {
  return {
    schema: 'mongo-bench/result@1',
    tool: { name: 'mongo-bench', version: '0.1.0' },
    label,
    complete: true,
    startedAt: '2026-01-01T00:00:00Z',
    target: { uri: 'mongodb://127.0.0.1:27017/', serverVersion: '7.0.14', topology: 'standalone' },
    workload: { name: '6:1 findOne:update', ops: [], docSize: 512 },
    config: {},
    steps,
    ...extra,
  };
}

const small = result('mine', [
  step(1, [
    [10, 1, 0],
    [12, 2, 0],
  ]),
  step(2, [
    [20, 3, 0],
    [22, 4, 0],
    [24, 5, 0],
  ]),
]);

describe('throughput charts (the SoftLayer four)', () => {
  it.each([
    ['avgReads', 'avg-read-ops.png', [100, 200]],
    ['peakReads', 'peak-read-ops.png', [200, 400]],
    ['avgWrites', 'avg-write-ops.png', [11, 22]],
    ['peakWrites', 'peak-write-ops.png', [22, 44]],
  ] as const)('%s plots that figure by client count', (metric, file, ys) => {
    const spec = throughputChart([small], metric);
    expect(spec.file).toBe(file);
    expect(spec.x).toEqual({
      kind: 'clients',
      title: 'concurrent clients (log scale)',
      ticks: [1, 2],
    });
    expect(spec.y.unit).toBe('ops/s');
    expect(spec.series).toHaveLength(1);
    expect(spec.series[0].label).toBe('mine');
    expect(spec.series[0].points).toEqual([
      { x: 1, y: ys[0] },
      { x: 2, y: ys[1] },
    ]);
  });

  it('puts ticks exactly at the client counts of the fixture sweep', () => {
    const spec = throughputChart([fixture('result-complete.json')], 'avgReads');
    expect(spec.x.kind === 'clients' && spec.x.ticks).toEqual([1, 2, 4, 8, 16, 32]);
  });

  it('titles say what was measured: workload, topology, server version, doc size', () => {
    const spec = throughputChart([fixture('result-complete.json')], 'avgReads');
    expect(spec.title).toBe('Average read operations per second by concurrent clients');
    expect(spec.subtitle).toBe(
      'standalone w:1 · workload: 6:1 findOne:update · standalone · MongoDB 7.0.14 · 512 B docs',
    );
    expect(spec.y.title).toMatch(/reads\/sec/);
    expect(spec.warnings).toEqual([]);
  });

  it('compares several results: one series per result, legend = label, distinct colours, union of client counts', () => {
    const results = COMPARISON.map(fixture);
    results[2] = { ...results[2], steps: results[2].steps.filter((s) => s.clients <= 16) };
    const spec = throughputChart(results, 'avgWrites');
    expect(spec.series.map((s) => s.label)).toEqual(['w:0', 'w:1', 'j:true']);
    expect(new Set(spec.series.map((s) => s.color)).size).toBe(3);
    expect(new Set(spec.series.map((s) => s.pointStyle)).size).toBe(3);
    expect(spec.x.kind === 'clients' && spec.x.ticks).toEqual([1, 2, 4, 8, 16, 32]);
    expect(spec.series[2].points.map((p) => p.x)).toEqual([1, 2, 4, 8, 16]);
    results.forEach((r, i) =>
      expect(spec.series[i].points.map((p) => p.y)).toEqual(r.steps.map((s) => s.opsPerSec.writes)),
    );
    expect(spec.subtitle).toBe(
      'workload: 6:1 findOne:update · replica set rs0 (3 members) · MongoDB 7.0.14 · 512 B docs',
    );
  });

  it('says "varies" for facts the compared results do not share, and keeps duplicate labels apart', () => {
    const a = result('same', [step(1, [[1, 1, 0]])]);
    const b = result('same', [step(1, [[1, 1, 0]])], {
      target: { uri: 'x', serverVersion: '8.0.1', topology: 'standalone' },
    });
    const spec = throughputChart([a, b], 'avgReads');
    expect(spec.subtitle).toContain('server varies');
    expect(spec.series.map((s) => s.label)).toEqual(['same', 'same #2']);
  });

  it('uses more colours than there are result files before repeating, then dashes', () => {
    const many = Array.from({ length: PALETTE.length + 1 }, (_, i) =>
      result(`r${i}`, [step(1, [[1, 1, 0]])]),
    );
    const spec = throughputChart(many, 'avgReads');
    expect(new Set(spec.series.slice(0, PALETTE.length).map((s) => s.color)).size).toBe(
      PALETTE.length,
    );
    expect(spec.series[PALETTE.length].dash.length).toBeGreaterThan(0);
  });
});

describe('latency charts', () => {
  it('one result: p50, p95 and p99 in milliseconds, null where nothing was measured', () => {
    const r = result('mine', [
      step(1, [[1, 1, 0]]),
      step(2, [[1, 0, 0]], { latencyMicros: { reads: latency(2000), writes: latency(0, 0) } }),
    ]);
    const spec = latencyChart(r, 'writes');
    expect(spec.file).toBe('latency-writes.png');
    expect(spec.y).toMatchObject({ unit: 'ms', title: 'write latency (ms)' });
    expect(spec.series.map((s) => s.label)).toEqual(['p50', 'p95', 'p99']);
    expect(spec.series[0].points).toEqual([
      { x: 1, y: 3 },
      { x: 2, y: null },
    ]);
    expect(spec.series[2].points[0]).toEqual({ x: 1, y: 12 });
  });

  it('several results: one chart per percentile, one series per result; log scale when the values span decades', () => {
    const results = COMPARISON.map(fixture);
    const spec = latencyComparisonChart(results, 'writes', 'p99');
    expect(spec.file).toBe('latency-writes-p99.png');
    expect(spec.series.map((s) => s.label)).toEqual(['w:0', 'w:1', 'j:true']);
    expect(spec.series[2].points.map((p) => p.y)).toEqual(
      results[2].steps.map((s) => s.latencyMicros.writes.p99 / 1000),
    );
    expect(spec.y.scale).toBe('log'); // w:0 ~0.15 ms vs j:true ~10 ms
    expect(latencyChart(fixture('result-complete.json'), 'reads').y.scale).toBe('linear');
  });

  it('chooseLatencyScale switches to log past a 30x spread', () => {
    const series = (ys: number[]) => [
      {
        label: 'a',
        color: '',
        pointStyle: 'circle' as const,
        dash: [],
        points: ys.map((y, x) => ({ x, y })),
      },
    ];
    expect(chooseLatencyScale(series([1, 30]))).toBe('linear');
    expect(chooseLatencyScale(series([1, 31]))).toBe('log');
    expect(chooseLatencyScale(series([]))).toBe('linear');
  });
});

describe('timeline chart', () => {
  it('lays steps one after another, each second at its middle, with a gap between steps', () => {
    const spec = timelineChart([small]);
    expect(spec.x).toMatchObject({ kind: 'seconds', max: 5 });
    expect(spec.x.kind === 'seconds' && spec.x.steps).toEqual([
      { clients: 1, start: 0, length: 2, partial: false },
      { clients: 2, start: 2, length: 3, partial: false },
    ]);
    expect(spec.series.map((s) => s.label)).toEqual(['reads/sec', 'writes/sec']);
    expect(spec.series[0].points).toEqual([
      { x: 0.5, y: 10 },
      { x: 1.5, y: 12 },
      { x: 2, y: null },
      { x: 2.5, y: 20 },
      { x: 3.5, y: 22 },
      { x: 4.5, y: 24 },
      { x: 5, y: null },
    ]);
    expect(spec.y2).toBeUndefined();
  });

  it('adds errors/sec on its own axis when a run had errors', () => {
    const spec = timelineChart([fixture('result-complete.json')]);
    const errors = spec.series.find((s) => s.label.startsWith('errors/sec'));
    expect(errors?.yAxis).toBe('y2');
    expect(spec.y2?.title).toBe('errors/sec');
    expect(errors?.points.reduce((sum, p) => sum + (p.y ?? 0), 0)).toBe(3);
  });

  it('aligns compared results by client count; a segment is as long as the longest run of it', () => {
    const a = result('a', [
      step(1, [
        [1, 1, 0],
        [1, 1, 0],
      ]),
      step(2, [[1, 1, 0]]),
    ]);
    const b = result('b', [
      step(2, [
        [5, 1, 0],
        [5, 1, 0],
        [5, 1, 0],
      ]),
    ]);
    const segments = timelineSegments([a, b]);
    expect(segments.map((s) => [s.clients, s.start, s.length])).toEqual([
      [1, 0, 2],
      [2, 2, 3],
    ]);
    const spec = timelineChart([a, b]);
    expect(spec.series[1].points).toEqual([
      { x: 2.5, y: 6 },
      { x: 3.5, y: 6 },
      { x: 4.5, y: 6 },
      { x: 5, y: null },
    ]);
  });
});

describe('incomplete and test-double results', () => {
  it('an incomplete result charts what it has and every chart says "INCOMPLETE"', () => {
    const r = fixture('result-incomplete.json');
    const charts = buildCharts([r]);
    expect(charts).toHaveLength(7);
    for (const chart of charts) {
      expect(chart.warnings[0]).toBe(
        'INCOMPLETE run: interrupted by SIGINT during the 8-client step (showing the steps it finished)',
      );
    }
    const avg = charts.find((c) => c.file === 'avg-read-ops.png')!;
    expect(avg.series[0].points.map((p) => p.x)).toEqual([1, 2, 4, 8]);
    expect(avg.series[0].points.map((p) => p.partial ?? false)).toEqual([
      false,
      false,
      false,
      true,
    ]);
    expect(avg.warnings).toContain(PARTIAL_NOTE);
    const timeline = charts.find((c) => c.file === 'timeline.png')!;
    expect(timeline.x.kind === 'seconds' && timeline.x.steps.at(-1)).toEqual({
      clients: 8,
      start: 30,
      length: 4,
      partial: true,
    });
  });

  it('marks the incomplete one among compared results', () => {
    const spec = throughputChart(
      [fixture('result-complete.json'), fixture('result-incomplete.json')],
      'avgReads',
    );
    expect(spec.series[1].label).toBe('standalone w:1 (cut short) (incomplete)');
    expect(spec.warnings[0]).toBe(
      'INCOMPLETE (showing the steps that finished): standalone w:1 (cut short)',
    );
  });

  it('never presents test-double numbers as MongoDB numbers', () => {
    const r = fixture('result-complete.json');
    const double = { ...r, target: { ...r.target, serverVersion: '6.0.0', testDouble: true } };
    const spec = throughputChart([double], 'avgReads');
    expect(spec.subtitle).toContain('TEST DOUBLE server (reports 6.0.0), not MongoDB');
    expect(spec.subtitle).not.toContain('MongoDB 6.0.0');
    expect(spec.warnings).toContain('TEST DOUBLE server: these numbers are not MongoDB numbers');
    expect(spec.series[0].label).toBe('standalone w:1 (test double)');
  });

  it('a result with no finished step has no chart to draw', () => {
    expect(buildCharts([result('empty', [], { complete: false })])).toEqual([]);
  });
});

describe('chart sets', () => {
  it('one result: the SoftLayer four, read and write latency, timeline', () => {
    expect(buildCharts([fixture('result-complete.json')]).map((c) => c.file)).toEqual([
      'avg-read-ops.png',
      'peak-read-ops.png',
      'avg-write-ops.png',
      'peak-write-ops.png',
      'latency-reads.png',
      'latency-writes.png',
      'timeline.png',
    ]);
  });

  it('several results: the four, one latency chart per op kind and percentile, timeline', () => {
    expect(buildCharts(COMPARISON.map(fixture)).map((c) => c.file)).toEqual([
      'avg-read-ops.png',
      'peak-read-ops.png',
      'avg-write-ops.png',
      'peak-write-ops.png',
      'latency-reads-p50.png',
      'latency-reads-p95.png',
      'latency-reads-p99.png',
      'latency-writes-p50.png',
      'latency-writes-p95.png',
      'latency-writes-p99.png',
      'timeline.png',
    ]);
  });
});

describe('tick and title helpers', () => {
  it('labels a log axis only at 1, 2, 5 x 10^n', () => {
    expect(
      [0.1, 0.15, 0.2, 0.3, 0.5, 1, 1.5, 2, 5, 7, 10, 20, 15, 50, 2000].map(logTickLabel),
    ).toEqual(['0.1', '', '0.2', '', '0.5', '1', '', '2', '5', '', '10', '20', '', '50', '2,000']);
  });

  it('wraps a long subtitle at its " · " separators', () => {
    expect(wrapSubtitle('aaaa · bbbb · cccc', 11)).toEqual(['aaaa · bbbb', 'cccc']);
    expect(wrapSubtitle('short', 50)).toEqual(['short']);
  });
});

describe('timeline with trials', () => {
  it('places each trial after the previous one inside its step', () => {
    const s = step(4, []);
    s.perSecond = [
      { t: 0, reads: 1, writes: 0, errors: 0, trial: 1 },
      { t: 1, reads: 2, writes: 0, errors: 0, trial: 1 },
      { t: 0, reads: 3, writes: 0, errors: 0, trial: 2 },
      { t: 1, reads: 4, writes: 0, errors: 0, trial: 2 },
    ];
    const spec = timelineChart([result('trials', [s])]);
    expect(spec.x.kind === 'seconds' && spec.x.steps).toEqual([
      { clients: 4, start: 0, length: 4, partial: false },
    ]);
    expect(spec.series[0].points).toEqual([
      { x: 0.5, y: 1 },
      { x: 1.5, y: 2 },
      { x: 2.5, y: 3 },
      { x: 3.5, y: 4 },
      { x: 4, y: null },
    ]);
  });
});
