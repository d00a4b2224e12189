/**
 * Draws the experiment's charts with lib/report's Chart.js configuration, with two changes a sweep
 * timeline does not need: no "clients in each step" axis on top (an import is one step), and an
 * optional shared y-axis top so the per-shard charts of the three ways compare at a glance.
 * (A candidate for lib/report: `ChartSpec.y.max` and an optional steps axis.)
 */
import { createCanvas } from '@napi-rs/canvas';
import { Chart, Legend, LinearScale, LineController, LineElement, LogarithmicScale, PointElement, SubTitle, Title } from 'chart.js';
import { CHART_FONT_FAMILY, registerChartFonts } from '../../report/fonts';
import { CHART_HEIGHT, CHART_WIDTH, chartConfiguration } from '../../report/render-chart';
import { ExperimentChart } from './chart-data';

let initialised = false;
function init(): void {
  if (initialised) return;
  registerChartFonts();
  Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Title, SubTitle, Legend);
  Chart.defaults.font.family = CHART_FONT_FAMILY;
  Chart.defaults.font.size = 13;
  Chart.defaults.color = '#333333';
  initialised = true;
}

export async function renderExperimentChart(chart: ExperimentChart): Promise<Buffer> {
  init();
  const config = chartConfiguration(chart.spec);
  const scales = config.options!.scales!;
  delete scales.steps;
  // suggestedMax, not max: Chart.js still picks round ticks up to (at least) the shared top.
  if (chart.yTop !== undefined && chart.yTop > 0 && scales.y) (scales.y as { suggestedMax?: number }).suggestedMax = chart.yTop;
  // Short runs have few points: show them, thin, so a one-second blip is still visible.
  for (const dataset of config.data.datasets) {
    dataset.pointRadius = chart.spec.series.every((s) => s.points.length <= 60) ? 2 : 0;
    dataset.borderWidth = 2;
  }
  const canvas = createCanvas(CHART_WIDTH, CHART_HEIGHT);
  const context = canvas.getContext('2d') as unknown as ConstructorParameters<typeof Chart>[0];
  const drawn = new Chart(context, config);
  try {
    return await canvas.encode('png');
  } finally {
    drawn.destroy();
  }
}
