/**
 * One step's shared arrival schedule (the open model): ops are due at `arrivalTimes(...)` of the rate,
 * counted from the step's start (warm-up included), and whichever client is free takes the next due
 * op. Modelled on k6's constant- and ramping-arrival-rate executors (grafana/k6
 * lib/executor/constant_arrival_rate.go, ramping_arrival_rate.go: an iteration that finds no free VU
 * is not started and is counted in `dropped_iterations`), with a grace so that a short stall shows as
 * latency (measured from the due time) before it shows as drops:
 *
 * - on time: started at most `lateAfterMs` after its due time;
 * - late: started more than `lateAfterMs` but at most `dropAfterMs` after its due time (every client
 *   was busy, or the event loop was); it runs, and its latency counts from the due time;
 * - dropped: not started within `dropAfterMs` of its due time because every client was busy: it never
 *   runs. The next free client skips it (and every other op that old) and takes the oldest op still
 *   within the grace, so latency stays bounded by `dropAfterMs` plus one op's time at any rate.
 *
 * An op due at or after the window's close is never started (as benchRun stops before every op).
 * Due ops still waiting when the step ends were never started: dropped too, never skipped silently.
 * Counts are kept per second of the measured window by due time; ops due in the warm-up run but are
 * not counted.
 */
import { LatencyRecorder } from '../../metrics/latency';
import type { ArrivalMeasurement } from '../../metrics/measurement';
import { arrivalTimes, ScheduledRate } from '../language/rate-spec';

export type { ArrivalMeasurement };

/** An op started more than this after its due time is late (timers and a loaded event loop add a few ms). */
export const DEFAULT_LATE_AFTER_MS = 5;
/** An op that could not start within this of its due time is dropped (never started). */
export const DEFAULT_DROP_AFTER_MS = 500;

/** A thread that runs `share` of the step's clients holds the same share of its rate. */
export function scaleRate(spec: ScheduledRate, share: number): ScheduledRate {
  if (share === 1) return spec;
  if (spec.kind === 'constant')
    return { kind: 'constant', opsPerSecond: spec.opsPerSecond * share };
  return {
    kind: 'stages',
    startRate: spec.startRate * share,
    stages: spec.stages.map((s) => ({ rate: s.rate * share, seconds: s.seconds })),
  };
}

export interface ArrivalWindow {
  /** performance.now() of the step's start (warm-up included): the schedule's time 0. */
  t0: number;
  measureStart: number;
  stopAt: number;
  seconds: number;
}

export class ArrivalSchedule {
  private readonly times: Iterator<number>;
  /** Due time (performance.now()) of the next op nobody has taken; undefined when none is left. */
  private nextDue: number | undefined;
  private readonly scheduled: Float64Array;
  private readonly dropped: Float64Array;
  private readonly late: Float64Array;
  private timerWaits = 0;
  private timerLateMsSum = 0;
  /** How late each of those waits let its op start (µs): the distribution behind timerLateMsSum. */
  private readonly waitLate = new LatencyRecorder();

  constructor(
    private readonly target: ScheduledRate,
    local: ScheduledRate,
    private readonly window: ArrivalWindow,
    private readonly lateAfterMs = DEFAULT_LATE_AFTER_MS,
    private readonly dropAfterMs = DEFAULT_DROP_AFTER_MS,
    /** How free clients wait for their ops (recorded with the counts); absent: not said. */
    private readonly arrivals?: ArrivalMeasurement['arrivals'],
  ) {
    this.times = arrivalTimes(local, (window.stopAt - window.t0) / 1000);
    this.scheduled = new Float64Array(window.seconds);
    this.dropped = new Float64Array(window.seconds);
    this.late = new Float64Array(window.seconds);
    this.advance();
  }

  private advance(): void {
    const next = this.times.next();
    this.nextDue = next.done ? undefined : this.window.t0 + next.value * 1000;
  }

  /** The measured second an op due at `due` belongs to; -1 in the warm-up. */
  private bucket(due: number): number {
    if (due < this.window.measureStart) return -1;
    const b = ((due - this.window.measureStart) / 1000) | 0;
    return b >= this.window.seconds ? this.window.seconds - 1 : b;
  }

  /** Takes one op off the schedule, counting it as scheduled (and dropped when it is). */
  private take(dropped: boolean): number {
    const due = this.nextDue as number;
    const b = this.bucket(due);
    if (b >= 0) {
      this.scheduled[b]++;
      if (dropped) this.dropped[b]++;
    }
    this.advance();
    return due;
  }

  /**
   * A free client asks for its next op at `now`: ops older than the grace are dropped, and the due
   * time of the oldest op left is returned (it may lie ahead: wait for it). Undefined: the step has
   * no more ops to start.
   */
  claim(now: number): number | undefined {
    while (this.nextDue !== undefined && now - this.nextDue > this.dropAfterMs) this.take(true);
    return this.nextDue === undefined ? undefined : this.take(false);
  }

  /** The op due at `due` started at `startedAt`: late when past the tolerance. */
  noteStart(due: number, startedAt: number): void {
    if (startedAt - due > this.lateAfterMs) {
      const b = this.bucket(due);
      if (b >= 0) this.late[b]++;
    }
  }

  /**
   * The op due at `due` started at `startedAt` after its client waited for it (the client was free): how
   * late the wait (a timer, or a timer and the poller) woke it is the generator's own error, counted in
   * the measured window only. On time to the microsecond is recorded as 1 µs (the histogram's floor).
   */
  noteTimerWait(due: number, startedAt: number): void {
    if (this.bucket(due) < 0) return;
    const lateMs = startedAt - due;
    this.timerWaits++;
    this.timerLateMsSum += lateMs;
    this.waitLate.record(Math.max(lateMs * 1000, 0.001));
  }

  /**
   * The step ended at `end`: ops due in the window before then that nobody took were never started
   * (every client was busy until the end): dropped. Ops due after `end` (a step cut short) are not counted.
   */
  finish(end: number, buckets: number): ArrivalMeasurement {
    const until = Math.min(end, this.window.stopAt);
    while (this.nextDue !== undefined && this.nextDue < until) this.take(true);
    const list = (a: Float64Array) => Array.from(a.subarray(0, buckets));
    return {
      target: this.target,
      lateAfterMs: this.lateAfterMs,
      dropAfterMs: this.dropAfterMs,
      scheduled: list(this.scheduled),
      dropped: list(this.dropped),
      late: list(this.late),
      timerWaits: this.timerWaits,
      timerLateMsSum: this.timerLateMsSum,
      ...(this.timerWaits > 0 ? { waitLate: this.waitLate.encode() } : {}),
      ...(this.arrivals ? { arrivals: this.arrivals } : {}),
    };
  }
}
