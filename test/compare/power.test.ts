/**
 * The smallest detectable change, checked against a brute-force simulation written here: ranks by
 * counting, the exact two-sided p by enumerating every split of the pooled ranks, and an independent
 * generator of normal draws. At the reported change Mann-Whitney must detect the slowdown in about 80%
 * of samples; at two thirds of it, clearly less often.
 */
import { compareResults, minDetectableChange, renderComparisonText } from '../../lib/compare';
import { renderComparisonMarkdown } from '../../lib/compare/render-text';
import { resultDocument, trialsStep } from '../support/results';

/** Every way of choosing k of 0..n-1 (for the exact null distribution). */
function* choose(n: number, k: number, start = 0, picked: number[] = []): Generator<number[]> {
  if (picked.length === k) {
    yield picked;
    return;
  }
  for (let i = start; i <= n - (k - picked.length); i++) yield* choose(n, k, i + 1, [...picked, i]);
}

/** The exact null distribution of U for m + n distinct values, by enumeration: counts[u]. */
function bruteNull(m: number, n: number): number[] {
  const counts = new Array<number>(m * n + 1).fill(0);
  for (const ranks of choose(m + n, m)) {
    const rankSum = ranks.reduce((s, r) => s + r + 1, 0);
    counts[rankSum - (m * (m + 1)) / 2]++;
  }
  return counts;
}

/** Two-sided exact p of x against y, brute force. */
function brutePValue(
  x: number[],
  y: number[],
  nullCounts: number[],
): { p: number; xHigher: boolean } {
  let uX = 0;
  for (const a of x) for (const b of y) if (a > b) uX++;
  const uY = x.length * y.length - uX;
  const big = Math.max(uX, uY);
  const total = nullCounts.reduce((s, c) => s + c, 0);
  const upper = nullCounts.slice(big).reduce((s, c) => s + c, 0);
  return { p: Math.min(1, (2 * upper) / total), xHigher: uX > uY };
}

/** A generator unlike the one under test (mulberry32), normal draws by the polar method. */
function normals(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => {
    for (;;) {
      const u = 2 * uniform() - 1;
      const v = 2 * uniform() - 1;
      const s = u * u + v * v;
      if (s > 0 && s < 1) return u * Math.sqrt((-2 * Math.log(s)) / s);
    }
  };
}

/** Share of simulated samples in which A (at `base`) tests faster than B (slower by `percent`) at alpha. */
function brutePower(
  m: number,
  n: number,
  percent: number,
  logSpread: number,
  alpha: number,
  simulations: number,
  seed: number,
): number {
  const nullCounts = bruteNull(m, n);
  const draw = normals(seed);
  const shift = -Math.log(1 - percent / 100);
  let detected = 0;
  for (let s = 0; s < simulations; s++) {
    const x = Array.from({ length: m }, () => Math.exp(Math.log(1000) + logSpread * draw()));
    const y = Array.from({ length: n }, () =>
      Math.exp(Math.log(1000) - shift + logSpread * draw()),
    );
    const { p, xHigher } = brutePValue(x, y, nullCounts);
    if (p < alpha && xHigher) detected++;
  }
  return detected / simulations;
}

/** Trials with a known spread of ln(ops/s): exp(ln 1000 + sd * z) for fixed z of mean 0. */
function trials(count: number, logSpread: number): number[] {
  const z = [-1.2, 0.9, -0.3, 1.4, -0.8, 0.1, 0.6, -0.7];
  const picked = z.slice(0, count);
  const mean = picked.reduce((s, v) => s + v, 0) / count;
  const sd = Math.sqrt(picked.reduce((s, v) => s + (v - mean) ** 2, 0) / (count - 1));
  return picked.map((v) => 1000 * Math.exp((logSpread * (v - mean)) / sd));
}

describe('minDetectableChange', () => {
  it.each([
    [4, 4, 0.1],
    [5, 5, 0.05],
    [6, 5, 0.28],
  ])(
    '%i+%i trials with a log spread of %f: detected about 4 times in 5 at the reported change, far less at two thirds of it',
    (m, n, spread) => {
      const x = trials(m, spread);
      const y = trials(n, spread);
      const found = minDetectableChange(x, y, { alpha: 0.05, noise: 0 });
      expect(found.percent).not.toBeNull();
      expect(found.logSpread).toBeCloseTo(spread, 6);
      const percent = found.percent as number;
      const at = brutePower(m, n, percent, spread, 0.05, 3000, 7);
      expect(at).toBeGreaterThan(0.76);
      expect(at).toBeLessThan(0.84);
      // log-scale two thirds of the shift
      const smaller = (1 - Math.exp((2 / 3) * Math.log(1 - percent / 100))) * 100;
      expect(brutePower(m, n, smaller, spread, 0.05, 3000, 8)).toBeLessThan(0.6);
      expect(found.text).toBe(
        `changes smaller than ${percent}% would be missed more than 1 time in 5 with ${m}+${n} trials (from the observed spread)`,
      );
    },
  );

  it('is not the normal approximation: with 5+5 trials the normal "80%" shift has well under 80% power', () => {
    // Two-sample z shift for 80% power at alpha 0.05: (1.96 + 0.8416) * sqrt(2/5) standard deviations.
    const spread = 0.1;
    const zShift = (1.959964 + 0.841621) * Math.sqrt(2 / 5) * spread;
    const normalPercent = (1 - Math.exp(-zShift)) * 100;
    const power = brutePower(5, 5, normalPercent, spread, 0.05, 3000, 9);
    expect(power).toBeLessThan(0.65);
    expect(
      minDetectableChange(trials(5, spread), trials(5, spread), { alpha: 0.05, noise: 0 }).percent,
    ).toBeGreaterThan(normalPercent);
  });

  it('is floored at --noise, and null when the smallest reachable p exceeds alpha', () => {
    const floored = minDetectableChange(trials(5, 0.001), trials(5, 0.001), {
      alpha: 0.05,
      noise: 2,
    });
    expect(floored).toMatchObject({ percent: 2, floored: true });
    const none = minDetectableChange(trials(3, 0.05), trials(3, 0.05), { alpha: 0.05, noise: 2 });
    expect(none).toMatchObject({ percent: null, text: 'no change is detectable with 3+3 trials' });
  });

  it('is reported per client count in compare.json and shown beside the threshold', () => {
    const doc = (label: string, rates: number[]) =>
      resultDocument(label, [trialsStep(rates, [], 4)]);
    const c = compareResults(doc('a', trials(5, 0.1)), doc('b', trials(5, 0.1)), { threshold: 5 });
    const expected = minDetectableChange(trials(5, 0.1), trials(5, 0.1), { alpha: 0.05, noise: 2 });
    expect(c.steps[0].minDetectablePercent).toBe(expected.percent);
    expect(c.steps[0].detectable).toBe(expected.text);
    expect(renderComparisonText(c)).toContain('detectable (threshold 5%)');
    expect(renderComparisonMarkdown(c)).toContain(`4 clients: ${expected.text}`);
  });
});
