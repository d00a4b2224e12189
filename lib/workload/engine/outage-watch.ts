/**
 * One kind's outages and the delayed ops of one step (docs/reliability.md). Kind K (reads or writes) is
 * out when an op of K has been in flight for stallMs while no op of K succeeded, or ops of K fail with a
 * not-primary error and none of K has succeeded for stallMs; the outage runs from K's last success to
 * its next. A successful op slower than stallMs outside its kind's outage is delayed.
 *
 * What the hot path pays: a client's op start goes into its in-flight slot (one number per client, its
 * sign the kind) and is cleared at its end, and a success stores its kind's last success. The rest runs
 * only on a failure, on a success after a gap of stallMs or slower than it, and on the check timer.
 */
import { ERROR_CLASSES } from '../../result/steps';
import { classifyError, ERROR_CLASS_INDEX, errorsByClassOf } from '../../metrics/error-class';
import { LongestOp, MeasuredOutage } from '../../metrics/measurement';

export const READ = 0;
export const WRITE = 1;
const KIND_NAMES = ['reads', 'writes'] as const;
const NOT_PRIMARY = ERROR_CLASS_INDEX.notWritablePrimary;

/** A kind's outage in this step's clock (performance.now()); the counts by class index. */
interface KindOutage {
  kind: 0 | 1;
  start: number;
  end?: number;
  counts: Float64Array;
  opsFailed: number;
}

export class OutageWatch {
  readonly stallMs: number;
  /** Each kind's last success (performance.now()); the step's start before any. */
  readonly lastSuccess = new Float64Array(2);
  /** Per client (its index in the step): the start of its op in flight, + a read, - a write; 0: none. */
  readonly inFlight: Float64Array;
  /**
   * Failed ops of each kind since its last success, by class, and whether one was not-primary: reset
   * lazily by the next failure after a success (`failedAt` older than the last success: stale), so a
   * success costs nothing here.
   */
  private readonly failedSinceCount = new Float64Array(2);
  private readonly failedAt = new Float64Array(2).fill(-Infinity);
  private readonly failedSince = [
    new Float64Array(ERROR_CLASSES.length),
    new Float64Array(ERROR_CLASSES.length),
  ];
  private readonly notPrimarySince = [false, false];
  /** Whether the kind is out now (since its last success). */
  private readonly out = [false, false];
  /** Where each kind's last outage closed: an op started before it was caught in it, not delayed. */
  private readonly outageEnd = new Float64Array(2);
  private readonly outages: KindOutage[] = [];
  private readonly measureStart: number;
  opsDelayed = 0;
  private longestFailed: LongestOp | undefined;

  /** When the window closes: no op starts after it, so a kind's stall must have been reached before it. */
  private readonly stopAt: number;

  constructor(clients: number, stallMs: number, t0: number, measureStart: number, stopAt: number) {
    this.stallMs = stallMs;
    this.stopAt = stopAt;
    this.inFlight = new Float64Array(clients);
    this.lastSuccess.fill(t0);
    this.outageEnd.fill(-Infinity);
    this.measureStart = measureStart;
  }

  /** Whether a client has had an op of kind `k` in flight since `before` or earlier. */
  private inFlightSince(k: number, before: number): boolean {
    const slots = this.inFlight;
    for (let c = 0; c < slots.length; c++) {
      const v = slots[c];
      if (k === READ ? v > 0 && v <= before : v < 0 && -v <= before) return true;
    }
    return false;
  }

  /**
   * Whether kind `k` is out at `at` (or, with `opStart`, was just before that op ended). Past the window's
   * close no op starts, so no success could come: the stall counts as reached by the close.
   */
  private isOut(k: number, at: number, opStart?: number): boolean {
    const now = Math.min(at, this.stopAt);
    if (now - this.lastSuccess[k] < this.stallMs) return false;
    const before = now - this.stallMs;
    return (
      (this.notPrimarySince[k] && this.failedAt[k] >= this.lastSuccess[k]) ||
      (opStart !== undefined && opStart <= before) ||
      this.inFlightSince(k, before)
    );
  }

  /** The check timer: marks the kinds out now. */
  check(now: number): void {
    if (!this.out[READ] && this.isOut(READ, now)) this.out[READ] = true;
    if (!this.out[WRITE] && this.isOut(WRITE, now)) this.out[WRITE] = true;
  }

  /** Kinds out now: when each went out (its last success, performance.now()). */
  outSince(): { reads?: number; writes?: number } {
    const o: { reads?: number; writes?: number } = {};
    if (this.out[READ]) o.reads = this.lastSuccess[READ];
    if (this.out[WRITE]) o.writes = this.lastSuccess[WRITE];
    return o;
  }

  /**
   * A success of kind `k` after a gap of stallMs since the last, or slower than stallMs: it closes the
   * kind's outage, or it was delayed. Called before lastSuccess moves on.
   */
  slowSuccess(k: 0 | 1, start: number, end: number): void {
    const last = this.lastSuccess[k];
    if (this.out[k] || this.isOut(k, end, start)) {
      this.outages.push({ kind: k, start: last, end, ...this.failuresSince(k) });
      this.out[k] = false;
      this.outageEnd[k] = end;
      return;
    }
    if (end - start > this.stallMs && start >= this.outageEnd[k] && start >= this.measureStart)
      this.opsDelayed++;
  }

  /** The kind's failures since its last success (none when the last failure came before it). */
  private failuresSince(k: 0 | 1): { counts: Float64Array; opsFailed: number } {
    if (this.failedAt[k] < this.lastSuccess[k])
      return { counts: new Float64Array(ERROR_CLASSES.length), opsFailed: 0 };
    return { counts: this.failedSince[k].slice(), opsFailed: this.failedSinceCount[k] };
  }

  /** A failed op of kind `k`: counted by class; it may put the kind out. Returns its class index. */
  failed(k: 0 | 1, start: number, end: number, failure: unknown, index: number): number {
    const cls = ERROR_CLASS_INDEX[classifyError(failure)];
    if (this.failedAt[k] < this.lastSuccess[k]) {
      this.failedSince[k].fill(0);
      this.failedSinceCount[k] = 0;
      this.notPrimarySince[k] = false;
    }
    this.failedAt[k] = end;
    this.failedSince[k][cls]++;
    this.failedSinceCount[k]++;
    if (cls === NOT_PRIMARY) this.notPrimarySince[k] = true;
    if (!this.out[k] && this.isOut(k, end, start)) this.out[k] = true;
    const micros = (end - start) * 1000;
    if (!this.longestFailed || micros > this.longestFailed.micros)
      this.longestFailed = { kind: KIND_NAMES[k], index, micros, failed: true };
    return cls;
  }

  /** The slowest failed op, if any failed. */
  get longestFailedOp(): LongestOp | undefined {
    return this.longestFailed;
  }

  /** At the step's end: the outages found, those still out left open; `toEpoch` turns instants into epoch ms. */
  finish(now: number, toEpoch: (t: number) => number): MeasuredOutage[] {
    this.check(now);
    const all = [...this.outages];
    for (const k of [READ, WRITE] as const)
      if (this.out[k]) all.push({ kind: k, start: this.lastSuccess[k], ...this.failuresSince(k) });
    // The step's availability is its measured window's: an outage over before the window opened (in the
    // warm-up) is left out, one that goes on into the window counts from its opening.
    return all
      .filter((o) => o.end === undefined || o.end > this.measureStart)
      .map((o) => (o.start < this.measureStart ? { ...o, start: this.measureStart } : o))
      .sort((a, b) => a.start - b.start)
      .map((o) => {
        const errorsByClass = errorsByClassOf(o.counts);
        return {
          kind: KIND_NAMES[o.kind],
          start: toEpoch(o.start),
          ...(o.end !== undefined ? { end: toEpoch(o.end) } : {}),
          ...(errorsByClass ? { errorsByClass } : {}),
          opsFailed: o.opsFailed,
        };
      });
  }
}
