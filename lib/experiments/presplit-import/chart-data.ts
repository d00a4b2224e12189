/**
 * The experiment's charts as lib/report ChartSpecs (plain data): one per-shard inserts/sec timeline
 * per way (the seed's per-node graphs) and one chart of the cluster total per way.
 */
import { ChartSpec, PALETTE, Point, Series } from '../../report/chart-data';
import { formatOps } from '../../report/format';
import { RatePoint } from './rates';
import { PresplitImportResult, WayResult } from './result';
import { wayLabel } from './ways';

export function perShardChartFile(way: WayResult['way']): string {
  return `${way}-per-shard.png`;
}
export const TOTAL_CHART_FILE = 'total.png';

const SHAPES: Series['pointStyle'][] = [
  'circle',
  'rect',
  'triangle',
  'rectRot',
  'rectRounded',
  'crossRot',
  'star',
];

function style(index: number): Pick<Series, 'color' | 'pointStyle' | 'dash'> {
  return {
    color: PALETTE[index % PALETTE.length],
    pointStyle: SHAPES[index % SHAPES.length],
    dash: index >= PALETTE.length ? [8, 4] : [],
  };
}

function points(rates: readonly RatePoint[]): Point[] {
  return rates.map((r) => ({ x: r.t, y: r.perSec }));
}

function lastT(rates: readonly RatePoint[]): number {
  return rates.length ? rates[rates.length - 1].t : 0;
}

function subtitle(result: PresplitImportResult): string {
  const s = result.settings;
  return [
    `${formatOps(s.docs)} docs of ~${formatOps(s.docSize)} bytes per way`,
    `insertMany batches of ${formatOps(s.batchSize)}, ${s.writers} writer${s.writers === 1 ? '' : 's'}`,
    `${result.target.shards.length} shards`,
    `MongoDB ${result.target.serverVersion}`,
    `${s.ns}`,
    `serverStatus every ${s.sampleIntervalMs / 1000} s`,
  ].join(' · ');
}

function chartWarnings(result: PresplitImportResult, ways: readonly WayResult[]): string[] {
  const out: string[] = [];
  if (result.target.testDouble)
    out.push(`TEST DOUBLE: ${result.target.testDouble}; not MongoDB figures`);
  for (const w of ways) {
    if (!w.complete)
      out.push(
        `INCOMPLETE (${w.letter}): ${w.error ? `failed: ${w.error}` : (w.incompleteReason ?? 'cut short')}`,
      );
  }
  const gappy = ways.flatMap((w) =>
    Object.entries(w.gaps)
      .filter(([, n]) => n > 0)
      .map(([source]) => source),
  );
  if (gappy.length > 0)
    out.push(`gaps: ${[...new Set(gappy)].join(', ')} did not answer some readings (line breaks)`);
  return out.map((line) => (line.length > 110 ? `${line.slice(0, 107)}...` : line));
}

/** The seconds axis, the same length for every chart of one result; an import is one step, so no steps axis. */
function timeAxis(result: PresplitImportResult): ChartSpec['x'] {
  const longest = Math.max(
    1,
    ...result.ways.flatMap((w) => [
      lastT(w.perSecond.mongos),
      lastT(w.perSecond.client),
      ...Object.values(w.perSecond.shards).map(lastT),
    ]),
  );
  return {
    kind: 'seconds',
    title: 'seconds since the import began',
    max: Math.ceil(longest),
    steps: [],
  };
}

/** Short runs have few points: show them, small, so a one-second blip is still visible. */
function lines(series: readonly Series[]): ChartSpec['lines'] {
  return { width: 2, pointRadius: series.every((s) => s.points.length <= 60) ? 2 : 0 };
}

function shardLegend(way: WayResult, id: string): string {
  const total = way.totals.perShard[id] ?? 0;
  const share =
    way.totals.shardsSum > 0 ? ` (${Math.round((total / way.totals.shardsSum) * 100)}%)` : '';
  const before = way.chunks.before?.perShard[id];
  const after = way.chunks.after?.perShard[id];
  const chunks =
    before !== undefined || after !== undefined
      ? ` · chunks ${before ?? '?'} → ${after ?? '?'}`
      : '';
  return `${id}: ${formatOps(total)} inserts${share}${chunks}`;
}

/** `yTop`: the y axis reaches at least this high, the same for every way's chart, so they read side by side. */
export function perShardChart(
  result: PresplitImportResult,
  way: WayResult,
  yTop?: number,
): ChartSpec {
  // The legend carries each shard's total and chunks: lines of idle shards lie on top of one another at 0.
  const series: Series[] = way.shards.map((id, i) => ({
    label: shardLegend(way, id),
    ...style(i),
    pointStyle: 'circle',
    points: points(way.perSecond.shards[id] ?? []),
  }));
  const spread = way.spread;
  const spreadText = spread
    ? `busiest ${spread.busiest.shard} took ${Math.round(spread.busiestShare * 100)}% of the inserts; spread (CV) ${spread.cv.toFixed(2)} (0 = even, ${spread.cvAllOnOne.toFixed(2)} = all on one shard)`
    : '';
  return {
    file: perShardChartFile(way.way),
    title: `Inserts/sec on each shard: ${wayLabel(way.way)}`,
    subtitle: [subtitle(result), spreadText].filter(Boolean).join(' · '),
    warnings: chartWarnings(result, [way]),
    x: timeAxis(result),
    y: {
      title: "inserts/sec on the shard's primary (opcounters.insert)",
      unit: 'ops/s',
      scale: 'linear',
      ...(yTop !== undefined && yTop > 0 ? { suggestedMax: yTop } : {}),
    },
    lines: lines(series),
    series,
  };
}

export function totalChart(result: PresplitImportResult): ChartSpec {
  const series: Series[] = result.ways.map((w, i) => {
    const useMongos = w.perSecond.mongos.some((p) => p.perSec !== null && p.perSec > 0);
    return {
      label: `${wayLabel(w.way)}${useMongos ? '' : ' (client count: the mongos gave no counter)'}`,
      ...style(i),
      pointStyle: 'circle',
      points: points(useMongos ? w.perSecond.mongos : w.perSecond.client),
    };
  });
  return {
    file: TOTAL_CHART_FILE,
    title: 'Cluster inserts/sec at the mongos, each way',
    subtitle: subtitle(result),
    warnings: chartWarnings(result, result.ways),
    x: timeAxis(result),
    y: { title: 'inserts/sec at the mongos (opcounters.insert)', unit: 'ops/s', scale: 'linear' },
    lines: lines(series),
    series,
  };
}

/** Every chart of the report: one per-shard chart per way (sharing a y-axis top), then the total. */
export function buildExperimentCharts(result: PresplitImportResult): ChartSpec[] {
  const shardPeak = Math.max(0, ...result.ways.flatMap((w) => Object.values(w.peakPerSec.shards)));
  const charts: ChartSpec[] = result.ways
    .filter(
      (w) =>
        w.readings.mongos.length > 0 || Object.values(w.readings.shards).some((r) => r.length > 0),
    )
    .map((w) => perShardChart(result, w, shardPeak));
  const total = totalChart(result);
  if (total.series.some((s) => s.points.some((p) => p.y !== null))) charts.push(total);
  return charts;
}
