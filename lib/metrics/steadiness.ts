/**
 * Is a series steady? Two questions, two tests (pure functions over plain numbers):
 *
 * - `trendTest`: does the series trend, and by enough to matter? Mann-Kendall's two-sided test for a
 *   monotonic trend, with Sen's slope (the median of all pairwise slopes) for its size. A series
 *   "trends" only when the test rejects at `alpha` AND the trend over the whole series is at least
 *   `minChangePercent` of the median. Per-second rates are autocorrelated (a busy second follows a busy
 *   second), which makes the plain test reject far too often on a steady server: the variance of S is
 *   inflated for the series' lag-1 autocorrelation, and the size threshold cuts the rest (docs/report.md
 *   gives the false-alarm rate measured on steady autocorrelated series: npm run bench:steadiness).
 * - `steadyForWarmup`: has a warm-up reached steady state? An equivalence check, not a failure to
 *   reject a trend (early on, with few points, that has no power): the last `window` values' Sen slope
 *   must be shown small, within +/- `tolerancePercent` % of their median per point.
 */
import { normalUpperTail } from './normal-tail';

export interface TrendTest {
  /** Points tested. */
  n: number;
  /** False when n < 5: "steadiness not testable (n < 5)". */
  testable: boolean;
  /**
   * Mann-Kendall two-sided p-value. Exact (Kendall's permutation distribution of S) when the series has no
   * ties, n <= 40 and no positive lag-1 autocorrelation once its Sen trend is taken out (estimated from 10
   * points or more; shorter series are not corrected); otherwise the normal approximation with the
   * tie-corrected variance, inflated for positive autocorrelation (Hamed and Rao 1998, AR(1) form), with a
   * continuity correction. Null when not testable.
   */
  pValue: number | null;
  /** Sen's slope: the median of the pairwise slopes, in the series' units per point. */
  senSlope: number | null;
  /** senSlope * (n - 1) / |median| * 100, signed: the trend over the whole series as a % of its median. */
  changePercent: number | null;
  /**
   * testable && pValue < alpha && |changePercent| >= minChangePercent (a series whose median is 0 has no
   * changePercent: it trends when pValue < alpha).
   */
  trending: boolean;
}

export interface TrendOptions {
  /** Two-sided significance level (default 0.05). */
  alpha?: number;
  /** The smallest trend over the series, in % of its median, that counts (default 10). */
  minChangePercent?: number;
}

export interface WarmupOptions {
  /** How many of the last values are judged (default 10). */
  window?: number;
  /** The largest slope per point, in % of the window's median, that counts as steady (default 1). */
  tolerancePercent?: number;
}

/** The fewest points the trend test is run on. */
export const MIN_TREND_POINTS = 5;
/** The message recorded when a series is too short to test. */
export const NOT_TESTABLE_MESSAGE = `steadiness not testable (n < ${MIN_TREND_POINTS})`;

const EXACT_MAX_N = 40;
/**
 * The autocorrelation correction needs a lag-1 autocorrelation estimated from at least this many
 * residuals: from fewer it is mostly noise (a 5-point residual's r1 is positive half the time on white
 * noise), and the inflation it brings made a clean 5-second trend pass or fail by chance.
 */
const AUTOCORRELATION_MIN_N = 10;

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Sen's slope: the median of (x[j] - x[i]) / (j - i) over all pairs i < j. */
export function senSlope(values: readonly number[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < values.length; i++) {
    for (let j = i + 1; j < values.length; j++) slopes.push((values[j] - values[i]) / (j - i));
  }
  return slopes.length === 0 ? 0 : medianOf(slopes);
}

/** Mann-Kendall's S: the number of increasing pairs less the number of decreasing ones. */
function kendallS(values: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) {
    for (let j = i + 1; j < values.length; j++) s += Math.sign(values[j] - values[i]);
  }
  return s;
}

/** Sizes of the groups of equal values (only groups of 2 or more). */
function tieGroups(values: readonly number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const groups: number[] = [];
  let run = 1;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i] === sorted[i - 1]) run++;
    else {
      if (run > 1) groups.push(run);
      run = 1;
    }
  }
  return groups;
}

/**
 * P(|S| >= |s|) under the null for n distinct values: S = n(n-1)/2 - 2 * inversions, and the number of
 * permutations with k inversions (Mahonian numbers) comes from the usual recurrence.
 */
function exactTwoSidedP(n: number, s: number): number {
  const maxInv = (n * (n - 1)) / 2;
  let counts = [1];
  for (let m = 2; m <= n; m++) {
    const next = new Array<number>(counts.length + m - 1).fill(0);
    for (let k = 0; k < counts.length; k++) {
      for (let add = 0; add < m; add++) next[k + add] += counts[k];
    }
    counts = next;
  }
  const total = counts.reduce((a, b) => a + b, 0);
  const absS = Math.abs(s);
  let tail = 0;
  for (let inv = 0; inv <= maxInv; inv++) {
    if (Math.abs(maxInv - 2 * inv) >= absS) tail += counts[inv];
  }
  return Math.min(1, tail / total);
}

/**
 * Lag-1 autocorrelation of the series less its Sen trend (the trend itself would look like autocorrelation).
 * 0 for fewer than 3 points or a constant residual.
 */
function lag1Autocorrelation(values: readonly number[], slope: number): number {
  const n = values.length;
  if (n < 3) return 0;
  const residuals = values.map((v, i) => v - slope * i);
  const mean = residuals.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    const d = residuals[i] - mean;
    den += d * d;
    if (i + 1 < n) num += d * (residuals[i + 1] - mean);
  }
  return den === 0 ? 0 : num / den;
}

/**
 * Hamed and Rao's (1998) variance inflation for autocorrelated series, with the autocorrelation at lag k
 * taken as r1^k (an AR(1) model of the residuals): n / n* = 1 + 2 / (n(n-1)(n-2)) * sum (n-k)(n-k-1)(n-k-2) r1^k.
 * Only positive autocorrelation inflates; r1 is capped at 0.95.
 */
function varianceInflation(n: number, r1: number): number {
  if (r1 <= 0 || n < 3) return 1;
  const r = Math.min(r1, 0.95);
  let sum = 0;
  let rk = 1;
  for (let k = 1; k < n; k++) {
    rk *= r;
    if (rk < 1e-12) break;
    sum += (n - k) * (n - k - 1) * (n - k - 2) * rk;
  }
  return 1 + (2 * sum) / (n * (n - 1) * (n - 2));
}

function mannKendallP(values: readonly number[], slope: number): number {
  const n = values.length;
  const s = kendallS(values);
  const ties = tieGroups(values);
  const inflation =
    n >= AUTOCORRELATION_MIN_N ? varianceInflation(n, lag1Autocorrelation(values, slope)) : 1;
  if (ties.length === 0 && n <= EXACT_MAX_N && inflation === 1) return exactTwoSidedP(n, s);
  const tieTerm = ties.reduce((sum, t) => sum + t * (t - 1) * (2 * t + 5), 0);
  const variance = ((n * (n - 1) * (2 * n + 5) - tieTerm) / 18) * inflation;
  if (variance <= 0 || s === 0) return 1;
  const z = (s - Math.sign(s)) / Math.sqrt(variance);
  return Math.min(1, 2 * normalUpperTail(Math.abs(z)));
}

/** Mann-Kendall with Sen's slope; see the module's comment. Non-finite values are left out. */
export function trendTest(values: readonly number[], options: TrendOptions = {}): TrendTest {
  const alpha = options.alpha ?? 0.05;
  const minChangePercent = options.minChangePercent ?? 10;
  const series = values.filter((v) => Number.isFinite(v));
  const n = series.length;
  if (n < MIN_TREND_POINTS)
    return {
      n,
      testable: false,
      pValue: null,
      senSlope: null,
      changePercent: null,
      trending: false,
    };
  const slope = senSlope(series);
  const pValue = mannKendallP(series, slope);
  const median = Math.abs(medianOf(series));
  const changePercent = median > 0 ? (slope * (n - 1) * 100) / median : slope === 0 ? 0 : null;
  const trending =
    pValue < alpha && changePercent !== null && Math.abs(changePercent) >= minChangePercent;
  return {
    n,
    testable: true,
    pValue,
    senSlope: slope,
    changePercent,
    trending: trending || (changePercent === null && pValue < alpha),
  };
}

/**
 * Warm-up stop rule: the last `window` (10) values' Sen slope is within +/- `tolerancePercent` (1) % of
 * their median per point. False while fewer than `window` values exist, or when the window's median is 0
 * (nothing measured yet is not steady).
 */
export function steadyForWarmup(values: readonly number[], options: WarmupOptions = {}): boolean {
  const window = options.window ?? 10;
  const tolerancePercent = options.tolerancePercent ?? 1;
  if (values.length < window || window < 2) return false;
  const tail = values.slice(values.length - window);
  if (tail.some((v) => !Number.isFinite(v))) return false;
  const median = Math.abs(medianOf(tail));
  if (median === 0) return false;
  return Math.abs(senSlope(tail)) <= (tolerancePercent / 100) * median;
}
