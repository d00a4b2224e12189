/**
 * The compare chart: a log ratio axis (a 99% collapse stays on it), each client count's verdict drawn
 * above it (a regression in red), and a note when an open-model result is compared with a closed one.
 */
import { compareResults } from '../../lib/compare';
import {
  comparisonChartConfiguration,
  renderComparisonChart,
  verdictLabel,
} from '../../lib/compare/chart';
import { ratioChart } from '../../lib/compare/page';
import { countPixels, decodePng } from '../report/helpers';
import { resultDocument, trialsStep } from '../support/results';

const FAST = [1000, 1010, 990, 1005, 995];

describe('the compare chart', () => {
  const collapse = compareResults(
    resultDocument('a', [trialsStep(FAST)]),
    resultDocument('b', [trialsStep(FAST.map((v) => v / 100))]),
  );

  it('draws ratios on a log axis that reaches a 99% collapse, and the verdicts above them', async () => {
    expect(collapse.steps[0]).toMatchObject({ verdict: 'slower', regression: true });
    expect(verdictLabel(collapse.steps[0])).toBe('REGRESSION');
    const config = comparisonChartConfiguration(collapse);
    const y = config.options?.scales?.y as { type: string; min: number; max: number };
    expect(y.type).toBe('logarithmic');
    expect(y.min).toBeLessThanOrEqual(0.01);
    expect(config.plugins?.map((p) => p.id)).toContain('mbCompareVerdicts');
    expect(ratioChart(collapse).y.scale).toBe('log');
    // The red verdict text (and the red threshold line) are on the PNG.
    const pixels = await decodePng(await renderComparisonChart(collapse));
    expect(countPixels(pixels, 0, 1000, (r, g, b) => r > 150 && g < 40 && b < 60)).toBeGreaterThan(
      100,
    );
  });

  it('notes an open-model result compared with a closed-loop one', () => {
    const open = trialsStep(FAST);
    open.arrival = {
      target: { kind: 'constant', opsPerSecond: 1000 },
      lateAfterMs: 10,
      dropAfterMs: 1000,
      scheduled: 5000,
      dropped: 0,
      late: 0,
    };
    const c = compareResults(resultDocument('a', [open]), resultDocument('b', [trialsStep(FAST)]));
    expect(c.notes.join('\n')).toMatch(
      /^A was measured in the open model .* and B in the closed loop/m,
    );
  });
});
