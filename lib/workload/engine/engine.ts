/**
 * The engine: `clients` concurrent loops, each running the ops array in order over and over with one
 * request in flight (like one benchRun thread), for warm-up + measured seconds. It records into
 * fixed-size histograms and per-second counters and never prints: progress leaves through onTick.
 *
 * An op belongs to the measured window when it starts (or, with a rate, was scheduled to start) at or
 * after the window opens. When the window closes no client starts another op, not even the rest of its
 * pass through the ops array: benchRun checks before every op (mongodb/mongo src/mongo/shell/bench.cpp,
 * BenchRunWorker::generateLoadOnConnection: `for (const auto& op : _config->ops) { if (shouldStop())
 * break; ...`). The ops in flight are awaited and counted in the totals and histograms, so counts agree
 * exactly with what the server applied, but an op completing after the close is bucketed in the step's
 * overrun, never in a window second (nor so in the peak).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sleepUntil } from '../../common/sleep-until';
import { LoadProbe, LoopReading } from '../../metrics/client-load';
import { LatencyRecorder, mergeRecorders } from '../../metrics/latency';
import { BenchRunCounts, ErrorTally, OpLatency, StepMeasurement } from '../../metrics/measurement';
import { benchRunFailureRule } from './benchrun-outcome';
import { ArrivalMeasurement, ArrivalSchedule, scaleRate } from './arrival-schedule';
import { BoundOp } from './compile-ops';
import type { ScheduledRate } from '../language/rate-spec';
import { ClientState, MAX_CLIENTS_WITH_UNIQUE_SEQ, TemplateScope } from '../language/template';
import { weightedOpPicker } from '../language/weighted-pick';
import { dropUndefined } from '../../common/values';

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
}

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
}

export type { StepMeasurement, ErrorTally };

export interface StepCallbacks {
  onTick?: (tick: TickEvent) => void;
  /** At the first network error of an outage, at once: the last answer before it (epoch ms). */
  onNoAnswer?: (sinceEpochMs: number) => void;
  signal?: AbortSignal;
}

const MAX_DISTINCT_ERRORS = 20;

/** Client-side ops (nop, let) run back to back without awaiting: yield to the event loop after this many. */
const SYNC_OPS_BEFORE_YIELD = 256;

/**
 * Errors that mean the connection to the server is gone (not a failed command): the step failed.
 * Not MongoNetworkTimeoutError: that is one op outliving --op-timeout, counted as an error.
 */
const LOST_SERVER_ERRORS = new Set([
  'MongoNetworkError',
  'MongoServerSelectionError',
  'MongoServerClosedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

export function isLostServerError(err: unknown): boolean {
  return LOST_SERVER_ERRORS.has(String((err as { name?: unknown } | undefined)?.name));
}

/** Where one op's outcome goes: resolved once per step so the hot path does no lookups. */
interface Slot {
  isRead: boolean;
  /** The op's own recorder (a client-side op's is never written). */
  latency: LatencyRecorder;
}

class Tally {
  reads = 0;
  writes = 0;
  errors = 0;
  liveReads = 0;
  liveWrites = 0;
  liveErrors = 0;
  readsPerSecond: Float64Array;
  writesPerSecond: Float64Array;
  errorsPerSecond: Float64Array;
  /** Summed latency (µs) of the successful ops completed in each second. */
  latencyPerSecond: Float64Array;
  /** Counted ops that completed after the window closed (in flight at its close). */
  overrunReads = 0;
  overrunWrites = 0;
  overrunErrors = 0;
  /** When the last of them completed (performance.now()); 0: none. */
  lastLateEnd = 0;
  private readonly errorsByKind = new Map<string, ErrorTally>();
  /** The first error that said the server is gone. */
  private firstLostServer: string | undefined;
  readonly benchRun: BenchRunCounts = { totalOps: 0, errCount: 0, byOp: {} };
  /**
   * Set by a lost-server error, cleared by any op that succeeds after it: one dropped connection
   * (a server closing one socket, a proxy resetting it) is an error, not a lost server, once the
   * server answers again; benchRun too counts such an op as an error and goes on.
   */
  private stillLost = false;
  /** When the last op answered (performance.now()); the step's start before any did. */
  lastAnswerAt = 0;
  /** From the last answer before a network error to the first answer after it (performance.now()). */
  readonly outages: { start: number; end?: number }[] = [];

  /** A network error: opens an outage unless one is open; true when this one opened it. */
  openOutage(): boolean {
    const open = this.outages.at(-1);
    if (open && open.end === undefined) return false;
    this.outages.push({ start: this.lastAnswerAt });
    return true;
  }

  /** An answer at `at`: closes the open outage there. */
  answeredAt(at: number): void {
    this.lastAnswerAt = at;
    const open = this.outages.at(-1);
    if (open && open.end === undefined) open.end = at;
  }

  constructor(seconds: number) {
    this.readsPerSecond = new Float64Array(seconds);
    this.writesPerSecond = new Float64Array(seconds);
    this.errorsPerSecond = new Float64Array(seconds);
    this.latencyPerSecond = new Float64Array(seconds);
  }

  /** A window with no set end (an op count): the per-second series grow to hold `seconds`, doubling. */
  grow(seconds: number): void {
    const size = Math.max(seconds, this.readsPerSecond.length * 2);
    const grown = (a: Float64Array) => {
      const b = new Float64Array(size);
      b.set(a);
      return b;
    };
    this.readsPerSecond = grown(this.readsPerSecond);
    this.writesPerSecond = grown(this.writesPerSecond);
    this.errorsPerSecond = grown(this.errorsPerSecond);
    this.latencyPerSecond = grown(this.latencyPerSecond);
  }

  noteError(err: unknown): void {
    const e = err as { code?: unknown; codeName?: unknown; name?: unknown; message?: unknown };
    if (isLostServerError(err)) {
      this.stillLost = true;
      this.firstLostServer ??= `${String(e.name)}: ${String(e.message ?? '')}`.slice(0, 300);
    }
    const kind =
      typeof e?.codeName === 'string'
        ? `${e.codeName}${e.code !== undefined ? ` (${String(e.code)})` : ''}`
        : e?.code !== undefined
          ? `${String(e.name ?? 'Error')} (code ${String(e.code)})`
          : String(e?.name ?? 'Error');
    const known = this.errorsByKind.get(kind);
    if (known) {
      known.count++;
      return;
    }
    const key = this.errorsByKind.size < MAX_DISTINCT_ERRORS ? kind : 'other errors';
    const other = this.errorsByKind.get(key);
    if (other) other.count++;
    else
      this.errorsByKind.set(key, {
        error: key,
        count: 1,
        example: String(e?.message ?? err).slice(0, 300),
      });
  }

  noteAnswered(): void {
    this.stillLost = false;
  }

  /** Why the step lost its server: only when no op succeeded after the last lost-server error. */
  get lostServer(): string | undefined {
    return this.stillLost ? this.firstLostServer : undefined;
  }

  tallies(): ErrorTally[] {
    return [...this.errorsByKind.values()];
  }
}

/**
 * Sleeps until `at` (performance.now()), or until the signal aborts. A timer may fire a fraction of
 * a millisecond early on this clock: the rest is waited out, or the first op would start before the
 * window and not be counted.
 */
async function waitUntil(at: number, signal: AbortSignal | undefined): Promise<void> {
  await sleepUntil(at, signal);
  while (performance.now() < at && !signal?.aborted)
    await new Promise<void>((resolve) => setImmediate(resolve));
}

/** The per-op recorders merged per op type (findOne, update, ...), in order of first appearance. */
function latencyByType(byIndex: readonly OpLatency[]): Map<string, LatencyRecorder> {
  const types = [...new Set(byIndex.map((o) => o.op))];
  return new Map(
    types.map((type) => [
      type,
      mergeRecorders(byIndex.filter((o) => o.op === type).map((o) => o.recorder)),
    ]),
  );
}

/** Runs one step (one trial at one client count) and returns what it measured. */
export async function runStep(
  ops: BoundOp[],
  scope: TemplateScope,
  plan: StepPlan,
  callbacks: StepCallbacks = {},
): Promise<StepMeasurement> {
  const { clients, seconds, warmupSeconds } = plan;
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
  // This event loop's share of an op count, and how many of them its clients have claimed.
  const opsLimit =
    plan.ops === undefined
      ? undefined
      : Math.floor((plan.ops * (slice.first + slice.count)) / clients) -
        Math.floor((plan.ops * slice.first) / clients);
  let claimed = 0;
  if (scope.usesUniqueSeq && clients > MAX_CLIENTS_WITH_UNIQUE_SEQ) {
    throw new RangeError(
      `#SEQ_INT with unique: true supports at most ${MAX_CLIENTS_WITH_UNIQUE_SEQ} clients (got ${clients})`,
    );
  }

  // One recorder per server op of the array (two aggregates stay apart), the only one an op records
  // into: per class and per type they merge at the end (one histogram write per op, not two).
  const byIndex: OpLatency[] = [];
  const readRecorders: LatencyRecorder[] = [];
  const writeRecorders: LatencyRecorder[] = [];
  let clientSideLatency: LatencyRecorder | undefined; // shared by nop/let ops, never written
  const slots: Slot[] = ops.map((op, index) => {
    if (op.opClass === 'none')
      return { isRead: false, latency: (clientSideLatency ??= new LatencyRecorder()) };
    const latency = new LatencyRecorder();
    byIndex.push({ index, op: op.type, name: op.name ?? op.type, recorder: latency });
    (op.opClass === 'read' ? readRecorders : writeRecorders).push(latency);
    return { isRead: op.opClass === 'read', latency };
  });
  const tally = new Tally(seconds);
  const signal = callbacks.signal;

  if (plan.startAt !== undefined) await waitUntil(plan.startAt, signal);
  const t0 = plan.startAt ?? performance.now();
  tally.lastAnswerAt = t0;
  const epoch = (t: number) => Math.round(performance.timeOrigin + t);
  const measureStart = t0 + warmupSeconds * 1000;
  const stopAt = opsLimit === undefined ? measureStart + seconds * 1000 : Infinity;
  let lastBucket = seconds - 1;

  // benchRun's per-op counters (every attempt and its latency), resolved once per op.
  const benchRunSlots = ops.map((op) =>
    op.opClass === 'none' ? undefined : (tally.benchRun.byOp[op.type] ??= { count: 0, micros: 0 }),
  );
  // A workload of client-side ops only (nop, let) has no rate to keep and no reply to wait for.
  const serverOps = ops.some((op) => op.opClass !== 'none');
  // A weighted workload (ops carry `weight`): each client draws its ops by weight; counted per op.
  const weights = ops.map((op) => op.weight);
  const opCounts = weights.some((w) => w !== undefined)
    ? new Array<number>(ops.length).fill(0)
    : undefined;
  // The open model (a rate): one schedule for this thread's clients, holding their share of the rate.
  const target =
    plan.arrival ??
    (plan.rate ? ({ kind: 'constant', opsPerSecond: plan.rate } as const) : undefined);
  const schedule =
    target && serverOps
      ? new ArrivalSchedule(
          target,
          scaleRate(target, slice.count / clients),
          { t0, measureStart, stopAt, seconds },
          plan.lateAfterMs,
          plan.dropAfterMs,
        )
      : undefined;

  // Set when the step overran its window by more than overrunLimitMs: no client starts another op.
  let cut = false;
  const clientLoop = async (state: ClientState): Promise<void> => {
    const count = ops.length;
    let i = 0;
    const pacing = { syncOps: 0 };
    // Weighted: `i` stays 0, so the stop check below runs before every draw.
    const pickOp = weightedOpPicker(weights, plan.randomSeed + state.index);
    for (;;) {
      if (cut) return;
      // No op of the array starts once the window has closed (bench.cpp checks shouldStop() before each):
      // the overrun is one op per client at most, and the op mix holds within one pass per client.
      if (performance.now() >= stopAt) return;
      if (signal?.aborted) return;
      const at = pickOp ? pickOp() : i;
      const op = ops[at];
      if (!pickOp) i = i + 1 === count ? 0 : i + 1;
      if (op.opClass === 'none') {
        await runClientSideOp(at, op, state, pacing);
        continue;
      }
      pacing.syncOps = 0;
      const start = performance.now();
      if (opsLimit !== undefined && start >= measureStart) {
        if (claimed === opsLimit) return;
        claimed++;
      }
      let failure: unknown;
      let failed = false;
      try {
        await op.run(state);
      } catch (err) {
        failed = true;
        failure = err;
      }
      const end = performance.now();
      if (cut) return; // the step was given up on: this late outcome is not counted
      recordOutcome(at, start, end, failed, failure);
      if (op.delayMs > 0) await sleep(op.delayMs);
    }
  };

  // Clients waiting for their op's due time; an abort wakes them all (one listener per step, not per wait).
  const waiting = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of waiting) wake();
  };
  if (schedule) signal?.addEventListener('abort', wakeAll, { once: true });
  /**
   * Waits until `due` (performance.now()) or an abort. Node's timers run on libuv's loop clock, cached and
   * in whole milliseconds, so a timer can fire up to ~2 ms early against performance.now(): when it does,
   * it is armed again for what remains (at least Node's 1 ms), never spun on. The op may so start up to
   * a millisecond or two late; it is timed from its due time all the same.
   */
  const waitForDue = (due: number): Promise<void> =>
    new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        resolve();
      };
      const arm = () => {
        const remaining = due - performance.now();
        if (remaining <= 0 || signal?.aborted || cut) wake();
        else timer = setTimeout(arm, Math.max(1, Math.ceil(remaining)));
      };
      waiting.add(wake);
      arm();
    });
  /**
   * A client of the open model: it takes the next due op off the shared schedule (waiting for it when it
   * lies ahead) and times it from its due time. Client-side ops (nop, let) run in between, unscheduled.
   * Kept apart from clientLoop so the closed loop's hot path stays as it is.
   */
  const arrivalLoop = async (state: ClientState, arrivals: ArrivalSchedule): Promise<void> => {
    const count = ops.length;
    let i = 0;
    const pacing = { syncOps: 0 };
    const pickOp = weightedOpPicker(weights, plan.randomSeed + state.index);
    for (;;) {
      if (cut || signal?.aborted) return;
      const at = pickOp ? pickOp() : i;
      const op = ops[at];
      if (!pickOp) i = i + 1 === count ? 0 : i + 1;
      if (op.opClass === 'none') {
        await runClientSideOp(at, op, state, pacing);
        continue;
      }
      pacing.syncOps = 0;
      const due = arrivals.claim(performance.now());
      if (due === undefined) return;
      // No op starts before its due time: it is timed from it (end - due), so an early start would take
      // time off its latency, and a late one keeps its wait (the coordinated-omission correction).
      const waited = performance.now() < due;
      if (waited) {
        await waitForDue(due);
        if (signal?.aborted || cut) return;
      }
      const started = performance.now();
      arrivals.noteStart(due, started);
      if (waited) arrivals.noteTimerWait(due, started);
      let failure: unknown;
      let failed = false;
      try {
        await op.run(state);
      } catch (err) {
        failed = true;
        failure = err;
      }
      const end = performance.now();
      if (cut) return;
      recordOutcome(at, due, end, failed, failure);
      if (op.delayMs > 0) await sleep(op.delayMs);
    }
  };

  /**
   * A client-side op (nop, let), for both loops. benchRun counts it in totalOps (bench.cpp, executeOnce:
   * `++opCount` after every op). Paced by its delay, or else the client yields every
   * SYNC_OPS_BEFORE_YIELD ops in a row so a workload of such ops cannot starve the event loop.
   */
  const runClientSideOp = async (
    at: number,
    op: BoundOp,
    state: ClientState,
    pacing: { syncOps: number },
  ): Promise<void> => {
    if (performance.now() >= measureStart) {
      tally.benchRun.totalOps++;
      if (opCounts) opCounts[at]++;
    }
    op.run(state);
    if (op.delayMs > 0) await sleep(op.delayMs);
    else if (++pacing.syncOps >= SYNC_OPS_BEFORE_YIELD) {
      pacing.syncOps = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };

  /** The bookkeeping of one server op, for both loops: `start` is when it began (closed) or was due (open). */
  const recordOutcome = (
    at: number,
    start: number,
    end: number,
    failed: boolean,
    failure: unknown,
  ): void => {
    const slot = slots[at];
    if (failed) {
      tally.liveErrors++;
      // The first network error of an outage is said at once (the run announces it).
      if (isLostServerError(failure) && tally.openOutage())
        callbacks.onNoAnswer?.(epoch(tally.lastAnswerAt));
    } else {
      if (slot.isRead) tally.liveReads++;
      else tally.liveWrites++;
      tally.noteAnswered();
      tally.answeredAt(end);
    }
    if (start < measureStart) return;
    const late = end >= stopAt;
    let bucket = late ? -1 : ((end - measureStart) / 1000) | 0;
    if (bucket > lastBucket) {
      if (opsLimit === undefined) bucket = lastBucket;
      else {
        tally.grow(bucket + 1);
        lastBucket = tally.readsPerSecond.length - 1;
      }
    }
    if (late && end > tally.lastLateEnd) tally.lastLateEnd = end;
    if (opCounts) opCounts[at]++;
    const br = benchRunSlots[at] as { count: number; micros: number };
    br.count++;
    br.micros += (end - start) * 1000;
    if (failed) {
      tally.errors++;
      if (late) tally.overrunErrors++;
      else tally.errorsPerSecond[bucket]++;
      tally.noteError(failure);
      const rule = benchRunFailureRule(failure);
      if (rule !== 'error') tally.benchRun.totalOps++;
      if (rule !== 'op') tally.benchRun.errCount++;
      return;
    }
    tally.benchRun.totalOps++;
    const micros = (end - start) * 1000;
    slot.latency.record(micros);
    if (!late) tally.latencyPerSecond[bucket] += micros;
    if (slot.isRead) {
      tally.reads++;
      if (late) tally.overrunReads++;
      else tally.readsPerSecond[bucket]++;
    } else {
      tally.writes++;
      if (late) tally.overrunWrites++;
      else tally.writesPerSecond[bucket]++;
    }
  };

  let last = { reads: 0, writes: 0, errors: 0 };
  const ticker = setInterval(() => {
    const now = performance.now();
    const inWarmup = now < measureStart;
    const tick: TickEvent = {
      phase: inWarmup ? 'warmup' : 'measure',
      second: Math.floor((inWarmup ? now - t0 : now - measureStart) / 1000),
      reads: tally.liveReads - last.reads,
      writes: tally.liveWrites - last.writes,
      errors: tally.liveErrors - last.errors,
      measured: { reads: tally.reads, writes: tally.writes, errors: tally.errors },
    };
    const open = tally.outages.at(-1);
    if (open && open.end === undefined) tick.noAnswerSince = epoch(open.start);
    last = { reads: tally.liveReads, writes: tally.liveWrites, errors: tally.liveErrors };
    callbacks.onTick?.(tick);
  }, 1000);
  ticker.unref();

  // The loop's load over the measured window: from its opening to the last counted op. A loop too busy
  // to run the opening's timer before its clients stop is saturated: the probe taken at the step's start
  // then speaks for it, rather than no reading (which would read as an idle loop).
  let probe = new LoadProbe();
  const probeTimer = setTimeout(
    () => (probe = new LoadProbe()),
    Math.max(0, measureStart - performance.now()),
  );

  let overrunTimer: NodeJS.Timeout | undefined;
  let load: LoopReading | undefined;
  try {
    const loops: Promise<void>[] = [];
    for (let c = slice.first; c < slice.first + slice.count; c++) {
      const state = scope.newClientState(c, plan.randomSeed + c);
      loops.push(schedule ? arrivalLoop(state, schedule) : clientLoop(state));
    }
    const all = Promise.all(loops);
    if (plan.overrunLimitMs === undefined || opsLimit !== undefined) {
      await all;
    } else {
      // A stuck op must not hold the run: past the window plus the limit, stop waiting for it.
      const limit = plan.overrunLimitMs;
      const overran = new Promise<'cut'>((resolve) => {
        overrunTimer = setTimeout(
          () => resolve('cut'),
          Math.max(0, stopAt + limit - performance.now()),
        );
      });
      if ((await Promise.race([all, overran])) === 'cut') cut = true;
    }
  } finally {
    load = probe.read();
    signal?.removeEventListener('abort', wakeAll);
    clearInterval(ticker);
    clearTimeout(overrunTimer);
    clearTimeout(probeTimer);
  }
  const end = performance.now();
  const interrupted =
    signal?.aborted === true && (opsLimit === undefined ? end < stopAt : claimed < opsLimit);
  const elapsedSeconds = Math.max(0, (end - measureStart) / 1000);
  // An op count's window lasted as long as its ops: the seconds it spanned.
  const spanned =
    opsLimit === undefined
      ? seconds
      : Math.min(tally.readsPerSecond.length, Math.max(1, Math.ceil(elapsedSeconds)));
  const buckets = interrupted ? Math.min(spanned, Math.ceil(elapsedSeconds)) : spanned;
  const toList = (a: Float64Array) => Array.from(a.subarray(0, buckets));
  const arrival: ArrivalMeasurement | undefined = schedule?.finish(end, buckets);
  return {
    clients,
    seconds: spanned,
    elapsedSeconds,
    interrupted,
    reads: tally.reads,
    writes: tally.writes,
    errors: tally.errors,
    latency: {
      reads: mergeRecorders(readRecorders),
      writes: mergeRecorders(writeRecorders),
      byOp: latencyByType(byIndex),
      byIndex,
    },
    perSecond: {
      reads: toList(tally.readsPerSecond),
      writes: toList(tally.writesPerSecond),
      errors: toList(tally.errorsPerSecond),
      latencyMicros: toList(tally.latencyPerSecond),
    },
    errorTallies: tally.tallies(),
    benchRun: tally.benchRun,
    overrun: {
      reads: tally.overrunReads,
      writes: tally.overrunWrites,
      errors: tally.overrunErrors,
      seconds: tally.lastLateEnd > stopAt ? Math.round(tally.lastLateEnd - stopAt) / 1000 : 0,
    },
    ...dropUndefined({ lostServer: tally.lostServer }),
    ...(tally.outages.length > 0
      ? {
          outages: tally.outages.map((o) => ({
            start: epoch(o.start),
            ...(o.end !== undefined ? { end: epoch(o.end) } : {}),
          })),
          window: { start: epoch(measureStart), end: epoch(stopAt) },
        }
      : {}),
    ...(load ? { load } : {}),
    ...(opCounts ? { opCounts } : {}),
    ...(arrival ? { arrival } : {}),
    ...(cut
      ? {
          cut: `still running ${Math.round((end - stopAt) / 100) / 10} s after the measured window closed (more than the ${plan.overrunLimitMs} ms allowed): cut`,
        }
      : {}),
  };
}
