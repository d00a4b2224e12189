/**
 * No verdict on replicates that trend: the JVM-warming trials of the issue (1,148 -> 8,805 ops/s)
 * against a steady side are "not compared", naming the side and the size of the trend; a trial whose
 * seconds trend likewise; in an interleaved comparison a drift both sides share is no reason, a drift
 * of the per-round ratio is.
 */
import { compareResults } from '../../lib/compare';
import { StepResult } from '../../lib/result';
import { resultDocument, trialsStep } from '../support/results';

const doc = resultDocument;
const trials = (values: number[], perSecond: StepResult['perSecond'] = []) =>
  trialsStep(values, perSecond);

describe('trending replicates', () => {
  it('a side whose trials rise is not compared, with the side and the trend', () => {
    const c = compareResults(
      doc('warm', [trials([9010, 8950, 9100, 8890, 9040])]),
      doc('cold', [trials([1148, 2690, 4027, 5123, 8805])]),
    );
    expect(c.steps[0].verdict).toBe('not compared');
    expect(c.steps[0].note).toMatch(
      /^not steady: B's trials trend: \+\d+(\.\d)?% over 5 trials \(Mann-Kendall p 0\.0\d\d\)/,
    );
    expect(c.outcome).toBe('not compared');
  });

  it('a trial whose seconds fall is not compared, naming the trial', () => {
    const seconds = (trial: number, rates: number[]) =>
      rates.map((r, t) => ({ t, reads: r, writes: 0, errors: 0, trial }));
    const steady = [1000, 1010, 990, 1005, 995, 1000, 1008, 992];
    const falling = [1000, 950, 900, 850, 800, 750, 700, 650];
    const a = trials(
      [1000, 1001, 999, 1002, 998],
      [1, 2, 3, 4, 5].flatMap((k) => seconds(k, steady)),
    );
    const b = trials(
      [1000, 1001, 999, 1002, 998],
      [1, 2, 3, 4, 5].flatMap((k) => seconds(k, k === 3 ? falling : steady)),
    );
    const c = compareResults(doc('a', [a]), doc('b', [b]));
    expect(c.steps[0].note).toMatch(
      /^not steady: B's trial 3's seconds trend: -\d+(\.\d)?% over 8 s/,
    );
  });

  it('interleaved: a drift both sides share is cancelled; a drifting ratio is not compared', () => {
    const drift = [1000, 1050, 1100, 1150, 1200, 1250];
    const shared = compareResults(
      doc('a', [trials(drift)]),
      doc('b', [trials(drift.map((v) => v * 0.7))]),
      { interleaved: true },
    );
    expect(shared.steps[0]).toMatchObject({ verdict: 'slower', regression: true });
    const sequential = compareResults(
      doc('a', [trials(drift)]),
      doc('b', [trials(drift.map((v) => v * 0.7))]),
    );
    expect(sequential.steps[0].note).toMatch(/^not steady: A's trials trend/);
    const diverging = compareResults(
      doc('a', [trials(drift)]),
      doc('b', [trials(drift.map((v, i) => v * (1 - 0.08 * i)))]),
      { interleaved: true },
    );
    expect(diverging.steps[0].note).toMatch(
      /^not steady: the per-round ratio B\/A trends: -\d+(\.\d)?% over 6 rounds/,
    );
    // A ratio that drifts but stays beyond the threshold in every round (a warming A against a B held
    // back 20 ms a find): slower at every moment, so slower, the drift said.
    const farBehind = compareResults(
      doc('a', [trials(drift)]),
      doc('b', [trials([40, 40, 39, 38, 36, 35])]),
      { interleaved: true },
    );
    expect(farBehind.steps[0]).toMatchObject({ verdict: 'slower', regression: true });
    expect(farBehind.steps[0].note).toMatch(
      /^the per-round ratio B\/A trends: -\d+(\.\d)?% over 6 rounds .*, but every round is beyond the 5% threshold on the same side$/,
    );
    // Beyond it in all rounds but one: not compared.
    const oneWithin = compareResults(
      doc('a', [trials(drift)]),
      doc('b', [trials([980, 40, 39, 38, 36, 35])]),
      { interleaved: true },
    );
    expect(oneWithin.steps[0].verdict).toBe('not compared');
  });

  it('paired (6 rounds or more): the per-round ratios see a 10% slowdown that a drift hides from Mann-Whitney', () => {
    const a = [1000, 1500, 900, 2000, 1200, 1700];
    const ratios = [0.9, 0.91, 0.89, 0.905, 0.895, 0.902];
    const b = a.map((v, i) => v * ratios[i]);
    const unpaired = compareResults(doc('a', [trials(a)]), doc('b', [trials(b)]), {
      interleaved: true,
    });
    expect(unpaired.steps[0].verdict).toBe('no difference beyond noise');
    const paired = compareResults(doc('a', [trials(a)]), doc('b', [trials(b)]), {
      interleaved: true,
      paired: true,
    });
    expect(paired.steps[0]).toMatchObject({
      verdict: 'slower',
      regression: true,
      pValue: 0.03125,
      method: 'Wilcoxon signed-rank on the per-round ln(B/A), exact',
    });
    const five = compareResults(
      doc('a', [trials(a.slice(0, 5))]),
      doc('b', [trials(b.slice(0, 5))]),
      { interleaved: true, paired: true },
    );
    expect(five.steps[0].note).toMatch(/^a paired test needs 6 or more interleaved rounds/);
  });
});
