import { buildCharts } from '../../lib/report/chart-registry';
import { CHART_HEIGHT, CHART_WIDTH, renderChart } from '../../lib/report/render-chart';
import {
  COMPARISON,
  countPixels,
  decodePng,
  fixture,
  isBackground,
  isDark,
  isWarningRed,
  PNG_SIGNATURE,
  pngSize,
} from './helpers';

/** Rows holding the title (layout padding 4 + title padding 8 + one 18px line). */
const TITLE_BAND: [number, number] = [0, 34];

async function checkPng(png: Buffer) {
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(pngSize(png)).toEqual({ width: CHART_WIDTH, height: CHART_HEIGHT });
  const pixels = await decodePng(png);
  const drawn = countPixels(pixels, 0, pixels.height, (r, g, b) => !isBackground(r, g, b));
  return { pixels, drawnShare: drawn / (pixels.width * pixels.height) };
}

describe('chart rendering (Chart.js on @napi-rs/canvas)', () => {
  const single = buildCharts([fixture('result-complete.json')]);
  const comparison = buildCharts(COMPARISON.map(fixture));
  const kinds = [
    ...single,
    ...comparison
      .filter((c) => c.file === 'latency-writes-p99.png' || c.file === 'timeline.png')
      .map((c) => ({ ...c, file: `comparison ${c.file}` })),
  ];

  it.each(kinds.map((c) => [c.file, c] as const))(
    '%s is a valid, non-blank PNG of the expected size',
    async (_file, spec) => {
      const { drawnShare } = await checkPng(await renderChart(spec));
      // Axes, grid, lines and text cover a few percent of a white canvas; a blank chart covers ~0.
      expect(drawnShare).toBeGreaterThan(0.02);
      expect(drawnShare).toBeLessThan(0.6);
    },
  );

  it('draws text: the same chart with and without its title differs in the title area', async () => {
    const spec = single[0];
    const withTitle = await decodePng(await renderChart(spec));
    const without = await decodePng(await renderChart(spec, { title: false }));
    // The title is near-black (#111); with no usable font nothing dark is drawn there.
    expect(countPixels(withTitle, ...TITLE_BAND, isDark)).toBeGreaterThan(300);
    let differing = 0;
    for (let y = TITLE_BAND[0]; y < TITLE_BAND[1]; y++) {
      for (let x = 0; x < withTitle.width; x++) {
        const i = (y * withTitle.width + x) * 4;
        if (withTitle.data[i] !== without.data[i] || withTitle.data[i + 1] !== without.data[i + 1])
          differing++;
      }
    }
    expect(differing).toBeGreaterThan(300);
  });

  it('marks an incomplete run in red under the chart, and only then', async () => {
    const [incomplete] = buildCharts([fixture('result-incomplete.json')]);
    const marked = await decodePng(await renderChart(incomplete));
    const clean = await decodePng(await renderChart(single[0]));
    const bottom = (p: typeof marked) => countPixels(p, p.height - 50, p.height, isWarningRed);
    expect(bottom(marked)).toBeGreaterThan(300);
    expect(bottom(clean)).toBe(0);
  });

  it('renders a one-step result (single client count) without failing', async () => {
    const r = fixture('result-complete.json');
    const one = { ...r, steps: r.steps.slice(0, 1) };
    for (const spec of buildCharts([one])) await checkPng(await renderChart(spec));
  });
});
