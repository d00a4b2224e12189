/**
 * The ops/s a result reports, checked against the figures the same result keeps, to the precision
 * their rounding allows (and no more loosely).
 *
 * How the product makes the figure (lib/metrics/step-result.ts, lib/run/outages.ts):
 *   - `opsPerSec.total` is ops / E, E the unrounded elapsed seconds, rounded to 0.1 ops/s (round1);
 *   - `elapsedSeconds` is E rounded to 1 ms;
 *   - a failed step whose server stopped answering scales that rate by Er / (Er - D), Er the
 *     rounded elapsed seconds and D the unrounded dead seconds, and keeps D rounded to 1 ms as
 *     `availability.opsPerSecExcludesSeconds`.
 * So, from the kept Er and Dr, the true E and D lie within 0.5 ms of them, and the rate before the
 * scaling within 0.05 of ops / E. The reported figure, (ops / E + r) * Er / (Er - D) with |r| <= 0.05,
 * falls as E grows and rises with D and r: its lowest value is at E = Er + 0.5 ms, D = Dr - 0.5 ms,
 * r = -0.05 and its highest at the other ends. Against the expected ops / (Er - Dr) that is a relative
 * error of about 0.5 ms / Er + 0.5 ms / (Er - Dr) plus 0.05 ops/s: 2,600 ops/s over a step of 2.5 s
 * with 1 s of it dead is off by up to ~1.5 ops/s, more than toBeCloseTo(x, 0)'s 0.5 allows.
 */

/** Half of the 1 ms to which the result rounds elapsed and dead seconds. */
const HALF_MS = 0.0005;
/** Half of the 0.1 ops/s to which the result rounds a rate. */
const HALF_RATE_STEP = 0.05;

/** The range the reported ops/s can take for `ops` over the kept elapsed (and dead) seconds. */
export function reportedRateRange(
  ops: number,
  elapsedSeconds: number,
  deadSeconds?: number,
): { low: number; high: number } {
  const reported = (elapsed: number, dead: number, rounding: number) =>
    (ops / elapsed + rounding) * (elapsedSeconds / (elapsedSeconds - dead));
  // No dead seconds kept (undefined): none were taken out, D = 0 exactly. Kept ones (0 included: under
  // half a millisecond) were D > 0 rounded.
  const dead = deadSeconds ?? 0;
  const deadSlack = deadSeconds === undefined ? 0 : HALF_MS;
  return {
    low: reported(elapsedSeconds + HALF_MS, Math.max(0, dead - deadSlack), -HALF_RATE_STEP),
    high: reported(elapsedSeconds - HALF_MS, dead + deadSlack, HALF_RATE_STEP),
  };
}

/** Expects `reported` to be ops / (elapsed - dead) to the precision the kept figures' rounding allows. */
export function expectRateOf(
  reported: number,
  ops: number,
  elapsedSeconds: number,
  deadSeconds?: number,
): void {
  const { low, high } = reportedRateRange(ops, elapsedSeconds, deadSeconds);
  // The bounds are computed in floating point too: allow their last bits.
  const ulp = 1e-9 * Math.abs(high);
  expect(reported).toBeGreaterThanOrEqual(low - ulp);
  expect(reported).toBeLessThanOrEqual(high + ulp);
}
