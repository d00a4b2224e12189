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
import { E_DIVISIVE_MIN_RUNS, newestRunCheck, NewestRunCheck } from './newest-run';
import { dropUndefined } from '../common/values';
import { mixedServers, serverChange } from './server-change';

/** The metrics the gate checks unless --gate adds more: ops/s and the p50s (p99 and errors vary too much night to night). */
export const DEFAULT_GATED: readonly HistoryMetric['key'][] = [
  'opsPerSec',
  'readsP50',
  'writesP50',
];
/** What `--gate` may add, and the metrics each name stands for. */
export const GATE_CHOICES: Record<string, HistoryMetric['key'][]> = {
  ops: ['opsPerSec'],
  p50: ['readsP50', 'writesP50'],
  p99: ['readsP99', 'writesP99'],
  errors: ['errorRate'],
};

export const HISTORY_SCHEMA = 'mongo-bench/history@1' as const;

export const HISTORY_DEFAULTS = { threshold: 5, ...E_DIVISIVE_DEFAULTS } as const;

export interface HistoryOptions {
  /** A regression is a worsening by more than this percent (default 5). */
  threshold?: number;
  pvalue?: number;
  permutations?: number;
  seed?: number;
  /** Extra metrics to gate: 'p99', 'errors' (ops/s and the p50s always are). */
  gate?: string[];
  /** ISO time: runs before it are no baseline (a change accepted as the new normal). */
  accept?: string;
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
  /** Whether the series fails the gate when it regresses (ops/s and p50 by default; --gate adds p99, errors). */
  gated: boolean;
  /** Whether E-Divisive ran: it needs 10 runs. */
  eDivisive: 'tested' | 'series too short';
  /** The newest run against the runs before the newest change point or failed check. */
  newestRun: NewestRunCheck;
}

export interface HistoryDocument {
  schema: typeof HISTORY_SCHEMA;
  generatedAt: string;
  /** The store, as shown to the user (a MongoDB URI is redacted). */
  store: string;
  options: Required<Omit<HistoryOptions, 'accept'>> & { label?: string; accept?: string };
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
    /** Present when its runs span more than one product (a test double and FerretDB, ...): each server and its runs. */
    mixedServers?: { server: string; runs: number }[];
  }[];
  series: HistorySeries[];
  /** Series whose newest change point is a regression beyond the threshold: the CI gate fails on any. */
  regressions: {
    label: string;
    clients: number;
    metric: string;
    changePoint: HistoryChangePoint;
    /** When the first run after the change was on none of the servers of the runs before it: says so, the likely cause. */
    serverChange?: string;
  }[];
  /** Gated series whose newest run failed the newest-run check: the CI gate fails on any. */
  newestRunFailures: {
    label: string;
    clients: number;
    metric: string;
    check: NewestRunCheck;
    /** When the newest run was on none of its baseline's servers (product, version, topology, host): says so, the likely cause. */
    serverChange?: string;
  }[];
  /** Gated series that neither test could check, and why. */
  notTested: { label: string; clients: number; metric: string; why: string }[];
  /** 'regression' (exit 1), 'no regression' (exit 0), or 'not tested' (exit 3: no gated series could be tested). */
  outcome: 'regression' | 'no regression' | 'not tested';
  /** Files or documents that could not be read as results. */
  skipped: { source: string; why: string }[];
}

const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);

function ref(p: RunRef): RunRef {
  return { startedAt: p.startedAt, label: p.label, source: p.source };
}

export function analyseSeries(series: Series, options: HistoryDocument['options']): HistorySeries {
  const values = series.points.map((p) => p.value);
  const longEnough = values.length >= E_DIVISIVE_MIN_RUNS;
  const found = longEnough
    ? eDivisive(values, {
        pvalue: options.pvalue,
        permutations: options.permutations,
        seed: options.seed,
      })
    : [];
  const bounds = [0, ...found.map((c) => c.index).sort((a, b) => a - b), values.length];
  const changePoints = found
    .sort((a, b) => a.index - b.index)
    .map((cp): HistoryChangePoint => {
      const at = bounds.indexOf(cp.index);
      const meanBefore = mean(values.slice(bounds[at - 1], cp.index));
      const meanAfter = mean(values.slice(cp.index, bounds[at + 1]));
      const changePercent =
        meanBefore !== 0 ? ((meanAfter - meanBefore) / Math.abs(meanBefore)) * 100 : null;
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
        beyondThreshold:
          worse && (changePercent === null || Math.abs(changePercent) > options.threshold),
      };
    });
  const accepted =
    options.accept !== undefined
      ? series.points.findIndex(
          (p) => Date.parse(p.startedAt) >= Date.parse(options.accept as string),
        )
      : 0;
  const improvement =
    changePoints.filter((cp) => cp.direction === 'improvement').at(-1)?.index ?? 0;
  const regressionAt = changePoints.filter((cp) => cp.direction === 'regression').at(-1)?.index;
  const gated = gatedMetrics(options.gate).includes(series.metric.key);
  return {
    label: series.label,
    clients: series.clients,
    metric: series.metric.key,
    name: series.metric.name,
    unit: series.metric.unit,
    higherIsBetter: series.metric.higherIsBetter,
    points: series.points.map((p) => ({ ...ref(p), value: p.value })),
    changePoints,
    gated,
    eDivisive: longEnough ? 'tested' : 'series too short',
    newestRun: newestRunCheck({
      points: series.points,
      higherIsBetter: series.metric.higherIsBetter,
      absolute: series.metric.key === 'errorRate',
      threshold: options.threshold,
      start: Math.max(accepted < 0 ? series.points.length : accepted, improvement),
      ...dropUndefined({ regressionAt }),
    }),
  };
}

/** The gated metrics: the defaults and what --gate adds. */
export function gatedMetrics(gate: readonly string[] = []): HistoryMetric['key'][] {
  return [...new Set([...DEFAULT_GATED, ...gate.flatMap((g) => GATE_CHOICES[g] ?? [])])];
}

export function buildHistory(
  stored: { results: StoredResult[]; skipped: { source: string; why: string }[] },
  context: { store: string; label?: string; now?: Date },
  given: HistoryOptions = {},
): HistoryDocument {
  const options: HistoryDocument['options'] = {
    threshold: given.threshold ?? HISTORY_DEFAULTS.threshold,
    pvalue: given.pvalue ?? HISTORY_DEFAULTS.pvalue,
    permutations: given.permutations ?? HISTORY_DEFAULTS.permutations,
    seed: given.seed ?? HISTORY_DEFAULTS.seed,
    gate: given.gate ?? [],
    ...dropUndefined({ accept: given.accept }),
  };
  const labels: HistoryDocument['labels'] = [];
  const series: HistorySeries[] = [];
  // Each run's result by where it was read from (a series' points name their run so).
  const bySource = new Map(stored.results.map((r) => [r.source, r.result]));
  for (const [label, results] of byLabel(stored.results)) {
    labels.push({
      label,
      runs: results.length,
      first: results[0].result.startedAt,
      last: results[results.length - 1].result.startedAt,
      testDouble: results.every((r) => r.result.target.testDouble === true),
      mixesTestDouble: mixesTestDouble(results),
      servers: [...new Set(results.map((r) => serverLabel(r.result)))],
      notMongoDB: [
        ...new Set(
          results
            .map((r) => notMongoDBWarning(r.result))
            .filter((w): w is string => w !== undefined),
        ),
      ],
      ...dropUndefined({ mixedServers: mixedServers(results) }),
    });
    for (const s of seriesOf(label, results)) series.push(analyseSeries(s, options));
  }
  const gatedSeries = series.filter((s) => s.gated);
  // The runs of a series from index `from` up to (not including) `to`, as results.
  const runsOf = (s: HistorySeries, from: number, to: number) =>
    s.points.slice(from, to).flatMap((p) => bySource.get(p.source) ?? []);
  const regressions = gatedSeries.flatMap((s) => {
    const newest = s.changePoints.at(-1);
    if (!newest || newest.direction !== 'regression' || !newest.beyondThreshold) return [];
    const previous = s.changePoints.at(-2)?.index ?? 0;
    const firstAfter = bySource.get(newest.firstAfter.source);
    const change = firstAfter
      ? serverChange(runsOf(s, previous, newest.index), firstAfter, {
          before: 'the runs before the change',
          after: 'the first run after it',
        })
      : undefined;
    return [
      {
        label: s.label,
        clients: s.clients,
        metric: s.name,
        changePoint: newest,
        ...dropUndefined({ serverChange: change }),
      },
    ];
  });
  const newestRunFailures = gatedSeries.flatMap((s) => {
    if (!s.newestRun.failed) return [];
    const { baseline, newest } = s.newestRun;
    const at = (ref: RunRef | undefined) => s.points.findIndex((p) => p.source === ref?.source);
    const newestRun = bySource.get(newest?.source ?? '');
    const change =
      baseline && newestRun
        ? serverChange(runsOf(s, at(baseline.first), at(baseline.last) + 1), newestRun)
        : undefined;
    return [
      {
        label: s.label,
        clients: s.clients,
        metric: s.name,
        check: s.newestRun,
        ...dropUndefined({ serverChange: change }),
      },
    ];
  });
  const notTested = gatedSeries.flatMap((s) =>
    s.eDivisive === 'tested' || s.newestRun.tested
      ? []
      : [
          {
            label: s.label,
            clients: s.clients,
            metric: s.name,
            why: s.newestRun.reason ?? 'series too short',
          },
        ],
  );
  const outcome: HistoryDocument['outcome'] =
    regressions.length > 0 || newestRunFailures.length > 0
      ? 'regression'
      : gatedSeries.length > 0 && notTested.length === gatedSeries.length
        ? 'not tested'
        : gatedSeries.length === 0
          ? 'not tested'
          : 'no regression';
  return {
    schema: HISTORY_SCHEMA,
    generatedAt: (context.now ?? new Date()).toISOString(),
    store: context.store,
    options: { ...options, ...dropUndefined({ label: context.label }) },
    labels,
    series,
    regressions,
    newestRunFailures,
    notTested,
    outcome,
    skipped: stored.skipped,
  };
}
