/**
 * The chart configuration shared by the PNGs and the page (lib/report/chart-config.ts): the page's
 * embedded copy computes what the module computes, and the latency charts shown side by side get one
 * y scale (log for all or none, the same range), on the PNG and on the page.
 */
import { runInNewContext } from 'node:vm';
import * as config from '../../lib/report/chart-config';
import { ChartSpec } from '../../lib/report/chart-data';
import { buildCharts, pngCharts } from '../../lib/report/chart-registry';
import { chartConfigScript } from '../../lib/report/page/assets';
import { chartConfiguration } from '../../lib/report/render-chart';
import { LatencySummary, ResultDocument } from '../../lib/result';
import { resultStep } from '../support/results';
import { REPLICA_SET, withServerSection } from '../support/server-results';
import { COMPARISON, fixture } from './helpers';

/** Latency in ms at p50, p95 and p99 (the other figures follow p99). */
function latency(p50: number, p95: number, p99: number): LatencySummary {
  return {
    avg: p50 * 1000,
    p50: p50 * 1000,
    p95: p95 * 1000,
    p99: p99 * 1000,
    p999: p99 * 1000,
    max: p99 * 1000,
    count: 1000,
  };
}

/** Reads spread over two decades (log on their own), writes within 3x (linear on their own). */
function spreadReads(): ResultDocument {
  const base = fixture('result-complete.json');
  const steps = [1, 2, 4].map((clients, i) =>
    resultStep({
      clients,
      latencyMicros: {
        reads: latency(0.1 * (i + 1), 2 * (i + 1), 10 * (i + 1)),
        writes: latency(1 + i * 0.2, 2, 3),
      },
    }),
  );
  return { ...base, steps };
}

type Scales = Record<string, { type?: string; min?: number; max?: number; suggestedMax?: number }>;
const latencyOf = (charts: ChartSpec[]) => charts.filter((c) => c.chart === 'latency');
const pageScales = (spec: ChartSpec) => config.chartScales(spec) as Scales;
const pngScales = (spec: ChartSpec) => chartConfiguration(spec).options!.scales as Scales;

describe("the page's copy of the chart configuration", () => {
  const copy = (() => {
    const sandbox = { exports: {} as typeof config };
    runInNewContext(chartConfigScript(), sandbox);
    return sandbox.exports;
  })();
  const rich = withServerSection(fixture('result-complete.json'), {
    label: 'rs',
    topology: 'replica set rs0 (3 members)',
    processes: REPLICA_SET,
  });
  const specs = [
    ...pngCharts([rich]),
    ...pngCharts(COMPARISON.map(fixture)),
    ...pngCharts([spreadReads()]),
  ];

  it('exports what the module exports, and nothing it imports', () => {
    expect(Object.keys(copy).sort()).toEqual(Object.keys(config).sort());
    expect(chartConfigScript()).not.toMatch(/\brequire\(/);
  });

  it('gives every chart the same scales, tick labels and line styles as the PNG', () => {
    expect(specs.length).toBeGreaterThan(10);
    for (const spec of specs) {
      // Functions dropped by JSON: the data of every scale, then the labels its callbacks write.
      expect(JSON.stringify(copy.chartScales(spec))).toBe(JSON.stringify(config.chartScales(spec)));
      expect(copy.lineStyle(spec)).toEqual(config.lineStyle(spec));
      expect(copy.dashedLegend(spec)).toBe(config.dashedLegend(spec));
    }
    for (const v of [
      0, 0.0123, 0.2, 0.5, 1, 3.14159, 50, 100, 999.9, 1000, 25000, 1234567, -4321,
    ]) {
      expect(copy.tickNumber(v)).toBe(config.tickNumber(v));
      expect(copy.logTickLabel(v)).toBe(config.logTickLabel(v));
      expect(copy.formatNumber(v)).toBe(config.formatNumber(v));
    }
  });
});

describe('latency charts shown side by side share one y scale', () => {
  it('reads spread over two decades and writes within 3x: both log, the same bounds (PNG and page)', () => {
    const [reads, writes] = latencyOf(buildCharts([spreadReads()]));
    expect([reads.file, writes.file]).toEqual(['latency-reads.png', 'latency-writes.png']);
    expect([reads.y.scale, writes.y.scale]).toEqual(['log', 'log']);
    expect(writes.y.title).toBe('write latency (ms, log scale)');
    for (const scales of [pngScales, pageScales]) {
      const [r, w] = [scales(reads).y, scales(writes).y];
      expect(r.type).toBe('logarithmic');
      expect(w.type).toBe('logarithmic');
      expect(w.min).toBe(r.min);
      expect(w.max).toBe(r.max);
      // Room around the lowest (reads p50 at 1 client) and highest (reads p99 at 4) of both charts.
      expect(r.min).toBeCloseTo(0.1 / 1.4, 10);
      expect(r.max).toBeCloseTo(30 * 1.4, 10);
    }
  });

  it('all within 30x: both linear, reaching the same top', () => {
    const base = fixture('result-complete.json');
    const steps = [1, 2].map((clients) =>
      resultStep({
        clients,
        latencyMicros: { reads: latency(1, 2, 3 * clients), writes: latency(2, 4, 5) },
      }),
    );
    const [reads, writes] = latencyOf(buildCharts([{ ...base, steps }]));
    for (const scales of [pngScales, pageScales]) {
      const [r, w] = [scales(reads).y, scales(writes).y];
      expect([r.type, w.type]).toEqual(['linear', 'linear']);
      expect(r.suggestedMax).toBe(6); // reads p99 at 2 clients, the highest of both
      expect(w.suggestedMax).toBe(r.suggestedMax);
    }
  });

  it('each within 30x but 37x together (the complete fixture): log for both, not linear for each', () => {
    const [reads, writes] = latencyOf(buildCharts([fixture('result-complete.json')]));
    expect([reads.y.scale, writes.y.scale]).toEqual(['log', 'log']);
    expect(pageScales(reads).y).toEqual(
      expect.objectContaining({ min: pageScales(writes).y.min, max: pageScales(writes).y.max }),
    );
  });

  it('a comparison: its six charts (reads and writes, p50, p95, p99) on one scale', () => {
    const charts = latencyOf(buildCharts(COMPARISON.map(fixture)));
    expect(charts).toHaveLength(6);
    const ys = charts.map((c) => pngScales(c).y);
    expect(new Set(ys.map((y) => y.type)).size).toBe(1);
    expect(new Set(ys.map((y) => `${y.min} ${y.max} ${y.suggestedMax}`)).size).toBe(1);
  });
});
