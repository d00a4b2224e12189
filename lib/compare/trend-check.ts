/**
 * No verdict on replicates that trend. Trials that rise (a JVM or a cache warming) or fall (a disk
 * filling) are not replicates of one state: a test on them compares moments, not configurations.
 *
 * - Sequential results (each side measured at its own time): each side's trials in time order, and
 *   each trial's seconds (closed model: the per-second ops/s; an open-model step's rate is set by its
 *   schedule, so its seconds are not tested here), by Mann-Kendall with Sen's slope at alpha 0.05 and a
 *   trend of at least 10% of the median over the series (lib/metrics/steadiness.ts trendTest).
 * - Interleaved results (compare --run): a drift both sides share is what interleaving cancels; the
 *   per-round ratio B/A is tested instead (Mann-Kendall is rank-based, so the ratio and its log give
 *   the same p; the size is the ratio's Sen trend).
 */
import { perSecondRate, type StepResult } from '../result';
import { trendTest, TrendTest } from '../metrics/steadiness';

export const TREND_ALPHA = 0.05;

function describe(t: TrendTest, over: string): string {
  const change =
    t.changePercent === null
      ? 'from 0'
      : `${t.changePercent >= 0 ? '+' : ''}${t.changePercent.toFixed(1)}%`;
  return `${change} over ${over} (Mann-Kendall p ${t.pValue?.toFixed(3)})`;
}

/** Why a side's replicates are not steady, or undefined when nothing trended (or nothing was testable). */
export function sideTrend(side: 'A' | 'B', steps: readonly StepResult[]): string | undefined {
  for (const step of steps) {
    const trials = step.trialStats?.opsPerSec.values ?? [];
    const t = trendTest(trials, { alpha: TREND_ALPHA });
    if (t.trending) return `${side}'s trials trend: ${describe(t, `${trials.length} trials`)}`;
    if (step.arrival) continue;
    const byTrial = new Map<number, number[]>();
    for (const s of step.perSecond) {
      const list = byTrial.get(s.trial ?? 1) ?? [];
      list.push(perSecondRate(s, s.reads + s.writes));
      byTrial.set(s.trial ?? 1, list);
    }
    for (const [trial, seconds] of byTrial) {
      const st = trendTest(seconds, { alpha: TREND_ALPHA });
      if (st.trending)
        return `${side}'s ${byTrial.size > 1 ? `trial ${trial}'s ` : ''}seconds trend: ${describe(st, `${seconds.length} s`)}`;
    }
  }
  return undefined;
}

/** Why the per-round ratios B/A of an interleaved comparison drift, or undefined. */
export function roundRatioTrend(a: readonly number[], b: readonly number[]): string | undefined {
  const ratios = a
    .map((x, i) => (x > 0 && b[i] !== undefined ? b[i] / x : NaN))
    .filter(Number.isFinite);
  const t = trendTest(ratios, { alpha: TREND_ALPHA });
  return t.trending
    ? `the per-round ratio B/A trends: ${describe(t, `${ratios.length} rounds`)}`
    : undefined;
}

/** Why a result's replicates are not steady (its first step whose trials or seconds trend), or undefined. */
export function resultTrend(steps: readonly StepResult[]): string | undefined {
  for (const step of steps) {
    const why = sideTrend('B', [step]);
    if (why)
      return `at ${step.clients} client${step.clients === 1 ? '' : 's'}, ${why.replace(/^B's /, 'the ')}`;
  }
  return undefined;
}
