/**
 * The diskperf result document: what `mongo-bench diskperf` measured, written as diskperf.json.
 * Versioned like the sweep's result document; the table, CSV, summary and chart are rendered from it.
 */
export const DISKPERF_SCHEMA = 'mongo-bench/diskperf@1' as const;

/** Every operation reads or writes one block of this size at a random block-aligned offset. */
export const BLOCK_SIZE = 4096;

/** MB as mongoperf printed it (2^20 bytes), so MB/s = ops/s x 4096 / 1,048,576 = ops/s / 256. */
export const BYTES_PER_MB = 1024 * 1024;

/** Event loop busier than this: the Node engine was the bottleneck of the step. */
export const ENGINE_BOUND_BUSY = 0.85;

export function engineBound(step: StepMeasurement): boolean {
  return (step.engineBusy ?? 0) >= ENGINE_BOUND_BUSY;
}

export type IoMode = 'read' | 'write' | 'mixed';
export type EngineName = 'node' | 'fio';

export interface DiskperfSettings {
  /** Directory the test file is created in (resolved to an absolute path). */
  dir: string;
  fileSizeMB: number;
  blockSize: number;
  mode: IoMode;
  /** Thread counts, one step each: 1, 2, 4, ... maxThreads. */
  threads: number[];
  /** Seconds per step. */
  seconds: number;
  /** Whether direct I/O (O_DIRECT) was asked for; see DiskperfResult.io.direct for what was used. */
  directRequested: boolean;
  engine: 'auto' | EngineName;
}

/** What one engine measured for one thread count. */
export interface StepMeasurement {
  threads: number;
  /** Wall time from the first operation issued to the last one completed. */
  elapsedSeconds: number;
  reads: number;
  writes: number;
  /** Mean time one operation took, when the engine measures it. */
  avgLatencyMicros?: number;
  /**
   * Node engine only: the share of the step its event loop was busy (0..1). Near 1, the engine and
   * not the disk set the pace, and the figures are a lower bound (see ENGINE_BOUND_BUSY).
   */
  engineBusy?: number;
  /** Operations completed in each second of the step (the Node engine reports these). */
  perSecond?: Array<{ t: number; reads: number; writes: number }>;
}

export interface DiskperfStep extends StepMeasurement {
  status: 'ok' | 'interrupted' | 'failed';
  opsPerSec: { total: number; reads: number; writes: number };
  /** opsPerSec.total x blockSize / BYTES_PER_MB. */
  mbPerSec: number;
}

export interface DiskperfResult {
  schema: typeof DISKPERF_SCHEMA;
  tool: { name: string; version: string };
  complete: boolean;
  /** Why the run is incomplete: interrupted (SIGINT/SIGTERM) or the error that stopped it. */
  incompleteReason?: string;
  startedAt: string;
  finishedAt: string;
  host: { hostname: string; platform: string; cpus: number; memoryMB: number };
  settings: DiskperfSettings;
  io: {
    engine: EngineName;
    engineVersion: string;
    /** True when the operations bypassed the OS page cache (O_DIRECT). */
    direct: boolean;
    /** Why direct I/O was not used, when it was not. */
    directUnavailableReason?: string;
    /** Filesystem type of --dir when known (ext4, xfs, tmpfs, ...). */
    filesystem?: string;
    /** Seconds spent writing the test file before the steps. */
    fileCreateSeconds: number;
  };
  steps: DiskperfStep[];
}

/** Derives the per-second figures from raw counts; MB/s is always ops/s x block size. */
export function toStep(
  m: StepMeasurement,
  blockSize: number,
  status: DiskperfStep['status'] = 'ok',
): DiskperfStep {
  const seconds = m.elapsedSeconds > 0 ? m.elapsedSeconds : Number.NaN;
  const reads = m.reads / seconds;
  const writes = m.writes / seconds;
  const total = (m.reads + m.writes) / seconds;
  return {
    ...m,
    status,
    opsPerSec: { total: finite(total), reads: finite(reads), writes: finite(writes) },
    mbPerSec: finite((total * blockSize) / BYTES_PER_MB),
  };
}

function finite(n: number): number {
  return Number.isFinite(n) ? n : 0;
}

/** The step with the most operations per second, if any step measured something. */
export function peakStep(result: DiskperfResult): DiskperfStep | undefined {
  let best: DiskperfStep | undefined;
  for (const step of result.steps)
    if (!best || step.opsPerSec.total > best.opsPerSec.total) best = step;
  return best && best.opsPerSec.total > 0 ? best : undefined;
}

export function modeLabel(mode: IoMode): string {
  return mode === 'mixed'
    ? 'random 4 KB reads + writes (50/50)'
    : mode === 'read'
      ? 'random 4 KB reads'
      : 'random 4 KB writes';
}
