/**
 * The trend chart of one label and metric: one line per client count, run after run (oldest left),
 * with every change point of that metric marked by a vertical line at its first run after the change
 * (red for a regression beyond the threshold, grey otherwise) and labelled with the change. Drawn
 * with the report's Chart.js-on-canvas helpers, like every chart of the tool.
 */
import {
  ChartConfiguration,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  Plugin,
  PointElement,
  Scale,
  SubTitle,
  Title,
} from 'chart.js';
import { PALETTE } from '../report/chart-data';
import { CHART_FONT_FAMILY } from '../report/fonts';
import { TEST_DOUBLE_WARNING } from '../report/describe';
import { wrapSubtitle } from '../report/render-chart';
import {
  axisTitle,
  baseChartOptions,
  basePlugins,
  CHART_WIDTH,
  registerChartComponents,
  renderConfigurationPng,
  strokeGuideLine,
} from '../report/chart-base';
import type { HistoryDocument, HistorySeries } from './history';
import { formatChange } from './render-md';

interface Marker {
  /** x: the run's position in the label's run list. */
  x: number;
  text: string;
  color: string;
}

function changeMarkersPlugin(markers: Marker[]): Plugin<'line'> {
  return {
    id: 'mbChangePoints',
    afterDatasetsDraw(chart) {
      const { ctx, chartArea } = chart;
      markers.forEach((m, i) => {
        // Between the last run before and the first run after: where the change happened.
        const px = strokeGuideLine(chart, 'x', m.x - 0.5, {
          color: m.color,
          width: 2,
          dash: [7, 4],
        });
        ctx.save();
        ctx.fillStyle = m.color;
        ctx.font = `bold 13px "${CHART_FONT_FAMILY}"`;
        ctx.textBaseline = 'top';
        const right = px + 6 + ctx.measureText(m.text).width < chartArea.right;
        ctx.textAlign = right ? 'left' : 'right';
        ctx.fillText(m.text, right ? px + 6 : px - 6, chartArea.top + 6 + i * 18);
        ctx.restore();
      });
    },
  };
}

function shortDate(iso: string): string {
  return iso.slice(5, 16).replace('T', ' ');
}

/** The red lines under a label's trend charts: its runs on another product (FerretDB, ...) or on a test double. */
export function trendChartWarnings(h: HistoryDocument, label: string): string[] {
  const about = h.labels.find((l) => l.label === label);
  return [
    ...(about?.notMongoDB ?? []),
    ...(about?.testDouble
      ? [TEST_DOUBLE_WARNING]
      : about?.mixesTestDouble
        ? ['MIXED: some runs of this label were on a TEST DOUBLE server, not MongoDB']
        : []),
  ];
}

export function trendChartConfiguration(
  h: HistoryDocument,
  label: string,
  metric: HistorySeries['metric'],
): ChartConfiguration<'line'> | undefined {
  const series = h.series.filter((s) => s.label === label && s.metric === metric);
  if (series.length === 0) return undefined;
  // Every run of the label, in order: the x position of a run is its place in this list.
  const runs = [
    ...new Set(series.flatMap((s) => s.points.map((p) => `${p.startedAt}\u0000${p.source}`))),
  ].sort();
  const xOf = new Map(runs.map((r, i) => [r, i + 1]));
  const key = (p: { startedAt: string; source: string }) =>
    xOf.get(`${p.startedAt}\u0000${p.source}`) ?? 0;
  const datasets = series.map((s, i) => ({
    label: `${s.clients} client${s.clients === 1 ? '' : 's'}`,
    data: s.points.map((p) => ({ x: key(p), y: s.unit === 'µs' ? p.value / 1000 : p.value })),
    borderColor: PALETTE[i % PALETTE.length],
    backgroundColor: PALETTE[i % PALETTE.length],
    borderWidth: 2,
    pointRadius: 3,
  }));
  const markers: Marker[] = series.flatMap((s) =>
    s.changePoints.map((cp) => ({
      x: key(cp.firstAfter),
      text: `${formatChange(cp)} at ${s.clients} client${s.clients === 1 ? '' : 's'} (p ${cp.pvalue.toFixed(2)})`,
      color: cp.direction === 'regression' && cp.beyondThreshold ? '#b00020' : '#666666',
    })),
  );
  const first = series[0];
  const unit = first.unit === 'µs' ? 'ms' : first.unit;
  const warnings = trendChartWarnings(h, label);
  // The server named as every summary names it (lib/report/describe.ts serverLabel).
  const servers = h.labels.find((l) => l.label === label)?.servers ?? [];
  const tickEvery = Math.max(1, Math.ceil(runs.length / 10));
  return {
    type: 'line',
    data: { datasets },
    options: {
      ...baseChartOptions({
        title: `${label}: ${first.name} run after run`,
        subtitle: wrapSubtitle(
          [
            ...servers,
            `${runs.length} runs`,
            `dashed: change points (E-Divisive means, p ≤ ${h.options.pvalue}); red: a regression beyond ${h.options.threshold}%`,
          ].join(' · '),
          Math.floor(CHART_WIDTH / 8.5),
        ),
        warnings,
      }),
      parsing: false,
      scales: {
        x: {
          type: 'linear',
          min: 0.5,
          max: runs.length + 0.5,
          // One labelled tick every few runs, on the runs themselves (Chart.js would start at min, between two runs).
          afterBuildTicks: (scale: Scale) => {
            scale.ticks = runs
              .map((_, i) => i + 1)
              .filter((i) => (i - 1) % tickEvery === 0)
              .map((value) => ({ value }));
          },
          ticks: {
            maxRotation: 0,
            autoSkip: false,
            callback: (value) => {
              const i = Number(value);
              return Number.isInteger(i) && i >= 1 && i <= runs.length
                ? [`#${i}`, shortDate(runs[i - 1])]
                : '';
            },
          },
          title: axisTitle('runs, oldest first (#, startedAt UTC)'),
        },
        y: {
          type: 'linear',
          beginAtZero: first.metric === 'errorRate',
          title: axisTitle(`${first.name} (${unit})`),
        },
      },
    },
    plugins: [...basePlugins<'line'>(warnings), changeMarkersPlugin(markers)],
  };
}

export async function renderTrendChart(
  h: HistoryDocument,
  label: string,
  metric: HistorySeries['metric'],
): Promise<Buffer | undefined> {
  registerChartComponents(
    LineController,
    LineElement,
    PointElement,
    LinearScale,
    Title,
    SubTitle,
    Legend,
  );
  const configuration = trendChartConfiguration(h, label, metric);
  return configuration ? renderConfigurationPng(configuration) : undefined;
}
