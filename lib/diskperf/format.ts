import { MEMORY_FILESYSTEMS } from './test-dir';
import {
  BYTES_PER_MB,
  DiskperfResult,
  DiskperfStep,
  ENGINE_BOUND_BUSY,
  engineBound,
  modeLabel,
  peakStep,
} from './result';

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const one = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const two = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const TABLE_HEADER = `${'threads'.padStart(7)}  ${'ops/s'.padStart(10)}  ${'reads/s'.padStart(10)}  ${'writes/s'.padStart(10)}  ${'MB/s'.padStart(8)}  ${'avg ms'.padStart(7)}`;

/** One line of the table, printed as each step finishes. */
export function tableRow(step: DiskperfStep): string {
  const latency =
    step.avgLatencyMicros === undefined ? '-' : two.format(step.avgLatencyMicros / 1000);
  const mark =
    (engineBound(step) ? '  *' : '') + (step.status === 'ok' ? '' : `  (${step.status})`);
  return (
    `${String(step.threads).padStart(7)}  ${int.format(step.opsPerSec.total).padStart(10)}  ${int.format(step.opsPerSec.reads).padStart(10)}  ` +
    `${int.format(step.opsPerSec.writes).padStart(10)}  ${one.format(step.mbPerSec).padStart(8)}  ${latency.padStart(7)}${mark}`
  );
}

export function table(result: DiskperfResult): string {
  const note = engineBoundNote(result);
  return [TABLE_HEADER, ...result.steps.map(tableRow), ...(note ? ['', note] : [])].join('\n');
}

/** Explains the `*` rows, if any: those figures are the Node engine's ceiling, not the disk's. */
export function engineBoundNote(result: DiskperfResult): string | undefined {
  if (!result.steps.some(engineBound)) return undefined;
  return (
    `* the Node engine's event loop was busy ${Math.round(ENGINE_BOUND_BUSY * 100)}% of the step or more: the engine, not the disk, ` +
    'set the pace, so the disk can do at least this much; fio (--engine fio) measures further'
  );
}

/** The line that says how trustworthy the figures are: direct I/O or the page cache. */
export function directIoNote(
  io: Pick<DiskperfResult['io'], 'direct' | 'directUnavailableReason'>,
): string {
  if (io.direct) return 'direct I/O (O_DIRECT): the OS page cache is bypassed';
  return `NOT direct I/O: ${io.directUnavailableReason ?? 'unavailable'}; reads and writes go through the OS page cache, which inflates the figures`;
}

/** A warning when --dir lives in memory (tmpfs accepts O_DIRECT since Linux 6.6, yet there is no disk). */
export function filesystemNote(io: Pick<DiskperfResult['io'], 'filesystem'>): string | undefined {
  if (!io.filesystem || !MEMORY_FILESYSTEMS.has(io.filesystem)) return undefined;
  return `--dir is on ${io.filesystem}, which lives in RAM: these figures are memory speed, not a disk's`;
}

export function describeRun(result: DiskperfResult): string {
  const s = result.settings;
  const fs = result.io.filesystem ? ` (${result.io.filesystem})` : '';
  return `${modeLabel(s.mode)} on a ${s.fileSizeMB} MB file in ${s.dir}${fs}, ${s.seconds} s per step, engine ${result.io.engine} (${result.io.engineVersion})`;
}

const CSV_COLUMNS = [
  'threads',
  'status',
  'elapsed_seconds',
  'reads',
  'writes',
  'ops_per_sec',
  'reads_per_sec',
  'writes_per_sec',
  'mb_per_sec',
  'avg_latency_us',
  'engine_busy',
];

export function toCsv(result: DiskperfResult): string {
  const rows = result.steps.map((s) =>
    [
      s.threads,
      s.status,
      s.elapsedSeconds.toFixed(3),
      s.reads,
      s.writes,
      s.opsPerSec.total.toFixed(1),
      s.opsPerSec.reads.toFixed(1),
      s.opsPerSec.writes.toFixed(1),
      s.mbPerSec.toFixed(3),
      s.avgLatencyMicros?.toFixed(1) ?? '',
      s.engineBusy?.toFixed(3) ?? '',
    ].join(','),
  );
  return [CSV_COLUMNS.join(','), ...rows].join('\n') + '\n';
}

export function toSummaryMarkdown(result: DiskperfResult, chartFile: string): string {
  const peak = peakStep(result);
  const lines = [
    '# mongo-bench diskperf',
    '',
    `${result.complete ? '' : `**Incomplete: ${result.incompleteReason ?? 'cut short'}.**\n\n`}${describeRun(result)}.`,
    '',
    `- I/O: ${directIoNote(result.io)}`,
    ...(filesystemNote(result.io) ? [`- **Warning: ${filesystemNote(result.io)}.**`] : []),
    `- Host: ${result.host.hostname} (${result.host.platform}, ${result.host.cpus} CPUs, ${int.format(result.host.memoryMB)} MB RAM)`,
    `- Started ${result.startedAt}, finished ${result.finishedAt}; writing the test file took ${one.format(result.io.fileCreateSeconds)} s`,
    `- MB = ${int.format(BYTES_PER_MB)} bytes, as mongoperf printed it: MB/s = ops/s x ${result.settings.blockSize} / ${int.format(BYTES_PER_MB)}`,
    '',
    '| threads | ops/s | reads/s | writes/s | MB/s | avg latency ms | status |',
    '|--:|--:|--:|--:|--:|--:|:--|',
    ...result.steps.map(
      (s) =>
        `| ${s.threads} | ${int.format(s.opsPerSec.total)} | ${int.format(s.opsPerSec.reads)} | ${int.format(s.opsPerSec.writes)} | ${one.format(s.mbPerSec)} | ` +
        `${s.avgLatencyMicros === undefined ? '-' : two.format(s.avgLatencyMicros / 1000)} | ${s.status}${engineBound(s) ? ' *' : ''} |`,
    ),
    '',
    ...(engineBoundNote(result) ? [engineBoundNote(result) as string, ''] : []),
    peak
      ? `Peak: ${int.format(peak.opsPerSec.total)} ops/s (${one.format(peak.mbPerSec)} MB/s) with ${peak.threads} thread${peak.threads === 1 ? '' : 's'}.`
      : 'Nothing was measured.',
    '',
    `![ops/s and MB/s by threads](${chartFile})`,
    '',
    'How to read it: each step keeps N random 4 KB operations in flight. Where the curve flattens, the',
    'device (or a queue in front of it) is saturated; more threads then only add latency.',
    '',
  ];
  return lines.join('\n');
}
