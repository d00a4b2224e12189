/**
 * Drawing ops by weight (the `weight` field, a mongo-bench extension of benchRun's op spec): a client
 * of a weighted workload draws each next op at random, op i with probability weight[i] / sum, instead
 * of running the ops array in order. Each client draws from its own generator seeded from the step's
 * seed and its index, so a run repeats with the same --seed and the templates' draws stay as they were.
 */
import { Prng } from './prng';

/** Mixed into a client's seed so the op draws do not replay the template generator's sequence. */
const PICK_SEED_SALT = 0x5bd1e995;

export type OpPicker = () => number;

/**
 * A picker over the given weights (each > 0), or undefined when no op carries a weight (the ops
 * then run in order, as benchRun runs them).
 */
export function weightedOpPicker(
  weights: readonly (number | undefined)[],
  seed: number,
): OpPicker | undefined {
  if (!weights.some((w) => w !== undefined)) return undefined;
  const cumulative = new Float64Array(weights.length);
  let total = 0;
  weights.forEach((w, i) => {
    if (w === undefined || !(w > 0) || !Number.isFinite(w))
      throw new RangeError(`op ${i}: weight must be a finite number > 0, got ${String(w)}`);
    total += w;
    cumulative[i] = total;
  });
  const rng = new Prng((seed ^ PICK_SEED_SALT) >>> 0);
  const last = weights.length - 1;
  return () => {
    return cumulativeIndex(cumulative, rng.nextFloat() * total, last);
  };
}

/**
 * The first index whose cumulative weight exceeds x (binary search: captured workloads and #PICK
 * lists have many entries). `last` is the index of the final entry.
 */
export function cumulativeIndex(cumulative: ArrayLike<number>, x: number, last: number): number {
  let lo = 0;
  let hi = last;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid] > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
