/**
 * The Mann-Whitney U test (Wilcoxon rank-sum), two-sided: do two samples come from the same
 * distribution, or does one tend to be larger? Rank-based, so it assumes nothing about the shape of
 * the per-second rates (which are often skewed by a slow second or two).
 *
 * Exact p-value when there are no ties and the samples are small enough to enumerate (the null
 * distribution of U, counted with BigInt); otherwise the normal approximation with the tie
 * correction of the variance and a continuity correction of 0.5 (as scipy.stats.mannwhitneyu's
 * "asymptotic" method with use_continuity=True).
 */
import { normalUpperTail } from '../metrics/normal-tail';

export interface MannWhitneyResult {
  /** U of the second sample: pairs (x, y) with y > x, ties counting 1/2. */
  uY: number;
  /** U of the first sample (uX + uY = nX * nY). */
  uX: number;
  /** Two-sided p-value. */
  pValue: number;
  method: 'exact' | 'normal approximation with tie correction';
  /** The z statistic (normal approximation only). */
  z?: number;
}

/** Above this many pairs the exact distribution is not enumerated (and the normal approximation is good). */
const EXACT_LIMIT_PAIRS = 2500;

/** Average ranks (1-based) of the pooled values, and the sizes of the groups of tied values. */
function rankWithTies(values: number[]): { ranks: number[]; tieSizes: number[] } {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const ranks = new Array<number>(values.length);
  const tieSizes: number[] = [];
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && order[end].v === order[start].v) end++;
    const rank = (start + 1 + end) / 2; // the mean of ranks start+1 .. end
    for (let k = start; k < end; k++) ranks[order[k].i] = rank;
    if (end - start > 1) tieSizes.push(end - start);
    start = end;
  }
  return { ranks, tieSizes };
}

/**
 * Counts of the arrangements giving U = 0 .. m*n for samples of sizes m and n (no ties): the
 * coefficients of the Gaussian binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
 */
export function exactUCounts(m: number, n: number): bigint[] {
  const size = m * n + 1;
  let poly: bigint[] = new Array<bigint>(size).fill(0n);
  poly[0] = 1n;
  for (let i = 1; i <= m; i++) {
    // Multiply by (1 - q^(n+i)) ...
    const next = poly.slice();
    for (let k = size - 1; k >= n + i; k--) next[k] -= poly[k - (n + i)];
    // ... and divide by (1 - q^i): the quotient is exact, a running sum with stride i.
    for (let k = i; k < size; k++) next[k] += next[k - i];
    poly = next;
  }
  return poly;
}

/** 'auto': exact where possible (no ties, few pairs), else normal; 'normal' forces the approximation. */
export type MannWhitneyMethod = 'auto' | 'normal';

export function mannWhitneyU(
  x: readonly number[],
  y: readonly number[],
  method: MannWhitneyMethod = 'auto',
): MannWhitneyResult {
  const m = x.length;
  const n = y.length;
  if (m === 0 || n === 0) throw new Error('mannWhitneyU: both samples need at least one value');
  const { ranks, tieSizes } = rankWithTies([...x, ...y]);
  const rankSumX = ranks.slice(0, m).reduce((a, b) => a + b, 0);
  const uX = rankSumX - (m * (m + 1)) / 2;
  const uY = m * n - uX;
  const big = Math.max(uX, uY);

  if (method === 'auto' && tieSizes.length === 0 && m * n <= EXACT_LIMIT_PAIRS) {
    const counts = exactUCounts(m, n);
    const total = counts.reduce((a, b) => a + b, 0n);
    // P(U >= big): the distribution is symmetric, so the two-sided p is twice the upper tail.
    let upper = 0n;
    for (let u = Math.round(big); u < counts.length; u++) upper += counts[u];
    const p = (2 * Number((upper * 1_000_000_000_000n) / total)) / 1e12;
    return { uX, uY, pValue: Math.min(1, p), method: 'exact' };
  }

  const N = m + n;
  const tieTerm = tieSizes.reduce((a, t) => a + (t * t * t - t), 0);
  const variance = ((m * n) / 12) * (N + 1 - tieTerm / (N * (N - 1)));
  if (variance <= 0)
    return { uX, uY, pValue: 1, method: 'normal approximation with tie correction', z: 0 }; // every value equal
  const z = (big - (m * n) / 2 - 0.5) / Math.sqrt(variance);
  return {
    uX,
    uY,
    pValue: Math.min(1, 2 * normalUpperTail(z)),
    method: 'normal approximation with tie correction',
    z,
  };
}
