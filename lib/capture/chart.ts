/** The capture chart: each shape's share of the operations and of the server's time (horizontal bars, the report's font and palette). */
import {
  BarController,
  BarElement,
  CategoryScale,
  ChartConfiguration,
  Legend,
  LinearScale,
  SubTitle,
  Title,
} from 'chart.js';
import { PALETTE } from '../report/chart-data';
import {
  backgroundPlugin,
  CHART_WIDTH,
  registerChartComponents,
  renderConfigurationPng,
} from '../report/chart-base';
import { CaptureSummary } from './capture';

/** Shapes drawn (the most frequent); the table in capture.md lists them all. */
export const CHART_SHAPES = 15;

function sourcesLine(sources: string[]): string {
  const first = sources[0].length > 70 ? `…${sources[0].slice(-69)}` : sources[0];
  return sources.length > 1
    ? `${first} and ${sources.length - 1} more file${sources.length > 2 ? 's' : ''}`
    : first;
}

export function captureChartConfiguration(summary: CaptureSummary): ChartConfiguration<'bar'> {
  const shapes = summary.shapes.slice(0, CHART_SHAPES);
  const labels = shapes.map((s) => {
    const label = `op ${s.op}: ${s.type} ${s.ns}`;
    return label.length > 48 ? `${label.slice(0, 47)}…` : label;
  });
  const hidden = summary.shapes.length - shapes.length;
  return {
    type: 'bar',
    data: {
      labels,
      datasets: [
        {
          label: 'share of operations (%)',
          data: shapes.map((s) => s.sharePercent),
          backgroundColor: PALETTE[0],
        },
        {
          label: 'share of server time (%, durationMillis as logged)',
          data: shapes.map((s) => s.serverSharePercent),
          backgroundColor: PALETTE[1],
        },
      ],
    },
    options: {
      indexAxis: 'y',
      responsive: false,
      animation: false,
      devicePixelRatio: 1,
      plugins: {
        title: {
          display: true,
          text: `Captured workload: ${summary.statements.toLocaleString('en-US')} statements in ${summary.shapes.length} shapes`,
          font: { size: 18 },
        },
        subtitle: {
          display: true,
          text: `${sourcesLine(summary.sources)}${hidden > 0 ? ` · ${hidden} smaller shapes not drawn (see capture.md)` : ''}`,
        },
        legend: { position: 'bottom' },
      },
      scales: {
        x: { beginAtZero: true, max: 100, title: { display: true, text: 'percent' } },
        y: { ticks: { autoSkip: false } },
      },
    },
    plugins: [backgroundPlugin<'bar'>()],
  };
}

export async function renderCaptureChart(summary: CaptureSummary): Promise<Buffer> {
  registerChartComponents(
    BarController,
    BarElement,
    CategoryScale,
    LinearScale,
    Title,
    SubTitle,
    Legend,
  );
  const shapes = Math.min(CHART_SHAPES, summary.shapes.length);
  const height = Math.max(360, 180 + shapes * 44);
  return renderConfigurationPng(captureChartConfiguration(summary), CHART_WIDTH, height);
}
