/** Draws a ChartSpec into a PNG with Chart.js 4 on @napi-rs/canvas (no DOM, no native build). */
import {
  Chart,
  ChartConfiguration,
  Legend,
  LegendItem,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  Plugin,
  PointElement,
  SubTitle,
  Title,
} from 'chart.js';
import {
  BACKGROUND,
  baseChartOptions,
  basePlugins,
  CHART_HEIGHT,
  CHART_WIDTH,
  LINE_LEGEND_LABELS,
  registerChartComponents,
  renderConfigurationPng,
  strokeGuideLine,
  WARNING_COLOR,
} from './chart-base';
import { CHART_FONT_FAMILY } from './fonts';
import { ChartSpec } from './chart-data';
import { chartScales, dashedLegend, lineStyle } from './chart-config';

export { CHART_HEIGHT, CHART_WIDTH } from './chart-base';
export { logTickLabel } from './chart-config';

/** Background events marked on timelines (a scenario's index build, balancer, step-down). */
const MARKER_COLOR = '#6a3d9a';

export interface RenderOptions {
  width?: number;
  height?: number;
  /** Draw the title (on by default; tests turn it off to prove text is drawn). */
  title?: boolean;
}

/** Dashed vertical lines where each step of a timeline begins. */
function stepBoundariesPlugin(starts: number[]): Plugin<'line'> {
  return {
    id: 'mbStepBoundaries',
    beforeDatasetsDraw(chart) {
      for (const start of starts)
        strokeGuideLine(chart, 'x', start, { color: '#888888', width: 1, dash: [4, 4] });
    },
  };
}

/** Background events on a timeline: a shaded band from start to end, a solid line at the start, the label at the top. */
function timeMarkersPlugin(markers: NonNullable<ChartSpec['markers']>): Plugin<'line'> {
  return {
    id: 'mbTimeMarkers',
    beforeDatasetsDraw(chart) {
      const { ctx, chartArea } = chart;
      const x = chart.scales.x;
      ctx.save();
      markers.forEach((m, i) => {
        const color = m.failed ? WARNING_COLOR : MARKER_COLOR;
        const from = Math.round(x.getPixelForValue(m.start)) + 0.5;
        const to = Math.max(from + 2, x.getPixelForValue(m.end));
        ctx.globalAlpha = 0.15;
        ctx.fillStyle = color;
        ctx.fillRect(from, chartArea.top, to - from, chartArea.bottom - chartArea.top);
        ctx.globalAlpha = 1;
        ctx.strokeStyle = color;
        ctx.lineWidth = 1.5;
        ctx.setLineDash([]);
        ctx.beginPath();
        ctx.moveTo(from, chartArea.top);
        ctx.lineTo(from, chartArea.bottom);
        ctx.stroke();
        ctx.fillStyle = color;
        ctx.font = `12px "${CHART_FONT_FAMILY}"`;
        ctx.textBaseline = 'top';
        ctx.textAlign = 'left';
        // Staggered down the plot so labels of events close together do not overlap.
        ctx.fillText(m.label, from + 4, chartArea.top + 4 + (i % 4) * 15);
      });
      ctx.restore();
    },
  };
}

/** Splits a long " · "-separated line into lines that fit the chart width (Chart.js does not wrap titles). */
export function wrapSubtitle(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const part of text.split(' · ')) {
    const next = line ? `${line} · ${part}` : part;
    if (line && next.length > maxChars) {
      lines.push(line);
      line = part;
    } else {
      line = next;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * Chart.js takes a legend item's style from the first point when point styles are used, which has no
 * dash: give each item its line's dash and a width that shows it.
 */
function labelsWithDashes(chart: Chart): LegendItem[] {
  return Chart.defaults.plugins.legend.labels.generateLabels(chart).map((item) => ({
    ...item,
    lineDash:
      (chart.data.datasets[item.datasetIndex ?? 0] as { borderDash?: number[] } | undefined)
        ?.borderDash ?? [],
    lineWidth: 2,
  }));
}

export function chartConfiguration(
  spec: ChartSpec,
  options: RenderOptions = {},
): ChartConfiguration<'line'> {
  const plugins = basePlugins<'line'>(spec.warnings);
  if (spec.x.kind === 'seconds')
    plugins.push(stepBoundariesPlugin(spec.x.steps.slice(1).map((s) => s.start)));
  if (spec.markers && spec.markers.length > 0) plugins.push(timeMarkersPlugin(spec.markers));
  const lines = lineStyle(spec);
  return {
    type: 'line',
    data: {
      datasets: spec.series.map((s) => ({
        label: s.label,
        data: s.points,
        borderColor: s.color,
        backgroundColor: s.color,
        borderDash: s.dash,
        borderWidth: lines.width,
        pointStyle: s.pointStyle,
        // Hollow markers for partial steps (interrupted or failed) and for a partial last second,
        // which a timeline (no markers) shows as one marked point: its rate is scaled by its length.
        pointBackgroundColor: s.points.map((p) =>
          p.partial || p.span !== undefined ? BACKGROUND : s.color,
        ),
        pointBorderWidth: s.points.map((p) => (p.partial || p.span !== undefined ? 2 : 1)),
        pointRadius: s.points.map((p) =>
          p.span !== undefined ? Math.max(3, lines.pointRadius) : lines.pointRadius,
        ),
        spanGaps: false,
        xAxisID: 'x',
        yAxisID: s.yAxis ?? 'y',
      })),
    },
    options: {
      ...baseChartOptions({
        title: spec.title,
        showTitle: options.title !== false,
        titlePadding: { top: 8, bottom: 4 },
        subtitle: wrapSubtitle(spec.subtitle, Math.floor((options.width ?? CHART_WIDTH) / 8.5)),
        warnings: spec.warnings,
        // Where dashes tell series apart (server charts), the legend shows each line's own stroke.
        legend: dashedLegend(spec)
          ? {
              usePointStyle: true,
              pointStyle: 'line',
              pointStyleWidth: 30,
              boxHeight: 9,
              padding: 18,
              generateLabels: labelsWithDashes,
            }
          : LINE_LEGEND_LABELS,
      }),
      parsing: false,
      // The scales, tick labels and number formats the page draws too (chart-config.ts).
      scales: chartScales(spec) as NonNullable<ChartConfiguration<'line'>['options']>['scales'],
    },
    plugins,
  };
}

/** Renders one chart to PNG bytes. */
export async function renderChart(spec: ChartSpec, options: RenderOptions = {}): Promise<Buffer> {
  registerChartComponents(
    LineController,
    LineElement,
    PointElement,
    LinearScale,
    LogarithmicScale,
    Title,
    SubTitle,
    Legend,
  );
  return renderConfigurationPng(
    chartConfiguration(spec, options),
    options.width ?? CHART_WIDTH,
    options.height ?? CHART_HEIGHT,
  );
}
