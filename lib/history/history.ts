/**
 * The history of stored results: the series of each label (per client count and metric), their
 * change points by E-Divisive means, each with the runs on either side, the mean before and after,
 * the change in percent and the p-value, and whether the newest change of a series is a regression
 * beyond the threshold (the CI gate). Plain data in, plain data out (history.json is this document).
 */
import { notMongoDBWarning, serverLabel } from '../report/describe';
import type { StoredResult } from '../store/store';
import { eDivisive, E_DIVISIVE_DEFAULTS } from './e-divisive';
import { byLabel, HistoryMetric, mixesTestDouble, RunRef, Series, seriesOf } from './series';

export const HISTORY_SCHEMA = 'mongo-bench/history@1' as const;

export const HISTORY_DEFAULTS = { threshold: 5, ...E_DIVISIVE_DEFAULTS } as const;

export interface HistoryOptions {
  /** A regression is a worsening by more than this percent (default 5). */
  threshold?: number;
  pvalue?: number;
  permutations?: number;
  seed?: number;
}

export interface HistoryChangePoint {
  /** Index in the series of the first run after the change. */
  index: number;
  /** The first run after the change, and the last run before it. */
  firstAfter: RunRef;
  lastBefore: RunRef;
  /** Means of the segments on either side (between the neighbouring change points). */
  meanBefore: number;
  meanAfter: number;
  /** (after - before) / before in percent; null when the mean before is 0. */
  changePercent: number | null;
  pvalue: number;
  statistic: number;
  direction: 'regression' | 'improvement';
  /** A regression by more than the threshold (a rise from 0, for errors, always is). */
  beyondThreshold: boolean;
}

export interface HistorySeries {
  label: string;
  clients: number;
  metric: HistoryMetric['key'];
  name: string;
  unit: string;
  higherIsBetter: boolean;
  points: { startedAt: string; label: string; source: string; value: number }[];
  /** Oldest first. */
  changePoints: HistoryChangePoint[];
}

export interface HistoryDocument {
  schema: typeof HISTORY_SCHEMA;
  generatedAt: string;
  /** The store, as shown to the user (a MongoDB URI is redacted). */
  store: string;
  options: Required<HistoryOptions> & { label?: string };
  labels: {
    label: string;
    runs: number;
    first: string;
    last: string;
    testDouble: boolean;
    mixesTestDouble: boolean;
    /** The servers its runs measured, as every summary names them (lib/report/describe.ts serverLabel); oldest first. */
    servers?: string[];
    /** The NOT MongoDB warnings of its runs on other products (FerretDB, ...): charts and history.md carry them. */
    notMongoDB?: string[];
  }[];
  series: HistorySeries[];
  /** Series whose newest change point is a regression beyond the threshold: the CI gate fails on any. */
  regressions: { label: string; clients: number; metric: string; changePoint: HistoryChangePoint }[];
  /** Files or documents that could not be read as results. */
  skipped: { source: string; why: string }[];
}

const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);

function ref(p: RunRef): RunRef {
  return { startedAt: p.startedAt, label: p.label, source: p.source };
}

export function analyseSeries(series: Series, options: Required<HistoryOptions>): HistorySeries {
  const values = series.points.map((p) => p.value);
  const found = eDivisive(values, { pvalue: options.pvalue, permutations: options.permutations, seed: options.seed });
  const bounds = [0, ...found.map((c) => c.index).sort((a, b) => a - b), values.length];
  const changePoints = found
    .sort((a, b) => a.index - b.index)
    .map((cp): HistoryChangePoint => {
      const at = bounds.indexOf(cp.index);
      const meanBefore = mean(values.slice(bounds[at - 1], cp.index));
      const meanAfter = mean(values.slice(cp.index, bounds[at + 1]));
      const changePercent = meanBefore !== 0 ? ((meanAfter - meanBefore) / Math.abs(meanBefore)) * 100 : null;
      const worse = series.metric.higherIsBetter ? meanAfter < meanBefore : meanAfter > meanBefore;
      return {
        index: cp.index,
        firstAfter: ref(series.points[cp.index]),
        lastBefore: ref(series.points[cp.index - 1]),
        meanBefore,
        meanAfter,
        changePercent,
        pvalue: cp.pvalue,
        statistic: cp.statistic,
        direction: worse ? 'regression' : 'improvement',
        beyondThreshold: worse && (changePercent === null || Math.abs(changePercent) > options.threshold),
      };
    });
  return {
    label: series.label,
    clients: series.clients,
    metric: series.metric.key,
    name: series.metric.name,
    unit: series.metric.unit,
    higherIsBetter: series.metric.higherIsBetter,
    points: series.points.map((p) => ({ ...ref(p), value: p.value })),
    changePoints,
  };
}

export function buildHistory(
  stored: { results: StoredResult[]; skipped: { source: string; why: string }[] },
  context: { store: string; label?: string; now?: Date },
  given: HistoryOptions = {},
): HistoryDocument {
  const options: Required<HistoryOptions> = {
    threshold: given.threshold ?? HISTORY_DEFAULTS.threshold,
    pvalue: given.pvalue ?? HISTORY_DEFAULTS.pvalue,
    permutations: given.permutations ?? HISTORY_DEFAULTS.permutations,
    seed: given.seed ?? HISTORY_DEFAULTS.seed,
  };
  const labels: HistoryDocument['labels'] = [];
  const series: HistorySeries[] = [];
  for (const [label, results] of byLabel(stored.results)) {
    labels.push({
      label,
      runs: results.length,
      first: results[0].result.startedAt,
      last: results[results.length - 1].result.startedAt,
      testDouble: results.every((r) => r.result.target.testDouble === true),
      mixesTestDouble: mixesTestDouble(results),
      servers: [...new Set(results.map((r) => serverLabel(r.result)))],
      notMongoDB: [...new Set(results.map((r) => notMongoDBWarning(r.result)).filter((w): w is string => w !== undefined))],
    });
    for (const s of seriesOf(label, results)) series.push(analyseSeries(s, options));
  }
  const regressions = series.flatMap((s) => {
    const newest = s.changePoints.at(-1);
    return newest && newest.direction === 'regression' && newest.beyondThreshold ? [{ label: s.label, clients: s.clients, metric: s.name, changePoint: newest }] : [];
  });
  return {
    schema: HISTORY_SCHEMA,
    generatedAt: (context.now ?? new Date()).toISOString(),
    store: context.store,
    options: { ...options, ...(context.label !== undefined ? { label: context.label } : {}) },
    labels,
    series,
    regressions,
    skipped: stored.skipped,
  };
}
