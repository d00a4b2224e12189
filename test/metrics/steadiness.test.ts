import {
  MIN_TREND_POINTS,
  NOT_TESTABLE_MESSAGE,
  senSlope,
  steadyForWarmup,
  trendTest,
} from '../../lib/metrics/steadiness';
import { Prng } from '../../lib/workload/language/prng';

/** A standard normal draw (Box-Muller) from the seeded PRNG. */
function gaussian(rng: Prng): number {
  const u = 1 - rng.nextFloat();
  const v = rng.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A steady AR(1) series around `mean`: x[t] = mean + phi * (x[t-1] - mean) + noise, noise's sd = cv * mean. */
function ar1(rng: Prng, n: number, mean: number, phi: number, cv: number): number[] {
  const out: number[] = [];
  // Start from the stationary distribution, so the series is steady from its first point.
  let dev = (gaussian(rng) * cv * mean) / Math.sqrt(1 - phi * phi);
  for (let i = 0; i < n; i++) {
    out.push(mean + dev);
    dev = phi * dev + gaussian(rng) * cv * mean;
  }
  return out;
}

describe('trendTest', () => {
  it('is not testable below 5 points, and says so', () => {
    const t = trendTest([1, 2, 3, 4]);
    expect(t).toEqual({
      n: 4,
      testable: false,
      pValue: null,
      senSlope: null,
      changePercent: null,
      trending: false,
    });
    expect(MIN_TREND_POINTS).toBe(5);
    expect(NOT_TESTABLE_MESSAGE).toBe('steadiness not testable (n < 5)');
  });

  it('gives the exact p-value without ties (5 increasing points: 2 of 120 orderings are as extreme)', () => {
    const t = trendTest([10, 20, 30, 40, 50]);
    expect(t.pValue).toBeCloseTo(2 / 120, 10);
    expect(t.senSlope).toBe(10);
    // 10 per point * 4 points / median 30 = 133%.
    expect(t.changePercent).toBeCloseTo(133.33, 1);
    expect(t.trending).toBe(true);
  });

  it('exact and normal approximation agree closely where both apply', () => {
    // Distinct values: exact (n <= 40). The same order with one tie forces the normal approximation.
    const base = [3, 1, 4, 7, 5, 9, 2, 6, 8, 11, 10, 14, 12, 13, 16, 15, 18, 17, 20, 19];
    const exact = trendTest(base).pValue!;
    const withTie = [...base];
    withTie[1] = 3; // ties with the first value
    const approx = trendTest(withTie).pValue!;
    expect(exact).toBeLessThan(0.001);
    expect(Math.abs(exact - approx)).toBeLessThan(0.001);
    // A textbook check of the normal approximation: n = 50 strictly decreasing, S = -1225.
    const falling = Array.from({ length: 50 }, (_, i) => 100 - i);
    expect(trendTest(falling).pValue).toBeLessThan(1e-10);
    expect(trendTest(falling).senSlope).toBe(-1);
  });

  it('uses the tie-corrected variance: a constant series has p = 1, slope 0, and does not trend', () => {
    const t = trendTest([5, 5, 5, 5, 5, 5, 5]);
    expect(t.pValue).toBe(1);
    expect(t.senSlope).toBe(0);
    expect(t.changePercent).toBe(0);
    expect(t.trending).toBe(false);
  });

  it('a significant but small trend does not count; the size threshold is an option', () => {
    // 1000 -> 1019 over 20 points: Mann-Kendall rejects, but the change is 19 / 1009.5 = 1.88% of the median.
    const small = Array.from({ length: 20 }, (_, i) => 1000 + i);
    const t = trendTest(small);
    expect(t.pValue).toBeLessThan(0.001);
    expect(t.changePercent).toBeCloseTo((19 / 1009.5) * 100, 8);
    expect(t.trending).toBe(false);
    expect(trendTest(small, { minChangePercent: 1 }).trending).toBe(true);
    expect(trendTest(small, { alpha: 1e-30, minChangePercent: 1 }).trending).toBe(false);
  });

  it("flags a warming-up series (the JVM double's 1,148 ... 8,805 ops/s trials) and signs the change", () => {
    const t = trendTest([1148, 2690, 4027, 5123, 8805]);
    expect(t.trending).toBe(true);
    expect(t.changePercent!).toBeGreaterThan(100);
    const down = trendTest([8805, 5123, 4027, 2690, 1148]);
    expect(down.trending).toBe(true);
    expect(down.changePercent!).toBeLessThan(-100);
  });

  it('leaves out non-finite values', () => {
    expect(trendTest([1, NaN, 2, 3, Infinity, 4]).n).toBe(4);
  });

  it('false-alarm rate on a steady autocorrelated series (AR(1), phi 0.5, cv 5%, 60 points) stays under 5%', () => {
    // The rate itself, for several phi and lengths, is measured by bench/steadiness.ts and given in docs/report.md.
    const rng = new Prng(42);
    const runs = 250;
    let alarms = 0;
    for (let r = 0; r < runs; r++) if (trendTest(ar1(rng, 60, 5000, 0.5, 0.05)).trending) alarms++;
    expect(alarms / runs).toBeLessThan(0.05);
  });

  it('catches a real 20% drift under the same noise most of the time', () => {
    const rng = new Prng(7);
    const runs = 200;
    let caught = 0;
    for (let r = 0; r < runs; r++) {
      const series = ar1(rng, 60, 5000, 0.5, 0.05).map((v, i) => v * (1 + (0.2 * i) / 59));
      if (trendTest(series).trending) caught++;
    }
    expect(caught / runs).toBeGreaterThan(0.8);
  });
});

describe('senSlope', () => {
  it('is the median pairwise slope, robust to an outlier', () => {
    expect(senSlope([0, 1, 2, 300, 4, 5])).toBe(1);
    expect(senSlope([7])).toBe(0);
  });
});

describe('steadyForWarmup', () => {
  it('needs a full window', () => {
    expect(steadyForWarmup([100, 100, 100])).toBe(false);
    expect(steadyForWarmup(Array(10).fill(100))).toBe(true);
  });

  it('is steady only when the slope is shown within +/- 1% of the median per point', () => {
    const rising = (perPoint: number): number[] =>
      Array.from({ length: 10 }, (_, i) => 1000 + perPoint * i);
    expect(steadyForWarmup(rising(9))).toBe(true); // ~0.88% of the median per point
    expect(steadyForWarmup(rising(12))).toBe(false); // ~1.1%
    expect(steadyForWarmup(rising(-12))).toBe(false);
    expect(steadyForWarmup(rising(12), { tolerancePercent: 2 })).toBe(true);
  });

  it('judges only the last window', () => {
    const warming = [
      ...Array.from({ length: 20 }, (_, i) => 100 + i * 50),
      ...Array(10).fill(1100),
    ];
    expect(steadyForWarmup(warming)).toBe(true);
    expect(steadyForWarmup(warming.slice(0, 25))).toBe(false);
    expect(steadyForWarmup(warming.slice(0, 25), { window: 3 })).toBe(true);
  });

  it('nothing measured is not steady', () => {
    expect(steadyForWarmup(Array(10).fill(0))).toBe(false);
    expect(steadyForWarmup([...Array(9).fill(5), NaN])).toBe(false);
  });
});
