/** results.csv: one row per result and client count; raw figures (latency in microseconds) for spreadsheets and scripts. */
import { ERROR_CLASSES, ResultDocument, StepResult } from '../result';
import { anyOutage } from './availability-summary';
import { stepStatus, uniqueLabels } from './describe';

type Cell = string | number | boolean | undefined;

const COLUMNS: Array<[string, (r: ResultDocument, s: StepResult, label: string) => Cell]> = [
  ['label', (_r, _s, label) => label],
  ['complete', (r) => r.complete],
  ['test_double', (r) => r.target.testDouble === true],
  ['workload', (r) => r.workload.name],
  ['topology', (r) => r.target.topology],
  ['server_version', (r) => r.target.serverVersion],
  ['doc_size_bytes', (r) => r.workload.docSize],
  ['clients', (_r, s) => s.clients],
  ['status', (_r, s) => stepStatus(s)],
  ['seconds', (_r, s) => s.seconds],
  ['trials', (_r, s) => s.trials],
  ['reads', (_r, s) => s.ops.reads],
  ['writes', (_r, s) => s.ops.writes],
  ['errors', (_r, s) => s.ops.errors],
  ['reads_per_sec_avg', (_r, s) => s.opsPerSec.reads],
  ['reads_per_sec_peak', (_r, s) => s.peakOpsPerSec.reads],
  ['writes_per_sec_avg', (_r, s) => s.opsPerSec.writes],
  ['writes_per_sec_peak', (_r, s) => s.peakOpsPerSec.writes],
  ['total_per_sec_avg', (_r, s) => s.opsPerSec.total],
  ['total_per_sec_peak', (_r, s) => s.peakOpsPerSec.total],
  ...(['reads', 'writes'] as const).flatMap((kind) =>
    (['avg', 'p50', 'p95', 'p99', 'p999', 'max'] as const).map(
      (p): [string, (r: ResultDocument, s: StepResult) => Cell] => [
        `${kind === 'reads' ? 'read' : 'write'}_${p}_us`,
        (_r, s) => (s.latencyMicros[kind].count > 0 ? s.latencyMicros[kind][p] : undefined),
      ],
    ),
  ),
];

/** Appended only when some step recorded the load generator's load, so older results keep their exact columns. */
const CLIENT_LOAD_COLUMNS: Array<[string, (r: ResultDocument, s: StepResult) => Cell]> = [
  ['client_bound', (_r, s) => (s.client ? s.clientBound === true : undefined)],
  ['workers', (_r, s) => s.client?.workers],
  [
    'max_event_loop_utilization',
    (_r, s) => (s.client ? Math.max(0, ...s.client.eventLoopUtilization) : undefined),
  ],
  ['client_cpu_percent', (_r, s) => s.client?.cpuPercent],
];

/** Appended only when some step recorded its storage or oplog, so older results keep their exact columns. */
const STORAGE_COLUMNS: Array<[string, (r: ResultDocument, s: StepResult) => Cell]> = [
  ['storage_documents', (_r, s) => s.storage?.documents],
  ['storage_data_bytes', (_r, s) => s.storage?.dataBytes],
  ['storage_bytes', (_r, s) => s.storage?.storageBytes],
  ['storage_free_bytes', (_r, s) => s.storage?.freeStorageBytes],
  ['storage_index_bytes', (_r, s) => s.storage?.indexBytes],
  ['bytes_per_document', (_r, s) => s.storage?.bytesPerDocument],
  ['logical_bytes_per_document', (_r, s) => s.storage?.logicalBytesPerDocument],
  ['index_bytes_per_document', (_r, s) => s.storage?.indexBytesPerDocument],
  ['compression_ratio', (_r, s) => s.storage?.compressionRatio],
  [
    'oplog_bytes_per_second',
    (_r, s) => {
      const rates = (s.oplog?.members ?? []).map((m) => m.bytesPerSecond);
      return rates.some((v) => v !== undefined) ? Math.max(...rates.map((v) => v ?? 0)) : undefined;
    },
  ],
  [
    'oplog_window_seconds',
    (_r, s) => {
      const w = (s.oplog?.members ?? []).map((m) => m.windowSeconds).filter((v) => v !== undefined);
      return w.length > 0 ? Math.min(...(w as number[])) : undefined;
    },
  ],
];

/** RFC 4180 quoting; numbers rounded to 3 decimals so float noise does not leak into the file. */
export function csvCell(value: Cell): string {
  if (value === undefined) return '';
  if (typeof value === 'number')
    return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
  const text = String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const CSV_HEADER = COLUMNS.map(([name]) => name);

/** Appended only when some result ran scenarios: which scenario a row is ("all scenarios": the run's own step), and when its step began on the run's clock. */
const SCENARIO_COLUMNS: Array<
  [string, (r: ResultDocument, s: StepResult & { scenario?: string; startSecond?: number }) => Cell]
> = [
  ['scenario', (r, s) => (r.scenarios ? (s.scenario ?? 'all scenarios') : undefined)],
  ['start_second', (r, s) => (r.scenarios ? (s.startSecond ?? 0) : undefined)],
];

/**
 * Appended only when some step recorded latency per op (`latencyByOp`): per op of the workload, in index
 * order, `op<index>_<op>[_<name>]_count` and its avg, p50, p95, p99 and max in µs (raw, as the read and write
 * columns: judge a percentile by its count beside it). Empty where a row's result has no such op.
 */
function opLatencyColumns(
  results: readonly ResultDocument[],
): Array<[string, (r: ResultDocument, s: StepResult) => Cell]> {
  const keys = new Map<string, { index: number; key: string }>();
  for (const r of results) {
    for (const s of r.steps)
      for (const o of s.latencyByOp ?? []) keys.set(opKey(o), { index: o.index, key: opKey(o) });
  }
  return [...keys.values()]
    .sort((a, b) => a.index - b.index || a.key.localeCompare(b.key))
    .flatMap(({ key }) =>
      (['count', 'avg', 'p50', 'p95', 'p99', 'max'] as const).map(
        (p): [string, (r: ResultDocument, s: StepResult) => Cell] => [
          `${key}_${p}${p === 'count' ? '' : '_us'}`,
          (_r, s) => {
            const o = s.latencyByOp?.find((x) => opKey(x) === key);
            return o && (p === 'count' || o.count > 0) ? o[p] : undefined;
          },
        ],
      ),
    );
}

function opKey(o: { index: number; op: string; name: string }): string {
  return `op${o.index}_${o.op}${o.name === o.op ? '' : `_${o.name}`}`;
}

/** Appended only when some step had an outage (docs/reliability.md): how long each kind was out, the failed ops by class. */
const OUTAGE_COLUMNS: Array<[string, (r: ResultDocument, s: StepResult) => Cell]> = [
  ['outages', (_r, s) => s.availability?.outages.length],
  ['unavailable_seconds', (_r, s) => s.availability?.unavailableSeconds],
  ...(['reads', 'writes', 'all'] as const).map(
    (kind): [string, (r: ResultDocument, s: StepResult) => Cell] => [
      `outage_${kind}_seconds`,
      (_r, s) =>
        s.availability
          ? s.availability.outages
              .filter((o) => o.kind === kind)
              .reduce((sum, o) => sum + o.seconds, 0)
          : undefined,
    ],
  ),
  ['ops_delayed', (_r, s) => s.availability?.opsDelayed],
  ['longest_op_seconds', (_r, s) => s.availability?.longestOp?.seconds],
  ...ERROR_CLASSES.map((c): [string, (r: ResultDocument, s: StepResult) => Cell] => [
    `outage_errors_${c}`,
    (_r, s) =>
      s.availability
        ? s.availability.outages.reduce((sum, o) => sum + (o.errorsByClass?.[c] ?? 0), 0)
        : undefined,
  ]),
];

export function renderResultsCsv(results: readonly ResultDocument[]): string {
  const labels = uniqueLabels(results);
  const withLoad = results.some((r) => r.steps.some((s) => s.client !== undefined));
  const withScenarios = results.some((r) => r.scenarios !== undefined);
  const withStorage = results.some((r) => r.steps.some((s) => s.storage || s.oplog));
  const withOutages = anyOutage(results);
  const columns = [
    ...COLUMNS,
    ...(withLoad ? CLIENT_LOAD_COLUMNS : []),
    ...(withStorage ? STORAGE_COLUMNS : []),
    ...(withScenarios ? SCENARIO_COLUMNS : []),
    ...(withOutages ? OUTAGE_COLUMNS : []),
    ...opLatencyColumns(results),
  ];
  const lines = [columns.map(([name]) => name).join(',')];
  results.forEach((r, i) => {
    const rows: StepResult[] = [
      ...r.steps,
      ...(r.scenarios ?? []).flatMap((sc) => sc.steps.map((s) => ({ ...s, scenario: sc.name }))),
    ];
    for (const s of rows)
      lines.push(columns.map(([, get]) => csvCell(get(r, s, labels[i]))).join(','));
  });
  return `${lines.join('\n')}\n`;
}
