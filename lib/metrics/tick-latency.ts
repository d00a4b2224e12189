/**
 * The latency a tick carries: what completed since the last tick, counted in a fixed set of buckets
 * (Prometheus's `le` bounds, 100 µs to 10 s) per phase and kind, with the errors per phase. The engine
 * records each op's outcome into one TickLatency (a bucket search over 16 bounds and two array writes,
 * no allocation) and the ticker takes the delta once a second; worker threads' and agents' deltas add
 * up exactly, and a metrics collector sums them into cumulative `le` buckets without an observe() per op.
 *
 * An op's phase is the result's rule: measured when it started (or was due) at or after the window
 * opened, warm-up otherwise (so an op begun in the warm-up and completed in the window is warm-up's).
 */

/** The upper bounds of the buckets, in seconds (Prometheus's `le`); one more bucket holds the rest (+Inf). */
export const TICK_LATENCY_BOUNDS_SECONDS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

const BOUNDS_MICROS = Float64Array.from(TICK_LATENCY_BOUNDS_SECONDS, (s) => Math.round(s * 1e6));

const BOUND_COUNT = BOUNDS_MICROS.length;

/** Buckets per series: one per bound, and +Inf. */
export const TICK_LATENCY_SLOTS = BOUND_COUNT + 1;

export type TickPhase = 'warmup' | 'measure';
export type TickKind = 'reads' | 'writes';

/** The series a TickLatency keeps, by index: phase-major (warm-up reads, warm-up writes, measured reads, measured writes). */
const SERIES: readonly { phase: TickPhase; kind: TickKind }[] = [
  { phase: 'warmup', kind: 'reads' },
  { phase: 'warmup', kind: 'writes' },
  { phase: 'measure', kind: 'reads' },
  { phase: 'measure', kind: 'writes' },
];

/** One phase and kind's successful ops since the last tick. */
export interface LatencySeriesDelta {
  phase: TickPhase;
  kind: TickKind;
  /** Ops per bucket (not cumulative), TICK_LATENCY_SLOTS of them: bucket i holds bound i-1 < latency <= bound i. */
  counts: number[];
  /** Their summed latency (µs). */
  sumMicros: number;
}

/**
 * What completed since the last tick: each phase and kind with an op in it (absent: none), and the
 * failed ops per phase (they have no latency in the result, so none here either).
 */
export interface TickLatencyDelta {
  series: LatencySeriesDelta[];
  errors: { warmup: number; measure: number };
}

/** The series index of a phase and kind, for TickLatency.record (resolved once per op of the array). */
export function seriesIndex(measured: boolean, isRead: boolean): number {
  return (measured ? 2 : 0) + (isRead ? 0 : 1);
}

/** The recorder the engine writes into: flat typed arrays, reset by each take(). */
export class TickLatency {
  private readonly counts = new Float64Array(SERIES.length * TICK_LATENCY_SLOTS);
  private readonly sums = new Float64Array(SERIES.length);
  private errorsWarmup = 0;
  private errorsMeasured = 0;

  /** One successful op of series `series` (seriesIndex) that took `micros`. */
  record(series: number, micros: number): void {
    let slot = 0;
    // Most ops land in the first few buckets: a linear search beats a binary one there.
    while (slot < BOUND_COUNT && micros > BOUNDS_MICROS[slot]) slot++;
    this.counts[series * TICK_LATENCY_SLOTS + slot]++;
    this.sums[series] += micros;
  }

  /** One failed op. */
  error(measured: boolean): void {
    if (measured) this.errorsMeasured++;
    else this.errorsWarmup++;
  }

  /** What was recorded since the last take (undefined: nothing), and a fresh start. */
  take(): TickLatencyDelta | undefined {
    const series: LatencySeriesDelta[] = [];
    for (let s = 0; s < SERIES.length; s++) {
      const from = s * TICK_LATENCY_SLOTS;
      const counts = Array.from(this.counts.subarray(from, from + TICK_LATENCY_SLOTS));
      if (!counts.some((n) => n > 0)) continue;
      series.push({ ...SERIES[s], counts, sumMicros: this.sums[s] });
    }
    const errors = { warmup: this.errorsWarmup, measure: this.errorsMeasured };
    if (series.length === 0 && errors.warmup === 0 && errors.measure === 0) return undefined;
    this.counts.fill(0);
    this.sums.fill(0);
    this.errorsWarmup = 0;
    this.errorsMeasured = 0;
    return { series, errors };
  }
}

/** Two deltas added (worker threads' ticks merged); either may be undefined. Never mutates its arguments. */
export function addTickLatency(
  a: TickLatencyDelta | undefined,
  b: TickLatencyDelta | undefined,
): TickLatencyDelta | undefined {
  if (!a) return b && copyOf(b);
  if (!b) return copyOf(a);
  const sum = copyOf(a);
  sum.errors.warmup += b.errors.warmup;
  sum.errors.measure += b.errors.measure;
  for (const s of b.series) {
    const into = sum.series.find((t) => t.phase === s.phase && t.kind === s.kind);
    if (!into) {
      sum.series.push({ ...s, counts: [...s.counts] });
      continue;
    }
    s.counts.forEach((n, i) => (into.counts[i] += n));
    into.sumMicros += s.sumMicros;
  }
  sum.series.sort((x, y) => seriesOrder(x) - seriesOrder(y));
  return sum;
}

/** A delta moved to the warm-up phase (a warm-up run as its own step, --warmup auto: nothing in it is measured). */
export function asWarmupLatency(delta: TickLatencyDelta | undefined): TickLatencyDelta | undefined {
  if (!delta) return undefined;
  let moved: TickLatencyDelta = {
    series: [],
    errors: { warmup: delta.errors.warmup + delta.errors.measure, measure: 0 },
  };
  // Two series of one kind (warm-up and measured) become one.
  for (const s of delta.series)
    moved = addTickLatency(moved, {
      series: [{ ...s, phase: 'warmup' }],
      errors: { warmup: 0, measure: 0 },
    })!;
  return moved;
}

/**
 * The difference of two cumulative deltas (an agent's progress holds its step's running sum; the
 * coordinator turns two readings into what came between). Undefined when nothing did.
 */
export function subtractTickLatency(
  later: TickLatencyDelta | undefined,
  earlier: TickLatencyDelta | undefined,
): TickLatencyDelta | undefined {
  if (!later) return undefined;
  const diff: TickLatencyDelta = {
    series: [],
    errors: {
      warmup: Math.max(0, later.errors.warmup - (earlier?.errors.warmup ?? 0)),
      measure: Math.max(0, later.errors.measure - (earlier?.errors.measure ?? 0)),
    },
  };
  for (const s of later.series) {
    const before = earlier?.series.find((t) => t.phase === s.phase && t.kind === s.kind);
    const counts = s.counts.map((n, i) => Math.max(0, n - (before?.counts[i] ?? 0)));
    if (!counts.some((n) => n > 0)) continue;
    diff.series.push({
      ...s,
      counts,
      sumMicros: Math.max(0, s.sumMicros - (before?.sumMicros ?? 0)),
    });
  }
  if (diff.series.length === 0 && diff.errors.warmup === 0 && diff.errors.measure === 0)
    return undefined;
  return diff;
}

function seriesOrder(s: { phase: TickPhase; kind: TickKind }): number {
  return seriesIndex(s.phase === 'measure', s.kind === 'reads');
}

function copyOf(d: TickLatencyDelta): TickLatencyDelta {
  return {
    series: d.series.map((s) => ({ ...s, counts: [...s.counts] })),
    errors: { ...d.errors },
  };
}
