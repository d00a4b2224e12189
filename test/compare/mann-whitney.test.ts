/**
 * The Mann-Whitney U test against values computed independently: scipy.stats.mannwhitneyu's
 * documented example (exact and asymptotic), the closed form of a fully separated sample, and a
 * tied sample worked by hand (ranks, tie-corrected variance, continuity correction).
 */
import { exactUCounts, mannWhitneyU, normalUpperTail } from '../../lib/compare';

describe('mannWhitneyU', () => {
  it("matches scipy's documented example: exact p = 0.1111, asymptotic p = 0.11134688653314041", () => {
    const males = [19, 22, 16, 29, 24];
    const females = [20, 11, 17, 12];
    const exact = mannWhitneyU(males, females);
    expect(exact.method).toBe('exact');
    expect(exact.uX).toBe(17);
    expect(exact.uY).toBe(3);
    expect(exact.pValue).toBeCloseTo(14 / 126, 9);
    const normal = mannWhitneyU(males, females, 'normal');
    expect(normal.pValue).toBeCloseTo(0.11134688653314041, 6);
  });

  it('gives 2 / C(10, 5) for two fully separated samples of five, whichever comes first', () => {
    const low = [1, 2, 3, 4, 5];
    const high = [6, 7, 8, 9, 10];
    expect(mannWhitneyU(low, high)).toMatchObject({ uX: 0, uY: 25, method: 'exact' });
    expect(mannWhitneyU(low, high).pValue).toBeCloseTo(2 / 252, 9);
    expect(mannWhitneyU(high, low).pValue).toBeCloseTo(2 / 252, 9);
  });

  it('with ties: average ranks, tie-corrected variance and continuity correction (p = 0.136658)', () => {
    // Pooled ranks: 1 -> 1, the three 2s -> 3, the two 3s -> 5.5, 4 -> 7, 5 -> 8. R_x = 12.5, U_x = 2.5, U_y = 13.5.
    // var = (4*4/12) * (9 - (24 + 6) / (8*7)) = 11.2857; z = (13.5 - 8 - 0.5) / sqrt(var) = 1.48835.
    const r = mannWhitneyU([1, 2, 2, 3], [2, 3, 4, 5]);
    expect(r.method).toBe('normal approximation with tie correction');
    expect(r.uX).toBe(2.5);
    expect(r.uY).toBe(13.5);
    expect(r.z).toBeCloseTo(1.4883514, 6);
    expect(r.pValue).toBeCloseTo(0.1366582, 6);
  });

  it('says p = 1 for identical samples, and refuses an empty one', () => {
    expect(mannWhitneyU([5, 5, 5], [5, 5, 5]).pValue).toBe(1);
    expect(() => mannWhitneyU([], [1])).toThrow(/at least one value/);
  });

  it('counts the null distribution of U exactly (Gaussian binomial coefficients)', () => {
    // m = 2, n = 2: arrangements of U = 0..4 are 1, 1, 2, 1, 1 (C(4,2) = 6 in all).
    expect(exactUCounts(2, 2)).toEqual([1n, 1n, 2n, 1n, 1n]);
    const counts = exactUCounts(10, 12);
    expect(counts.reduce((a, b) => a + b, 0n)).toBe(646646n); // C(22, 10)
    expect(counts[0]).toBe(1n);
    expect(counts[counts.length - 1]).toBe(1n);
  });

  it('computes the normal tail to 1e-7', () => {
    expect(normalUpperTail(0)).toBeCloseTo(0.5, 7);
    expect(normalUpperTail(1.959964)).toBeCloseTo(0.025, 7);
    expect(normalUpperTail(-1)).toBeCloseTo(0.8413447, 6);
  });
});
