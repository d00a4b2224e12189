/**
 * The smallest change a comparison could see: the slowdown of B against A that the Mann-Whitney U test
 * at `alpha`, two-sided, detects with 80% power for these numbers of replicates, estimated by a seeded
 * simulation on the log scale (ops/s ratios are multiplicative) with the pooled spread the replicates
 * showed. A normal approximation would overstate the power of a rank test on few samples (at its "80%"
 * shift Mann-Whitney has about 48% power with 4+4 and 57% with 5+5), so the rejection rule simulated is
 * the very one compare applies (exact p for small samples without ties, else the normal approximation).
 *
 * Power depends only on shift / spread, so the standardized shift is found once per (m, n, alpha) by
 * bisection over one fixed set of draws (common random numbers make the power monotone in the shift)
 * and then scaled by the observed spread.
 */
import { Prng } from '../workload/language/prng';
import { exactUCounts } from './mann-whitney';
import { normalUpperTail } from '../metrics/normal-tail';

/** The power the smallest detectable change is defined at. */
export const DETECTION_POWER = 0.8;

export interface DetectableChange {
  /** Percent: a slowdown this large is detected with 80% power; null when none can be (too few replicates or no spread to scale). */
  percent: number | null;
  /** The pooled standard deviation of ln(ops/s) within each side. */
  logSpread: number | null;
  /** True when the simulated figure was below --noise and the noise floor was reported instead. */
  floored: boolean;
  /** The figure in words. */
  text: string;
}

export interface DetectableOptions {
  alpha: number;
  /** Percent: the floor (compare's --noise). */
  noise: number;
  simulations?: number;
  seed?: number;
}

/** Same threshold as mannWhitneyU's: above this many pairs its p comes from the normal approximation. */
const EXACT_LIMIT_PAIRS = 2500;

/**
 * The smallest U (of the larger side) at which mannWhitneyU's two-sided p falls below alpha, for samples
 * without ties; Infinity when no arrangement reaches it.
 */
export function criticalU(m: number, n: number, alpha: number): number {
  const pairs = m * n;
  if (pairs <= EXACT_LIMIT_PAIRS) {
    const counts = exactUCounts(m, n);
    const total = counts.reduce((a, b) => a + b, 0n);
    let upper = 0n;
    let critical = Infinity;
    for (let u = pairs; u >= Math.ceil(pairs / 2); u--) {
      upper += counts[u];
      const p = (2 * Number((upper * 1_000_000_000_000n) / total)) / 1e12;
      if (p < alpha) critical = u;
      else break;
    }
    return critical;
  }
  const sd = Math.sqrt((pairs * (m + n + 1)) / 12);
  for (let u = Math.ceil(pairs / 2); u <= pairs; u++) {
    if (2 * normalUpperTail((u - pairs / 2 - 0.5) / sd) < alpha) return u;
  }
  return Infinity;
}

function normalDraws(prng: Prng, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i += 2) {
    // Box-Muller: two independent standard normals from two uniforms.
    const u1 = 1 - prng.nextFloat();
    const u2 = prng.nextFloat();
    const r = Math.sqrt(-2 * Math.log(u1));
    out[i] = r * Math.cos(2 * Math.PI * u2);
    if (i + 1 < count) out[i + 1] = r * Math.sin(2 * Math.PI * u2);
  }
  return out;
}

const shiftCache = new Map<string, number | null>();

/**
 * The standardized shift (in units of the spread) at which the test rejects, in the direction of the
 * shift, in 80% of simulated samples of sizes m and n; null when no shift reaches it.
 */
export function detectableShift(
  m: number,
  n: number,
  alpha: number,
  simulations = 4000,
  seed = 1,
): number | null {
  const key = `${m},${n},${alpha},${simulations},${seed}`;
  if (shiftCache.has(key)) return shiftCache.get(key) ?? null;
  const critical = criticalU(m, n, alpha);
  let result: number | null = null;
  if (Number.isFinite(critical)) {
    // Keep the work bounded with many replicates: the pairs counted per shift tried.
    const sims = Math.max(500, Math.min(simulations, Math.floor(2e7 / (m * n))));
    const draws = normalDraws(new Prng(seed), sims * (m + n));
    const power = (shift: number): number => {
      let rejected = 0;
      for (let s = 0; s < sims; s++) {
        const base = s * (m + n);
        // A is at 0, B lower by `shift`: count pairs where A's value is above B's.
        let uA = 0;
        for (let i = 0; i < m; i++) {
          const a = draws[base + i];
          for (let j = 0; j < n; j++) if (a > draws[base + m + j] - shift) uA++;
        }
        if (uA >= critical) rejected++;
      }
      return rejected / sims;
    };
    let lo = 0;
    let hi = 1;
    while (power(hi) < DETECTION_POWER && hi < 1e3) hi *= 2;
    if (power(hi) >= DETECTION_POWER) {
      for (let k = 0; k < 40; k++) {
        const mid = (lo + hi) / 2;
        if (power(mid) >= DETECTION_POWER) hi = mid;
        else lo = mid;
      }
      result = hi;
    }
  }
  shiftCache.set(key, result);
  return result;
}

/** Pooled within-side standard deviation of ln(values); null when a value is not positive or there are too few. */
export function pooledLogSpread(x: readonly number[], y: readonly number[]): number | null {
  if ([...x, ...y].some((v) => !(v > 0) || !Number.isFinite(v))) return null;
  const sumSquares = (values: readonly number[]) => {
    const logs = values.map(Math.log);
    const mean = logs.reduce((s, v) => s + v, 0) / logs.length;
    return logs.reduce((s, v) => s + (v - mean) ** 2, 0);
  };
  const df = x.length + y.length - 2;
  if (df < 1) return null;
  return Math.sqrt((sumSquares(x) + sumSquares(y)) / df);
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** The smallest slowdown (percent) the test would detect with 80% power, given the replicates each side gave. */
export function minDetectableChange(
  x: readonly number[],
  y: readonly number[],
  options: DetectableOptions,
): DetectableChange {
  const trials = `${x.length}+${y.length} trials`;
  const none = (text: string, logSpread: number | null = null): DetectableChange => ({
    percent: null,
    logSpread,
    floored: false,
    text,
  });
  const shift =
    x.length >= 1 && y.length >= 1
      ? detectableShift(x.length, y.length, options.alpha, options.simulations, options.seed)
      : null;
  if (shift === null) return none(`no change is detectable with ${trials}`);
  const spread = pooledLogSpread(x, y);
  if (spread === null)
    return none(`no detectable change can be estimated: a replicate's ops/s is not positive`);
  const simulated = (1 - Math.exp(-shift * spread)) * 100;
  const floored = simulated < options.noise;
  const percent = round1(floored ? options.noise : simulated);
  const text = floored
    ? `changes smaller than ${percent}% count as noise (--noise); with ${trials} the observed spread would let the test see ${round1(simulated)}%`
    : `changes smaller than ${percent}% would be missed more than 1 time in 5 with ${trials} (from the observed spread)`;
  return { percent, logSpread: spread, floored, text };
}
