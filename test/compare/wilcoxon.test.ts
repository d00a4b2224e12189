/** The Wilcoxon signed-rank test against values worked by hand and by scipy.stats.wilcoxon. */
import { smallestSignedRankP, wilcoxonSignedRank } from '../../lib/compare/wilcoxon';

describe('wilcoxonSignedRank', () => {
  it('all pairs one way: p = 2 / 2^n (5 pairs cannot reach 0.05, 6 can)', () => {
    expect(wilcoxonSignedRank([0.1, 0.2, 0.3, 0.4, 0.5]).pValue).toBeCloseTo(0.0625, 10);
    expect(wilcoxonSignedRank([-0.1, -0.2, -0.3, -0.4, -0.5, -0.6]).pValue).toBeCloseTo(
      0.03125,
      10,
    );
    expect(smallestSignedRankP(5)).toBe(0.0625);
  });

  it("Darwin's Zea mays differences (Fisher 1935): scipy.stats.wilcoxon gives p = 0.04126 (exact)", () => {
    const d = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75];
    const r = wilcoxonSignedRank(d);
    expect(r.wPlus).toBe(96);
    expect(r.method).toBe('exact');
    expect(r.pValue).toBeCloseTo(0.04126, 4);
  });

  it('symmetric differences: p = 1', () => {
    expect(wilcoxonSignedRank([1, -1, 2, -2]).pValue).toBe(1);
  });
});
