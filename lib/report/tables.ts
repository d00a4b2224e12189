/** Table models (plain strings) shared by summary.md and index.html, so both always show the same figures. */
import { describeClientLoad } from '../metrics/client-load';
import { percentileCell } from '../metrics/warnings';
import { LatencySummary, ResultDocument, StepResult } from '../result';
import { clientCounts } from './chart-data';
import { seriesLabels, stepStatus } from './describe';
import { formatMicrosAsMs, formatOps } from './format';

export interface Table {
  title: string;
  columns: string[];
  rows: string[][];
  /** Per column: numbers are right-aligned. */
  align: Array<'left' | 'right'>;
}

const NONE = '–';

interface StepMetric {
  title: string;
  value: (s: StepResult) => string;
}

/** A percentile from too few samples shows its sample count ("12 samples") instead of a number. */
function latency(kind: 'reads' | 'writes', p: 'p50' | 'p99') {
  return (s: StepResult) =>
    s.latencyMicros[kind].count > 0
      ? percentileCell(s.latencyMicros[kind], p, formatMicrosAsMs)
      : NONE;
}

/** The figures of one step that summary tables show, in column order. */
export const STEP_METRICS: StepMetric[] = [
  { title: 'Reads/s avg', value: (s) => formatOps(s.opsPerSec.reads) },
  { title: 'Reads/s peak', value: (s) => formatOps(s.peakOpsPerSec.reads) },
  { title: 'Writes/s avg', value: (s) => formatOps(s.opsPerSec.writes) },
  { title: 'Writes/s peak', value: (s) => formatOps(s.peakOpsPerSec.writes) },
  { title: 'Read p50 (ms)', value: latency('reads', 'p50') },
  { title: 'Read p99 (ms)', value: latency('reads', 'p99') },
  { title: 'Write p50 (ms)', value: latency('writes', 'p50') },
  { title: 'Write p99 (ms)', value: latency('writes', 'p99') },
  { title: 'Errors', value: (s) => formatOps(s.ops.errors) },
];

/** The load generator's column: how busy it was, and whether it, not the server, set the pace. */
function loadGeneratorCell(s: StepResult): string {
  if (!s.client) return NONE;
  return `${s.clientBound ? 'CLIENT-BOUND (mongo-bench was the bottleneck): ' : ''}${describeClientLoad(s.client)}`;
}

/**
 * One row per client count of one result. A Status column appears when some step did not finish
 * cleanly; a Load generator column when the result recorded the load generator's own load.
 */
export function resultTable(result: ResultDocument, title: string): Table {
  const withStatus = result.steps.some((s) => stepStatus(s) !== 'ok');
  const withLoad = result.steps.some((s) => s.client !== undefined);
  const withWarnings = result.steps.some((s) => (s.warnings ?? []).length > 0);
  const columns = [
    'Clients',
    ...STEP_METRICS.map((m) => m.title),
    ...(withStatus ? ['Status'] : []),
    ...(withWarnings ? ['Warnings'] : []),
    ...(withLoad ? ['Load generator'] : []),
  ];
  const rows = result.steps.map((s) => {
    const status = stepStatus(s);
    const statusCell = status === 'ok' ? 'ok' : `${status}${s.error ? `: ${s.error}` : ''}`;
    const warningsCell = (s.warnings ?? []).map((w) => w.code).join(', ') || NONE;
    return [
      String(s.clients),
      ...STEP_METRICS.map((m) => m.value(s)),
      ...(withStatus ? [statusCell] : []),
      ...(withWarnings ? [warningsCell] : []),
      ...(withLoad ? [loadGeneratorCell(s)] : []),
    ];
  });
  return {
    title,
    columns,
    rows,
    align: columns.map((c) =>
      c === 'Status' || c === 'Load generator' || c === 'Warnings' ? 'left' : 'right',
    ),
  };
}

/** Several results: one table per figure, one row per client count, one column per result. */
export function comparisonTables(results: readonly ResultDocument[]): Table[] {
  const labels = seriesLabels(results);
  const counts = clientCounts(results);
  return STEP_METRICS.map((metric) => ({
    title: metric.title,
    columns: ['Clients', ...labels],
    rows: counts.map((clients) => [
      String(clients),
      ...results.map((r) => {
        const step = r.steps.find((s) => s.clients === clients);
        if (!step) return NONE;
        const codes = (step.warnings ?? []).map((w) => w.code);
        const notes = [
          ...(stepStatus(step) === 'ok' ? [] : [stepStatus(step)]),
          ...(step.clientBound && !codes.includes('client-bound') ? ['client-bound'] : []),
          ...codes,
        ];
        return notes.length === 0
          ? metric.value(step)
          : `${metric.value(step)} (${notes.join(', ')})`;
      }),
    ]),
    align: ['right', ...labels.map(() => 'right' as const)],
  }));
}

/** One op's latency row of a step: its index in the ops array (undefined: a type's ops together, in older results). */
export interface OpLatencyRow {
  index?: number;
  /** "findOne", or "command aggregate" where the op runs something of another name. */
  label: string;
  summary: LatencySummary;
}

/** A step's latency per op of the workload (`latencyByOp`), or per op type in results written before it was kept. */
export function opLatencyRows(step: StepResult): OpLatencyRow[] {
  if (step.latencyByOp)
    return step.latencyByOp.map(({ index, name, op, ...summary }) => ({
      index,
      label: name === op ? op : `${op} ${name}`,
      summary,
    }));
  return Object.entries(step.latencyByOpMicros ?? {}).map(([op, summary]) => ({
    label: op,
    summary,
  }));
}

/**
 * "Latency by op": one row per step and op of the workload (count, avg, p50, p95, p99, max). A percentile
 * from too few samples shows its sample count, as in the step table (metrics/warnings.ts percentileCell).
 * Undefined when no step recorded latency per op.
 */
export function latencyByOpTable(result: ResultDocument): Table | undefined {
  const rows = result.steps.flatMap((s) =>
    opLatencyRows(s).map(({ index, label, summary }) => {
      const cell = (p: 'p50' | 'p95' | 'p99') =>
        summary.count > 0 ? percentileCell(summary, p, formatMicrosAsMs) : NONE;
      const plain = (micros: number) => (summary.count > 0 ? formatMicrosAsMs(micros) : NONE);
      return [
        String(s.clients),
        index === undefined ? NONE : String(index),
        label,
        formatOps(summary.count),
        plain(summary.avg),
        cell('p50'),
        cell('p95'),
        cell('p99'),
        plain(summary.max),
      ];
    }),
  );
  if (rows.length === 0) return undefined;
  const columns = [
    'Clients',
    'Op #',
    'Op',
    'Count',
    'Avg (ms)',
    'p50 (ms)',
    'p95 (ms)',
    'p99 (ms)',
    'Max (ms)',
  ];
  return {
    title: 'Latency by op',
    columns,
    rows,
    align: columns.map((c) => (c === 'Op' ? 'left' : 'right')),
  };
}
