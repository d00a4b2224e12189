/** What the engine measured in one trial of one step: the raw material of a StepResult. */
import { ClientLoad, LoopReading } from './client-load';
import { EncodedLatency, LatencyRecorder } from './latency';
import type { ErrorsByClass, RequestedRate, StepArrival } from '../result/steps';

export interface ErrorTally {
  /** e.g. "DuplicateKey (11000)" or "MongoNetworkError". */
  error: string;
  count: number;
  /** The first message seen. */
  example: string;
}

/**
 * The figures legacy benchRun would have printed for the same ops, by its own rules
 * (lib/workload/engine/benchrun-outcome.ts): totalOps counts nop and let too, and a command answering ok: 0
 * both as an op and an error; a write error is an op, not an error. Per op type: every attempt, failed
 * ones included, with their summed latency (for benchRun's *LatencyAverageMicros).
 */
export interface BenchRunCounts {
  totalOps: number;
  errCount: number;
  byOp: Record<string, { count: number; micros: number }>;
}

export interface StepOverrun {
  reads: number;
  writes: number;
  errors: number;
  seconds: number;
}

/** What one step's arrival schedule counted over the measured window, per second by due time. */
export interface ArrivalMeasurement {
  /** The rate the whole step was asked to hold (every thread's share together). */
  target: RequestedRate;
  lateAfterMs: number;
  dropAfterMs: number;
  scheduled: number[];
  dropped: number[];
  late: number[];
  /**
   * Ops whose client was free and waited on a timer for their due time, and how late (ms, summed) the
   * timer let them start: the load generator's own error, inside every latency (absent in older encodings).
   */
  timerWaits?: number;
  timerLateMsSum?: number;
  /** The distribution of those waits' lateness (µs), encoded so it travels and merges exactly; absent with no wait. */
  waitLate?: EncodedLatency;
  /** How the waits were made (absent in older encodings: `timer`, the only way then). */
  arrivals?: StepArrival['arrivals'];
}

/** One server op of the workload's ops array: its latency, apart from other ops of the same type. */
export interface OpLatency {
  /** Position in the workload's ops array. */
  index: number;
  /** The op type (findOne, command, ...). */
  op: string;
  /** What it runs: the command's name for a command (aggregate, distinct, ...), else the op type. */
  name: string;
  recorder: LatencyRecorder;
}

export interface MeasuredOutage {
  start: number;
  end?: number;
  kind?: 'reads' | 'writes' | 'all';
  /** The ops that failed in it, by class. */
  errorsByClass?: ErrorsByClass;
  opsFailed?: number;
}

export interface LongestOp {
  kind: 'reads' | 'writes';
  /** Its index in the ops array, and its name (filled in from the op list where known). */
  index: number;
  op?: string;
  micros: number;
  failed?: boolean;
}

export interface StepMeasurement {
  clients: number;
  /** Planned measured seconds. */
  seconds: number;
  /** From the window's opening until the last counted op completed (benchRun divides by this). */
  elapsedSeconds: number;
  /**
   * How long the window itself lasted: its planned seconds, or with an op count (or cut short) until it
   * ended, so its last second may be partial. Absent from older measurements (whole seconds).
   */
  windowSeconds?: number;
  interrupted: boolean;
  /** Successful reads and writes; failed ops count only as errors. */
  reads: number;
  writes: number;
  errors: number;
  /**
   * Per op class, per op type (findOne, update, ...), and per op of the ops array (`byIndex`, in index
   * order; absent from measurements made before it was kept, and where ops of different workloads met).
   */
  latency: {
    reads: LatencyRecorder;
    writes: LatencyRecorder;
    byOp: Map<string, LatencyRecorder>;
    byIndex?: OpLatency[];
  };
  /** Index = second of the window in which the op completed; ops completing after the close are in `overrun`. */
  /** `latencyMicros`: the summed latency of the successful ops completed in each second (absent from older measurements). */
  perSecond: { reads: number[]; writes: number[]; errors: number[]; latencyMicros?: number[] };
  /**
   * Ops started in the window that completed after it closed: counted in reads/writes/errors and the
   * histograms, never in a window second. `seconds`: from the close to the last of them.
   * Absent from measurements made before it was kept.
   */
  overrun?: StepOverrun;
  errorTallies: ErrorTally[];
  /**
   * Ops started in the warm-up that completed in the window: measured nowhere, but a server reading its
   * counters when the window opens may count them in it (the consistency check allows for them).
   */
  inFlightAtOpen?: number;
  /** benchRun's own counts (absent from measurements made before they were kept). */
  benchRun?: BenchRunCounts;
  /** The first error that said the server is gone (network, server selection): the step failed. */
  lostServer?: string;
  /**
   * Outages (epoch ms; docs/reliability.md): `all` (absent kind: `all`) from the last answer before a
   * lost-server error to the first answer after it; `reads`/`writes` from the kind's last success to its
   * next, where it stalled or failed with not-primary errors. No `end` while none came.
   */
  outages?: MeasuredOutage[];
  /** The measured window (epoch ms): outages are placed in it. */
  window?: { start: number; end: number };
  /** --stall-ms the step ran with (absent from older measurements). */
  stallMs?: number;
  /** Successful measured ops slower than stallMs while their kind had no outage. */
  opsDelayed?: number;
  /** The slowest op (successful or failed). */
  longestOp?: LongestOp;
  /** Set when the step overran its window by more than the allowed time and was cut. */
  cut?: string;
  /** A weighted workload's measured attempts per op (index in its ops array): the mix it ran. */
  opCounts?: number[];
  /** The open model (a rate): ops scheduled, dropped and late per second of the window, by due time. */
  arrival?: ArrivalMeasurement;
  /** How busy the event loop that ran these clients was over the measured window (and the process CPU). */
  load?: LoopReading;
  /** Every worker's load and the process CPU: set by whoever ran the step (benchmark, parallel-step). */
  client?: ClientLoad;
}
