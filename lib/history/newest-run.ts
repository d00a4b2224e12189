/**
 * The newest-run check: a gate for series too short for E-Divisive (which needs about 10 runs before a
 * permutation test can reach its p-value) and for a collapse that E-Divisive has not yet seen enough of.
 *
 * Each run, oldest first, is checked against its baseline: the runs since the start (the series' first
 * run, the newest improvement change point, or `--accept`) and before the newest regression change
 * point or the run that opened the current streak of failed checks. So a collapse that persists keeps
 * failing, night after night, until it is accepted as the new baseline (`history --accept TIME`); a
 * single noisy night that the next run does not repeat is forgotten.
 *
 * The check fails when the newest run is worse than the baseline's median by more than
 * max(--threshold, 4 x scale), where the scale is max(1.4826 x MAD of the baseline (with the
 * small-sample factor of Croux & Rousseeuw 1992), the baseline's standard deviation, the pooled
 * within-run spread of the trials (ops/s, from trialStats), 1%), all relative to the median. The MAD of
 * three runs can be near zero, and the MAD of nine underestimates the spread often enough that a
 * 10-run history of 2% noise false-alarmed in about 2% of stores: the standard deviation (which an
 * outlier can only raise, making the gate more cautious), the within-run spread and the 1% floor keep
 * the scale honest. For the
 * error rate (percent of ops, often 0) the change is in percentage points and the limit is
 * max(1 point, 4 x 1.4826 x MAD).
 */
import type { RunRef } from './series';

/** Runs a baseline needs before the newest-run check tests a run. */
export const NEWEST_RUN_BASELINE = 3;
/** Runs a series needs before E-Divisive is run on it. */
export const E_DIVISIVE_MIN_RUNS = 10;
/** The floor of the noise scale, percent. */
export const SCALE_FLOOR_PERCENT = 1;
/** The check fails beyond this many noise scales (or the threshold, whichever is larger). */
export const SCALE_MULTIPLE = 4;

export interface NewestRunCheck {
  tested: boolean;
  /** Why the newest run was not checked. */
  reason?: string;
  /** The baseline's runs (first and last) and their median. */
  baseline?: { first: RunRef; last: RunRef; runs: number; median: number };
  newest?: RunRef & { value: number };
  /** Newest against the baseline's median, percent (percentage points for the error rate); positive is a rise. */
  changePercent?: number;
  /** The noise scale, percent of the median (percentage points for the error rate). */
  scalePercent?: number;
  /** The limit a worsening must exceed to fail: max(threshold, 4 x scale). */
  limitPercent?: number;
  failed: boolean;
}

export interface NewestRunInput {
  points: readonly (RunRef & { value: number; trialSpread?: number })[];
  higherIsBetter: boolean;
  /** Percentage points instead of percent (the error rate). */
  absolute: boolean;
  threshold: number;
  /** Index of the first run of the baseline (accepted, or the newest improvement). */
  start: number;
  /** Index of the newest regression change point, if any. */
  regressionAt?: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Croux & Rousseeuw's small-sample correction of the MAD (n = 2..9); about n / (n - 0.8) beyond. */
const MAD_SMALL_SAMPLE: Record<number, number> = {
  2: 1.196,
  3: 1.495,
  4: 1.363,
  5: 1.206,
  6: 1.2,
  7: 1.14,
  8: 1.129,
  9: 1.107,
};

function check(input: NewestRunInput, i: number, baselineEnd: number): NewestRunCheck {
  const { points, start } = input;
  const baseline = points.slice(start, baselineEnd);
  const newest = points[i];
  const ref = (p: RunRef): RunRef => ({ startedAt: p.startedAt, label: p.label, source: p.source });
  if (baseline.length < NEWEST_RUN_BASELINE) {
    return {
      tested: false,
      reason: `series too short: ${baseline.length} run${baseline.length === 1 ? '' : 's'} before the newest${start > 0 ? ' since its baseline began' : ''} (the newest-run check needs ${NEWEST_RUN_BASELINE}, E-Divisive ${E_DIVISIVE_MIN_RUNS} in all)`,
      failed: false,
    };
  }
  const values = baseline.map((p) => p.value);
  const center = median(values);
  const n = values.length;
  const mad =
    1.4826 *
    (MAD_SMALL_SAMPLE[n] ?? n / (n - 0.8)) *
    median(values.map((v) => Math.abs(v - center)));
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
  let change: number;
  let scale: number;
  let limit: number;
  if (input.absolute) {
    change = newest.value - center;
    scale = Math.max(mad, sd);
    limit = Math.max(1, SCALE_MULTIPLE * scale);
  } else {
    if (!(center > 0)) return { tested: false, reason: 'the baseline median is 0', failed: false };
    change = ((newest.value - center) / center) * 100;
    const spreads = [...baseline, newest].flatMap((p) =>
      p.trialSpread !== undefined ? [p.trialSpread] : [],
    );
    const pooled =
      spreads.length > 0
        ? Math.sqrt(spreads.reduce((s, v) => s + v * v, 0) / spreads.length) * 100
        : 0;
    scale = Math.max((mad / center) * 100, (sd / center) * 100, pooled, SCALE_FLOOR_PERCENT);
    limit = Math.max(input.threshold, SCALE_MULTIPLE * scale);
  }
  const worsening = input.higherIsBetter ? -change : change;
  return {
    tested: true,
    baseline: {
      first: ref(baseline[0]),
      last: ref(baseline[baseline.length - 1]),
      runs: baseline.length,
      median: center,
    },
    newest: { ...ref(newest), value: newest.value },
    changePercent: change,
    scalePercent: scale,
    limitPercent: limit,
    failed: worsening > limit,
  };
}

/** The newest run of a series against its baseline, walking the series so that failed checks persist. */
export function newestRunCheck(input: NewestRunInput): NewestRunCheck {
  const n = input.points.length;
  if (n === 0) return { tested: false, reason: 'no runs', failed: false };
  let streakStart: number | undefined;
  let last: NewestRunCheck = check(input, n - 1, n - 1);
  for (let i = input.start + 1; i < n; i++) {
    let end = i;
    if (
      input.regressionAt !== undefined &&
      input.regressionAt > input.start &&
      input.regressionAt <= i
    )
      end = Math.min(end, input.regressionAt);
    if (streakStart !== undefined) end = Math.min(end, streakStart);
    const result = check(input, i, end);
    if (result.failed) streakStart ??= i;
    else if (result.tested) streakStart = undefined;
    if (i === n - 1) last = result;
  }
  return last;
}
