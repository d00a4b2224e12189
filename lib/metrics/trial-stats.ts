/** Statistics across trials of one step (as mongo-perf reports them). */
import { TrialStats } from '../result';

export function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Sample standard deviation (n - 1); 0 for fewer than two values. */
export function stdev(values: number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  const squares = values.reduce((s, v) => s + (v - m) * (v - m), 0);
  return Math.sqrt(squares / (values.length - 1));
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

export function trialStats(values: number[]): TrialStats {
  return {
    mean: round2(mean(values)),
    median: round2(median(values)),
    stdev: round2(stdev(values)),
    values: values.map(round2),
  };
}
