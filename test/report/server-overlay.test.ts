/**
 * Two results with server sections compared: every server chart is an overlay, one line per result,
 * whose values are each result's counting servers (its mongos, else its mongods), its fullest
 * mongod's dirty cache, its queues summed and its furthest secondary's lag; the PNGs draw both lines,
 * and writeReport writes them. The sections are made up (test/support/server-results.ts) and marked
 * as test doubles. SERVER_CHARTS_OUT=dir keeps the PNGs for a look.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PALETTE } from '../../lib/report/chart-data';
import { renderChart } from '../../lib/report/render-chart';
import { buildServerCharts, SERVER_CHART_FILES } from '../../lib/report/server-charts';
import { renderSummaryMarkdown } from '../../lib/report/summary-md';
import { writeReport } from '../../lib/report/write-report';
import { REPLICA_SET, SHARDED, withServerSection } from '../support/server-results';
import { countPixels, decodePng, fixture, PNG_SIGNATURE, pngSize } from './helpers';

const rs = withServerSection(fixture('compare-w0.json'), {
  label: 'rs',
  topology: 'replica set rs0 (3 members)',
  processes: REPLICA_SET,
});
// Another application adds 10% on the sharded cluster: its checks find a gap.
const sharded = withServerSection(fixture('compare-w1.json'), {
  label: 'sharded',
  topology: 'sharded (2 shards)',
  processes: SHARDED,
  extraLoad: 0.1,
});
const LABELS = ['rs (test double)', 'sharded (test double)'];

/** The y values of a series inside step `index` (its points between that segment's bounds). */
function stepValues(
  chart: ReturnType<typeof buildServerCharts>[number],
  series: number,
  index: number,
): number[] {
  const seg = chart.x.kind === 'seconds' ? chart.x.steps[index] : undefined;
  return chart.series[series].points
    .filter((p) => seg && p.x > seg.start && p.x < seg.start + seg.length && p.y !== null)
    .map((p) => p.y!);
}

// The first two palette colours (#0072B2 blue, #D55E00 orange), anti-aliased shades included: a thin line is mostly blended with white.
const isBlue = (r: number, g: number, b: number) => b > r + 60 && b > g + 30;
const isOrange = (r: number, g: number, b: number) => r > b + 80 && r > g + 40;

describe('server charts of a comparison', () => {
  const charts = buildServerCharts([rs, sharded]);
  const chart = (file: string) => charts.find((c) => c.file === file)!;

  it('overlays every server chart, one line per result', () => {
    expect(charts.map((c) => c.file)).toEqual([
      SERVER_CHART_FILES.ops,
      SERVER_CHART_FILES.cache,
      SERVER_CHART_FILES.queues,
      SERVER_CHART_FILES.lag,
    ]);
    for (const c of charts) {
      expect(c.series.map((s) => s.label)).toEqual(LABELS);
      expect(new Set(c.series.map((s) => s.color)).size).toBe(2);
      expect(c.x.kind === 'seconds' && c.x.steps.map((s) => s.clients)).toEqual([
        1, 2, 4, 8, 16, 32,
      ]);
      // The sharded result's gap, named, once for all its steps; the test-double warning.
      expect(c.warnings).toEqual([
        expect.stringMatching(/^TEST DOUBLE server/),
        'sharded (test double): servers and clients disagree at 1, 2, 4, 8, 16, 32 clients (see summary.md)',
      ]);
    }
    expect(sharded.server!.checks.every((c) => c.status === 'gap')).toBe(true);
    expect(rs.server!.checks.every((c) => c.status === 'ok')).toBe(true);
  });

  it("draws each result's counting servers: the mongos alone on a sharded cluster (its shards would count every op twice)", () => {
    const ops = chart(SERVER_CHART_FILES.ops);
    rs.steps.forEach((step, i) =>
      expect(stepValues(ops, 0, i)).toEqual(step.perSecond.map((p) => p.reads + p.writes)),
    );
    sharded.steps.forEach((step, i) => {
      const expected = step.perSecond.map(
        (p) => Math.round(p.reads * 1.1) + Math.round(p.writes * 1.1),
      );
      expect(stepValues(ops, 1, i)).toEqual(expected);
    });
  });

  it("draws the fullest mongod's dirty cache and the furthest secondary's lag (not sums), and the queues summed", () => {
    for (let i = 0; i < 6; i++) {
      expect(new Set(stepValues(chart(SERVER_CHART_FILES.cache), 0, i))).toEqual(new Set([2]));
      expect(new Set(stepValues(chart(SERVER_CHART_FILES.cache), 1, i))).toEqual(new Set([5]));
      expect(new Set(stepValues(chart(SERVER_CHART_FILES.lag), 0, i))).toEqual(new Set([i / 5]));
      expect(new Set(stepValues(chart(SERVER_CHART_FILES.lag), 1, i))).toEqual(new Set([1 + i]));
      expect(new Set(stepValues(chart(SERVER_CHART_FILES.queues), 0, i))).toEqual(new Set([1]));
      expect(new Set(stepValues(chart(SERVER_CHART_FILES.queues), 1, i))).toEqual(new Set([3]));
    }
  });

  it('renders each overlay as a PNG with both lines drawn, and writeReport writes them with the summary', async () => {
    const dir = process.env.SERVER_CHARTS_OUT ?? mkdtempSync(join(tmpdir(), 'server-overlay-'));
    try {
      for (const spec of charts) {
        const png = await renderChart(spec);
        expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
        expect(pngSize(png)).toEqual({ width: 1000, height: 600 });
        const pixels = await decodePng(png);
        // A legend marker is a few dozen pixels; a line across the plot is hundreds.
        expect(spec.series.map((s) => s.color)).toEqual([PALETTE[0], PALETTE[1]]);
        for (const colour of [isBlue, isOrange])
          expect(countPixels(pixels, 0, pixels.height, colour)).toBeGreaterThan(300);
        writeFileSync(join(dir, spec.file), png);
      }
      const out = join(dir, 'report');
      const { files } = await writeReport([rs, sharded], out);
      for (const file of Object.values(SERVER_CHART_FILES))
        expect(files).toContain(join(out, file));
      const md = renderSummaryMarkdown([rs, sharded], charts);
      expect(md).toMatch(
        /\| 1 \| .* \| ok \| primary rs0-a:27017: query\+insert\+update\+delete \|/,
      );
      expect(md).toMatch(
        /> \*\*Warning: step 1 client: the servers counted \d+ ops, the clients \d+; off by \d+ \(10\.0%\)/,
      );
      expect(existsSync(join(out, 'summary.md'))).toBe(true);
    } finally {
      if (!process.env.SERVER_CHARTS_OUT) rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the Servers section names the processes by what they are', () => {
  it('a mongod on MongoDB, the product on another server (FerretDB answers as a standalone), never a mongod', () => {
    const mongo = withServerSection(fixture('compare-w0.json'), {
      label: 'rs',
      topology: 'replica set rs0 (3 members)',
      processes: REPLICA_SET,
    });
    const real = { ...mongo, target: { ...mongo.target, testDouble: false } };
    expect(renderSummaryMarkdown([real], [])).toMatch(
      /serverStatus every 1 s from rs0-a:27017 \(mongod\)/,
    );
    const ferret = {
      ...real,
      target: {
        ...real.target,
        product: {
          name: 'FerretDB',
          version: '1.24.2',
          reportedMongoDBVersion: '7.0.42',
          label: 'FerretDB 1.24.2, reports MongoDB 7.0.42',
          testDouble: false,
          evidence: ['buildInfo.ferretdbVersion is "v1.24.2"'],
        },
      },
    };
    const md = renderSummaryMarkdown([ferret], []);
    expect(md).toMatch(/serverStatus every 1 s from rs0-a:27017 \(FerretDB\)/);
    expect(md).not.toMatch(/\(mongod\)/);
    expect(renderSummaryMarkdown([mongo], [])).toMatch(/from rs0-a:27017 \(test double\)/);
  });
});
