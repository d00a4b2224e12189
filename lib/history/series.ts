/**
 * From stored results to series: per label, per client count and per metric (ops/s, read and write
 * p50 and p99, the error rate), one value per run in startedAt order. A step that failed or was
 * interrupted gives no value; a latency with no operations behind it gives none either.
 */
import type { ResultDocument, StepResult } from '../result';
import type { StoredResult } from '../store/store';
import { dropUndefined } from '../common/values';

export interface HistoryMetric {
  key: 'opsPerSec' | 'readsP50' | 'readsP99' | 'writesP50' | 'writesP99' | 'errorRate';
  name: string;
  unit: string;
  /** Higher is better (throughput); for latency and errors a rise is the regression. */
  higherIsBetter: boolean;
  value(step: StepResult): number | undefined;
}

const latency = (kind: 'reads' | 'writes', q: 'p50' | 'p99') => (s: StepResult) =>
  s.latencyMicros[kind].count > 0 ? s.latencyMicros[kind][q] : undefined;

export const HISTORY_METRICS: readonly HistoryMetric[] = [
  {
    key: 'opsPerSec',
    name: 'ops/s',
    unit: 'ops/s',
    higherIsBetter: true,
    value: (s) => s.opsPerSec.total,
  },
  {
    key: 'readsP50',
    name: 'read p50',
    unit: 'µs',
    higherIsBetter: false,
    value: latency('reads', 'p50'),
  },
  {
    key: 'readsP99',
    name: 'read p99',
    unit: 'µs',
    higherIsBetter: false,
    value: latency('reads', 'p99'),
  },
  {
    key: 'writesP50',
    name: 'write p50',
    unit: 'µs',
    higherIsBetter: false,
    value: latency('writes', 'p50'),
  },
  {
    key: 'writesP99',
    name: 'write p99',
    unit: 'µs',
    higherIsBetter: false,
    value: latency('writes', 'p99'),
  },
  {
    key: 'errorRate',
    name: 'errors',
    unit: '% of ops',
    higherIsBetter: false,
    value: (s) => {
      const all = s.ops.reads + s.ops.writes + s.ops.errors;
      return all > 0 ? (100 * s.ops.errors) / all : undefined;
    },
  },
];

/** One run of a series: when it started, its label, where it was read from. */
export interface RunRef {
  startedAt: string;
  label: string;
  source: string;
}

export interface SeriesPoint extends RunRef {
  value: number;
  /** The run's within-run spread, relative: the standard deviation of its trials' ops/s over their mean (ops/s only, runs of 2 or more trials). */
  trialSpread?: number;
}

/** A step's trials' standard deviation over their mean; undefined without 2 or more trials. */
export function trialSpreadOf(step: StepResult): number | undefined {
  const values = step.trialStats?.opsPerSec.values ?? [];
  if (values.length < 2) return undefined;
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  if (!(mean > 0)) return undefined;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1);
  return Math.sqrt(variance) / mean;
}

export interface Series {
  label: string;
  clients: number;
  metric: HistoryMetric;
  points: SeriesPoint[];
}

function usable(step: StepResult): boolean {
  return step.status === undefined || step.status === 'ok';
}

/** The series of one label's results (already ordered by startedAt), every client count and metric. */
export function seriesOf(label: string, results: readonly StoredResult[]): Series[] {
  const clientCounts = [
    ...new Set(results.flatMap((r) => r.result.steps.filter(usable).map((s) => s.clients))),
  ].sort((a, b) => a - b);
  const out: Series[] = [];
  for (const clients of clientCounts) {
    for (const metric of HISTORY_METRICS) {
      const points: SeriesPoint[] = [];
      for (const { result, source } of results) {
        const step = result.steps.find((s) => s.clients === clients && usable(s));
        const value = step ? metric.value(step) : undefined;
        if (value === undefined || !Number.isFinite(value)) continue;
        const spread = step && metric.key === 'opsPerSec' ? trialSpreadOf(step) : undefined;
        points.push({
          startedAt: result.startedAt,
          label: result.label,
          source,
          value,
          ...dropUndefined({ trialSpread: spread }),
        });
      }
      if (points.length > 0) out.push({ label, clients, metric, points });
    }
  }
  return out;
}

/** Results grouped by label, each group oldest first. */
export function byLabel(results: readonly StoredResult[]): Map<string, StoredResult[]> {
  const groups = new Map<string, StoredResult[]>();
  for (const r of results) {
    const list = groups.get(r.result.label) ?? [];
    list.push(r);
    groups.set(r.result.label, list);
  }
  return groups;
}

/** True when the label's runs mix a test double with real servers (their numbers must not share a series). */
export function mixesTestDouble(results: readonly { result: ResultDocument }[]): boolean {
  const kinds = new Set(results.map((r) => r.result.target.testDouble === true));
  return kinds.size > 1;
}
