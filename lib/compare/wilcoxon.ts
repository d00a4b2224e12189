/**
 * The Wilcoxon signed-rank test, two-sided, on paired differences (here: the per-round log ratios
 * ln(B/A) of an interleaved comparison). Zero differences are dropped (Wilcoxon's convention); tied
 * magnitudes share their average rank. Exact p (the null distribution of W+ counted over all 2^n sign
 * assignments) when there are no ties and n <= 30; otherwise the normal approximation with the tie
 * correction of the variance and a continuity correction of 0.5 (scipy.stats.wilcoxon's "approx").
 * With n pairs the smallest two-sided p is 2 / 2^n: 0.0625 for 5, 0.031 for 6.
 */
import { normalUpperTail } from '../metrics/normal-tail';

export interface WilcoxonResult {
  /** Sum of the ranks of the positive differences. */
  wPlus: number;
  /** Pairs used (non-zero differences). */
  n: number;
  pValue: number;
  method: 'exact' | 'normal approximation with tie correction';
}

const EXACT_MAX_N = 30;

/** Counts of sign assignments giving W+ = 0 .. n(n+1)/2 for ranks 1..n. */
export function signedRankCounts(n: number): number[] {
  const max = (n * (n + 1)) / 2;
  const counts = new Array<number>(max + 1).fill(0);
  counts[0] = 1;
  for (let r = 1; r <= n; r++) for (let w = max; w >= r; w--) counts[w] += counts[w - r];
  return counts;
}

/** The smallest two-sided p reachable with n pairs. */
export function smallestSignedRankP(n: number): number {
  return Math.min(1, 2 / 2 ** n);
}

export function wilcoxonSignedRank(differences: readonly number[]): WilcoxonResult {
  const d = differences.filter((v) => v !== 0 && Number.isFinite(v));
  const n = d.length;
  if (n === 0) return { wPlus: 0, n: 0, pValue: 1, method: 'exact' };
  const order = d.map((v, i) => ({ a: Math.abs(v), i })).sort((p, q) => p.a - q.a);
  const ranks = new Array<number>(n);
  const ties: number[] = [];
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && order[end].a === order[start].a) end++;
    for (let k = start; k < end; k++) ranks[order[k].i] = (start + 1 + end) / 2;
    if (end - start > 1) ties.push(end - start);
    start = end;
  }
  const wPlus = d.reduce((s, v, i) => s + (v > 0 ? ranks[i] : 0), 0);
  if (ties.length === 0 && n <= EXACT_MAX_N) {
    const counts = signedRankCounts(n);
    const total = 2 ** n;
    let lower = 0;
    for (let w = 0; w <= wPlus; w++) lower += counts[w];
    let upper = 0;
    for (let w = wPlus; w < counts.length; w++) upper += counts[w];
    return { wPlus, n, pValue: Math.min(1, (2 * Math.min(lower, upper)) / total), method: 'exact' };
  }
  const mean = (n * (n + 1)) / 4;
  const variance =
    (n * (n + 1) * (2 * n + 1)) / 24 - ties.reduce((s, t) => s + (t * t * t - t), 0) / 48;
  if (variance <= 0)
    return { wPlus, n, pValue: 1, method: 'normal approximation with tie correction' };
  const z = (Math.abs(wPlus - mean) - 0.5) / Math.sqrt(variance);
  return {
    wPlus,
    n,
    pValue: Math.min(1, 2 * normalUpperTail(Math.max(0, z))),
    method: 'normal approximation with tie correction',
  };
}
