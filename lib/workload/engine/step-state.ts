/**
 * The state one running step shares between its clients, its ticker and its result: the window's
 * instants, the op count claimed so far, the cut flag, and the bookkeeping of every op's outcome.
 * A class rather than closures so the client loop, the arrival loop and the ticker can live in modules
 * of their own: one object, its fields read where used, costs the hot path what the closures' context did.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ClientState } from '../language/template';
import { benchRunFailureRule } from './benchrun-outcome';
import { BoundOp } from './compile-ops';
import { OpRecorders, Slot } from './op-recorders';
import { StepCallbacks, StepPlan } from './step-plan';
import { isLostServerError, Tally } from './step-tally';
import { OutageWatch, READ, WRITE } from './outage-watch';
import { TickLatency } from '../../metrics/tick-latency';

/** --stall-ms when the plan gives none. */
export const DEFAULT_STALL_MS = 1000;

/** Client-side ops (nop, let) run back to back without awaiting: yield to the event loop after this many. */
const SYNC_OPS_BEFORE_YIELD = 256;

/** A performance.now() instant as epoch milliseconds. */
export function epochMs(t: number): number {
  return Math.round(performance.timeOrigin + t);
}

/** A client's run of client-side ops in a row, since its last server op or yield. */
export interface Pacing {
  syncOps: number;
}

export class StepState {
  readonly ops: BoundOp[];
  readonly plan: StepPlan;
  readonly callbacks: StepCallbacks;
  readonly signal: AbortSignal | undefined;
  readonly recorders: OpRecorders;
  readonly tally: Tally;
  /** Each op's latency bucket since the last tick (./ticker.ts takes it): the tick's histogram delta. */
  readonly tickLatency = new TickLatency();
  /** Per-kind outages, delayed ops, and each client's op in flight (its start, signed by `kindSign`). */
  readonly watch: OutageWatch;
  /** The watch's per-client in-flight slots and per-kind last successes, and --stall-ms: read on the hot path. */
  readonly inFlight: Float64Array;
  private readonly lastSuccess: Float64Array;
  private readonly stallMs: number;
  /** Per op of the array: +1 a read, -1 a write (0: client-side): the in-flight slot's sign. */
  readonly kindSign: Float64Array;
  /** When the step began, warm-up included (performance.now()). */
  readonly t0: number;
  readonly measureStart: number;
  /** When the window closes; Infinity with an op count (it closes when the last op is done). */
  readonly stopAt: number;
  /** This event loop's share of an op count. */
  readonly opsLimit: number | undefined;
  /** How many of opsLimit this event loop's clients have claimed. */
  claimed = 0;
  /** Set when the step overran its window by more than overrunLimitMs: no client starts another op. */
  cut = false;
  /** A weighted workload (ops carry `weight`): each client draws its ops by weight; counted per op. */
  readonly weights: (number | undefined)[];
  readonly opCounts: number[] | undefined;
  private readonly slots: Slot[];
  /** benchRun's per-op counters (every attempt and its latency), resolved once per op. */
  private readonly benchRunSlots: ({ count: number; micros: number } | undefined)[];
  /** The last per-second bucket; it moves only with an op count, whose series grow. */
  private lastBucket: number;

  constructor(
    ops: BoundOp[],
    plan: StepPlan,
    callbacks: StepCallbacks,
    recorders: OpRecorders,
    tally: Tally,
    t0: number,
    opsLimit: number | undefined,
  ) {
    this.ops = ops;
    this.plan = plan;
    this.callbacks = callbacks;
    this.signal = callbacks.signal;
    this.recorders = recorders;
    this.slots = recorders.slots;
    this.tally = tally;
    this.t0 = t0;
    this.opsLimit = opsLimit;
    tally.lastAnswerAt = t0;
    this.measureStart = t0 + plan.warmupSeconds * 1000;
    this.stopAt = opsLimit === undefined ? this.measureStart + plan.seconds * 1000 : Infinity;
    this.lastBucket = plan.seconds - 1;
    this.watch = new OutageWatch(
      plan.clients,
      plan.stallMs ?? DEFAULT_STALL_MS,
      t0,
      this.measureStart,
      this.stopAt,
    );
    this.inFlight = this.watch.inFlight;
    this.lastSuccess = this.watch.lastSuccess;
    this.stallMs = this.watch.stallMs;
    this.kindSign = Float64Array.from(ops, (op) =>
      op.opClass === 'read' ? 1 : op.opClass === 'none' ? 0 : -1,
    );
    this.benchRunSlots = ops.map((op) =>
      op.opClass === 'none'
        ? undefined
        : (tally.benchRun.byOp[op.type] ??= { count: 0, micros: 0 }),
    );
    this.weights = ops.map((op) => op.weight);
    this.opCounts = this.weights.some((w) => w !== undefined)
      ? new Array<number>(ops.length).fill(0)
      : undefined;
  }

  /**
   * A client-side op (nop, let), for both loops. benchRun counts it in totalOps (bench.cpp, executeOnce:
   * `++opCount` after every op). Paced by its delay, or else the client yields every
   * SYNC_OPS_BEFORE_YIELD ops in a row so a workload of such ops cannot starve the event loop.
   */
  async runClientSideOp(
    at: number,
    op: BoundOp,
    state: ClientState,
    pacing: Pacing,
  ): Promise<void> {
    if (performance.now() >= this.measureStart) {
      this.tally.benchRun.totalOps++;
      if (this.opCounts) this.opCounts[at]++;
    }
    op.run(state);
    if (op.delayMs > 0) await sleep(op.delayMs);
    else if (++pacing.syncOps >= SYNC_OPS_BEFORE_YIELD) {
      pacing.syncOps = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * The bookkeeping of one server op, for both loops: `start` is when it began (closed) or was due (open);
   * `client` the client's index in the step (its in-flight slot is cleared).
   */
  recordOutcome(
    at: number,
    start: number,
    end: number,
    failed: boolean,
    failure: unknown,
    client: number,
  ): void {
    const tally = this.tally;
    const slot = this.slots[at];
    this.inFlight[client] = 0;
    if (failed) {
      tally.liveErrors++;
      // The first network error of an outage is said at once (the run announces it).
      if (isLostServerError(failure) && tally.openOutage())
        this.callbacks.onNoAnswer?.(epochMs(tally.lastAnswerAt));
      tally.countInOutage(this.watch.failed(slot.isRead ? READ : WRITE, start, end, failure, at));
    } else {
      if (slot.isRead) tally.liveReads++;
      else tally.liveWrites++;
      tally.noteAnswered();
      tally.answeredAt(end);
      const kind = slot.isRead ? READ : WRITE;
      // A gap of --stall-ms since the kind's last success, or a slow op: an outage closes, or a delay.
      if (end - this.lastSuccess[kind] >= this.stallMs || end - start > this.stallMs)
        this.watch.slowSuccess(kind, start, end);
      this.lastSuccess[kind] = end;
    }
    if (start < this.measureStart) {
      // Series 0 and 1: warm-up reads and writes (seriesIndex in lib/metrics/tick-latency.ts).
      if (failed) this.tickLatency.error(false);
      else this.tickLatency.record(slot.isRead ? 0 : 1, (end - start) * 1000);
      if (end >= this.measureStart) tally.inFlightAtOpen++;
      return;
    }
    const late = end >= this.stopAt;
    let bucket = late ? -1 : ((end - this.measureStart) / 1000) | 0;
    if (bucket > this.lastBucket) {
      if (this.opsLimit === undefined) bucket = this.lastBucket;
      else {
        tally.grow(bucket + 1);
        this.lastBucket = tally.readsPerSecond.length - 1;
      }
    }
    if (late && end > tally.lastLateEnd) tally.lastLateEnd = end;
    if (this.opCounts) this.opCounts[at]++;
    const br = this.benchRunSlots[at] as { count: number; micros: number };
    br.count++;
    br.micros += (end - start) * 1000;
    if (failed) {
      tally.errors++;
      this.tickLatency.error(true);
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
    // Series 2 and 3: measured reads and writes.
    this.tickLatency.record(slot.isRead ? 2 : 3, micros);
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
  }
}
