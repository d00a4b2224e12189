/**
 * The report of a presplit-import result: chart data (per-shard timelines with gaps, a shared
 * y-axis top, the total per way), the PNGs, and summary.md, from a synthetic result shaped like a
 * minute-long import on 3 shards.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  buildExperimentCharts,
  counterTotal,
  CounterReading,
  PRESPLIT_IMPORT_SCHEMA,
  PresplitImportResult,
  ratesFromReadings,
  resolvePresplitImportOptions,
  spreadOf,
  WayResult,
  WAY_DEFINITIONS,
  writePresplitImportReport,
} from '../../../lib/experiments/presplit-import';

const SHARDS = ['shard0', 'shard1', 'shard2'];

/** Readings every second from per-second insert counts; `missing` seconds fail (a gap). */
function readingsOf(perSecond: number[], missing: number[] = []): CounterReading[] {
  let value = 1000;
  const out: CounterReading[] = [{ t: 0, value }];
  perSecond.forEach((n, i) => {
    value += n;
    out.push(
      missing.includes(i + 1)
        ? { t: i + 1, value: null, error: 'no answer within 900 ms' }
        : { t: i + 1, value },
    );
  });
  return out;
}

function way(
  name: WayResult['way'],
  perShard: number[][],
  gaps: Record<string, number[]> = {},
): WayResult {
  const shardReadings = Object.fromEntries(
    SHARDS.map((id, i) => [id, readingsOf(perShard[i], gaps[id])]),
  );
  const seconds = perShard[0].length;
  const mongosPerSecond = perShard[0].map((_, s) =>
    perShard.reduce((sum, series) => sum + series[s], 0),
  );
  const mongos = readingsOf(mongosPerSecond);
  const totals = Object.fromEntries(
    SHARDS.map((id) => [id, counterTotal(shardReadings[id]).total]),
  );
  const sum = Object.values(totals).reduce((a, b) => a + b, 0);
  const def = WAY_DEFINITIONS[name];
  return {
    way: name,
    letter: def.letter,
    title: def.title,
    description: def.description,
    scriptsArgs: ['--topology', 'sharded', '--shards', '3'],
    housekeeping: [],
    setup: [
      {
        step: 1,
        description: 'Shard collection',
        db: 'admin',
        command: { shardCollection: 'mongo_bench.presplit_import' },
        status: 'applied',
      },
    ],
    setupWarnings: [],
    complete: true,
    import: {
      targetDocs: sum,
      insertedDocs: sum,
      batches: sum / 1000,
      seconds,
      docsPerSec: sum / seconds,
    },
    chunks: {
      before: {
        at: '2026-01-01T00:00:00Z',
        sharded: true,
        perShard: {
          shard0: name === 'hashed' ? 2 : 1,
          shard1: name === 'ranged' ? 0 : name === 'hashed' ? 2 : 1,
          shard2: name === 'ranged' ? 0 : name === 'hashed' ? 2 : 1,
        },
        total: 3,
      },
      after: {
        at: '2026-01-01T00:01:00Z',
        sharded: true,
        perShard: {
          shard0: name === 'ranged' ? 3 : 1,
          shard1: 1,
          shard2: name === 'ranged' ? 0 : 1,
        },
        total: 3,
      },
    },
    shards: SHARDS,
    readings: { mongos, shards: shardReadings },
    perSecond: {
      shards: Object.fromEntries(SHARDS.map((id) => [id, ratesFromReadings(shardReadings[id])])),
      mongos: ratesFromReadings(mongos),
      client: ratesFromReadings(mongos),
    },
    totals: { perShard: totals, shardsSum: sum, mongos: sum, client: sum },
    gaps: Object.fromEntries(SHARDS.map((id) => [id, gaps[id]?.length ?? 0])),
    spread: spreadOf(totals),
    peakPerSec: {
      shards: Object.fromEntries(SHARDS.map((id, i) => [id, Math.max(...perShard[i])])),
      mongos: Math.max(...mongosPerSecond),
      client: Math.max(...mongosPerSecond),
    },
  };
}

/** A minute of import: (a) hot shard0, migrations later; (b) even; (c) even and a bit noisier. */
function syntheticResult(): PresplitImportResult {
  const secs = (n: number, f: (s: number) => number) =>
    Array.from({ length: n }, (_, s) => Math.round(f(s)));
  const wave = (s: number, k: number) => 1 + 0.25 * Math.sin(s / 3 + k);
  const ranged = way('ranged', [
    secs(60, (s) => (s % 10 < 7 ? 4000 * wave(s, 0) : 600)),
    secs(60, (s) => (s > 20 && s % 10 >= 7 ? 1800 : s > 20 ? 300 : 0)),
    secs(60, () => 0),
  ]);
  const presplit = way(
    'presplit',
    [
      secs(40, (s) => 3000 * wave(s, 0)),
      secs(40, (s) => 3000 * wave(s, 2)),
      secs(40, (s) => 3000 * wave(s, 4)),
    ],
    {
      shard1: [12, 13],
    },
  );
  const hashed = way('hashed', [
    secs(45, (s) => 2600 * wave(s, 1)),
    secs(45, (s) => 2700 * wave(s, 3)),
    secs(45, (s) => 2500 * wave(s, 5)),
  ]);
  const { uri: _uri, ...settings } = resolvePresplitImportOptions({ uri: 'mongodb://h:1' });
  return {
    schema: PRESPLIT_IMPORT_SCHEMA,
    tool: { name: 'mongo-bench', version: '0.0.0' },
    startedAt: '2026-01-01T00:00:00Z',
    finishedAt: '2026-01-01T00:03:00Z',
    complete: true,
    target: {
      uri: 'mongodb://mongos.example:27017/',
      serverVersion: '7.0.12',
      shards: SHARDS.map((id) => ({ id, host: `${id}/h:1` })),
      baseline: { balancerMode: 'full', chunkSizeMb: null },
      testDouble: 'synthetic figures made by the test',
    },
    settings,
    ways: [ranged, presplit, hashed],
    warnings: ['way presplit: shard1 missed 2 reading(s) (gaps in its series)'],
  };
}

describe('the presplit-import report', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'mongo-bench-presplit-report-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('builds one per-shard timeline per way, sharing a y-axis top, plus the total', () => {
    const result = syntheticResult();
    const charts = buildExperimentCharts(result);
    expect(charts.map((c) => c.file)).toEqual([
      'ranged-per-shard.png',
      'presplit-per-shard.png',
      'hashed-per-shard.png',
      'total.png',
    ]);
    const top = Math.max(...result.ways.flatMap((w) => Object.values(w.peakPerSec.shards)));
    for (const chart of charts.slice(0, 3)) {
      expect(chart.y.suggestedMax).toBe(top);
      expect(chart.series).toHaveLength(3);
      // Same time axis for every chart: the longest way (60 s); no "clients in each step" axis (one step).
      expect(chart.x).toMatchObject({ kind: 'seconds', max: 60, steps: [] });
      // 60 points a series: markers drawn, small.
      expect(chart.lines).toEqual({ width: 2, pointRadius: 2 });
    }
    expect(charts[3].y.suggestedMax).toBeUndefined();
    const ranged = charts[0];
    expect(ranged.series.map((s) => s.label)).toEqual([
      expect.stringMatching(/^shard0: [\d,]+ inserts \(8\d%\) · chunks 1 → 3$/),
      expect.stringMatching(/^shard1: [\d,]+ inserts \(1\d%\) · chunks 0 → 1$/),
      'shard2: 0 inserts (0%) · chunks 0 → 0',
    ]);
    // A reading that failed is a gap: a null point where the line breaks.
    const shard1 = charts[1].series[1].points;
    expect(shard1.filter((p) => p.y === null).map((p) => p.x)).toEqual([12, 13]);
    expect(shard1.find((p) => p.x === 14)?.y).not.toBeNull();
    expect(charts[1].warnings.some((w) => w.startsWith('gaps: shard1'))).toBe(true);
    expect(charts[3].series.map((s) => s.label)).toEqual([
      '(a) ranged key, no pre-split, balancer on',
      '(b) pre-split, chunks moved, balancer stopped, larger chunks',
      '(c) hashed shard key',
    ]);
  });

  it('writes the JSON, the PNGs and a summary table', async () => {
    // PRESPLIT_REPORT_DIR=/some/dir keeps the report there, to look at the charts.
    const dir = process.env.PRESPLIT_REPORT_DIR ?? path.join(tmp, 'synthetic');
    const files = await writePresplitImportReport(syntheticResult(), dir);
    expect(files.map((f) => path.basename(f))).toEqual([
      'presplit-import.json',
      'ranged-per-shard.png',
      'presplit-per-shard.png',
      'hashed-per-shard.png',
      'total.png',
      'summary.md',
    ]);
    for (const png of files.filter((f) => f.endsWith('.png'))) {
      const bytes = readFileSync(png);
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      expect(bytes.length).toBeGreaterThan(20_000); // drawn text and lines, not a blank canvas
    }
    const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain(
      '| way | status | docs inserted | seconds | docs/s (client) | peak inserts/s (mongos) | busiest shard (share) | busiest/idlest | spread (CV) |',
    );
    expect(summary).toMatch(
      /\| \(a\) ranged key, no pre-split, balancer on \| complete \| [\d,]+ \| 60\.0 \| [\d,]+ \| [\d,]+ \| shard0 \(8\d%\) \| ∞ \(shard2 took none\) \| 1\.\d\d of 1\.41 \|/,
    );
    expect(summary).toContain('| shard2 | 0 | 0% | 0 | 0 | 0 |');
    expect(summary).toContain(
      '![inserts/sec on each shard, (b) pre-split, chunks moved, balancer stopped, larger chunks](presplit-per-shard.png)',
    );
  });
});
