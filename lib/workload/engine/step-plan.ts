/**
 * What a step is asked to do (StepPlan), how it reports while it runs (StepCallbacks, TickEvent), and the
 * plan's checks: everything runStep knows before its first op.
 */
import type { TickLatencyDelta } from '../../metrics/tick-latency';
import type { ScheduledRate } from '../language/rate-spec';
import { MAX_CLIENTS_WITH_UNIQUE_SEQ, TemplateScope } from '../language/template';

/**
 * How a client of the open model waits for its op's due time: `exact` (a timer, then this event loop's
 * poller for the last EXACT_WAKE_AHEAD_MS: the op starts within a turn of the loop, at the cost of a
 * core busy meanwhile) or `timer` (Node's millisecond timers alone: up to a millisecond or two late).
 */
export const ARRIVALS_MODES = ['exact', 'timer'] as const;
export type ArrivalsMode = (typeof ARRIVALS_MODES)[number];
export const DEFAULT_ARRIVALS: ArrivalsMode = 'exact';

export interface StepPlan {
  clients: number;
  /** Measured seconds (an integer >= 1). */
  seconds: number;
  /**
   * YCSB's operationcount: the step measures exactly this many server ops (every event loop of the step
   * together), each claimed from a counter before it starts, instead of `seconds`; the window closes when
   * the last is done. An event loop running a client slice claims its slice's share:
   * floor(ops * end / clients) - floor(ops * first / clients), so the shares of any split add up to `ops`.
   * `seconds` then only sizes the per-second series at first. Not with a rate.
   */
  ops?: number;
  /** Seconds run before the measured window; not counted. */
  warmupSeconds: number;
  /** Target total ops/sec across all clients: the same as `arrival: { kind: 'constant', opsPerSecond: rate }`. */
  rate?: number;
  /**
   * The open model: ops are due on one schedule for the whole step (from its start, warm-up included),
   * a free client takes the next due op, latency is measured from its due time, and ops that could not
   * start in time are counted late or dropped (./arrival-schedule.ts). Wins over `rate`.
   */
  arrival?: ScheduledRate;
  /** With a rate: an op started more than this after its due time is late (default 5 ms). */
  lateAfterMs?: number;
  /** With a rate: an op that could not start within this of its due time is dropped (default 500 ms). */
  dropAfterMs?: number;
  /** With a rate: how a free client waits for its op's due time (default `exact`). */
  arrivals?: ArrivalsMode;
  /** Client i uses randomSeed + i. */
  randomSeed: number;
  /**
   * How long past the measured window the step may run (ops still in flight) before it is cut:
   * the clients stop, and the measurement says so (`cut`). Undefined: wait as long as it takes.
   */
  overrunLimitMs?: number;
  /**
   * When the step begins (warm-up included), as this thread's performance.now(). Worker threads are
   * handed one common instant so their windows, and so their per-second buckets, line up.
   * Undefined: now.
   */
  startAt?: number;
  /**
   * The clients this event loop runs, when the step is split across worker threads: client i keeps
   * index i and seed randomSeed + i whichever thread runs it. Undefined: all of them.
   */
  clientSlice?: { first: number; count: number };
  /**
   * --stall-ms: a kind with an op in flight this long and no success of it meanwhile is out; a successful
   * op slower than this outside an outage is delayed (docs/reliability.md). Default 1000.
   */
  stallMs?: number;
}

/**
 * The step's progress, once a second (and once more, `final`, when it ends). Plain, structured-cloneable
 * data: worker threads post it (worker-protocol.ts), TickMerger (worker-ticks.ts) merges theirs, and an
 * agent writes its running sum as its progress (lib/agents/agent-step.ts, summed by the coordinator).
 *
 * Extending it: a field is optional (an old agent's progress lacks it), holds what happened since the
 * last tick or a state as of now, and is given its merge in all three places above: TickMerger.add (how
 * threads' values combine: sums add, instants take the earliest), the agent's progress (a running sum,
 * as the coordinator reads only the latest document) and the coordinator's ProgressTicks. `latency` is
 * the model for a delta, `stalled` for a state.
 */
export interface TickEvent {
  phase: 'warmup' | 'measure';
  /** Whole seconds since the phase began. */
  second: number;
  /** Completed in the last second (all ops, warm-up included). */
  reads: number;
  writes: number;
  errors: number;
  /** Counted so far in the measured window. */
  measured: { reads: number; writes: number; errors: number };
  /** An outage is open: the last answer before it (epoch ms). */
  noAnswerSince?: number;
  /** Kinds out now (no success for --stall-ms with ops in flight): each kind's last success (epoch ms). */
  stalled?: { reads?: number; writes?: number };
  /**
   * Since the last tick: successful ops per latency bucket, by phase and kind, and failed ops per phase
   * (lib/metrics/tick-latency.ts). Absent when nothing completed.
   */
  latency?: TickLatencyDelta;
  /**
   * The step's last tick, sent once when it ends: what completed since the last whole second (the
   * window's last fraction, the overrun). Its counts cover part of a second: a reader that takes ticks
   * as seconds (a rate, a steadiness test) skips it; a reader that sums them (metrics) takes it.
   */
  final?: true;
}

export interface StepCallbacks {
  onTick?: (tick: TickEvent) => void;
  /** At the first network error of an outage, at once: the last answer before it (epoch ms). */
  onNoAnswer?: (sinceEpochMs: number) => void;
  signal?: AbortSignal;
}

/** The clients one event loop runs: client i keeps index i whichever thread runs it. */
export interface ClientSlice {
  first: number;
  count: number;
}

/**
 * Throws a RangeError for a plan runStep cannot run; else the clients this event loop runs and, with an
 * op count, this loop's share of it (the shares of any split add up to `ops`).
 */
export function checkStepPlan(
  plan: StepPlan,
  scope: TemplateScope,
): { slice: ClientSlice; opsLimit: number | undefined } {
  const { clients, seconds } = plan;
  if (!Number.isInteger(clients) || clients < 1)
    throw new RangeError(`clients must be an integer >= 1, got ${clients}`);
  const slice = plan.clientSlice ?? { first: 0, count: clients };
  if (
    !Number.isInteger(slice.first) ||
    !Number.isInteger(slice.count) ||
    slice.first < 0 ||
    slice.count < 1 ||
    slice.first + slice.count > clients
  ) {
    throw new RangeError(
      `clientSlice must lie within 0..${clients - 1}, got first ${slice.first}, count ${slice.count}`,
    );
  }
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new RangeError(`seconds must be an integer >= 1, got ${seconds}`);
  if (plan.ops !== undefined && (!Number.isInteger(plan.ops) || plan.ops < 1))
    throw new RangeError(`ops must be an integer >= 1, got ${plan.ops}`);
  if (plan.ops !== undefined && (plan.rate !== undefined || plan.arrival !== undefined))
    throw new RangeError('ops cannot be combined with a rate');
  const opsLimit =
    plan.ops === undefined
      ? undefined
      : Math.floor((plan.ops * (slice.first + slice.count)) / clients) -
        Math.floor((plan.ops * slice.first) / clients);
  if (plan.arrivals !== undefined && !ARRIVALS_MODES.includes(plan.arrivals))
    throw new RangeError(`arrivals must be ${ARRIVALS_MODES.join(' or ')}, got ${plan.arrivals}`);
  if (plan.stallMs !== undefined && !(plan.stallMs > 0))
    throw new RangeError(`stallMs must be > 0, got ${plan.stallMs}`);
  if (scope.usesUniqueSeq && clients > MAX_CLIENTS_WITH_UNIQUE_SEQ) {
    throw new RangeError(
      `#SEQ_INT with unique: true supports at most ${MAX_CLIENTS_WITH_UNIQUE_SEQ} clients (got ${clients})`,
    );
  }
  return { slice, opsLimit };
}
