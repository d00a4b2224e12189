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
  Scale,
  SubTitle,
  Title,
} from 'chart.js';
import { axisTitle, BACKGROUND, baseChartOptions, basePlugins, CHART_HEIGHT, CHART_WIDTH, LINE_LEGEND_LABELS, registerChartComponents, renderConfigurationPng, strokeGuideLine, WARNING_COLOR } from './chart-base';
import { CHART_FONT_FAMILY } from './fonts';
import { ChartSpec } from './chart-data';
import { formatOps } from './format';

export { CHART_HEIGHT, CHART_WIDTH } from './chart-base';

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
      for (const start of starts) strokeGuideLine(chart, 'x', start, { color: '#888888', width: 1, dash: [4, 4] });
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

/** A tick label without trailing zeros: 0.2, 1.5, 10, 25,000. */
function tickNumber(value: number): string {
  return Math.abs(value) >= 1000 ? formatOps(value) : String(Number(value.toPrecision(3)));
}

/** Chart.js puts a tick at every 1..9 x 10^n on a log axis; label only 1, 2, 5 x 10^n so labels do not collide. */
export function logTickLabel(value: number): string {
  if (!(value > 0)) return '';
  const mantissa = value / 10 ** Math.floor(Math.log10(value) + 1e-9);
  return [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6) ? tickNumber(value) : '';
}

/** Log-axis bounds with some room around the data, so no point sits on the chart's edge. */
function logBounds(spec: ChartSpec, axis: 'y' | 'y2'): { min?: number; max?: number } {
  const values = spec.series
    .filter((s) => (s.yAxis ?? 'y') === axis)
    .flatMap((s) => s.points.map((p) => p.y))
    .filter((y): y is number => y !== null && y > 0);
  if (values.length === 0) return {};
  return { min: Math.min(...values) / 1.4, max: Math.max(...values) * 1.4 };
}

function setTicks(values: number[]) {
  return (scale: Scale) => {
    scale.ticks = values.map((value) => ({ value }));
  };
}

function xScales(spec: ChartSpec): NonNullable<ChartConfiguration<'line'>['options']>['scales'] {
  if (spec.x.kind === 'clients') {
    const ticks = spec.x.ticks;
    const lo = ticks[0] ?? 1;
    const hi = ticks[ticks.length - 1] ?? 1;
    return {
      x: {
        type: 'logarithmic',
        // A little room either side so the first and last points are not cut by the chart edge.
        min: lo / 1.25,
        max: hi * 1.25,
        afterBuildTicks: setTicks(ticks),
        // autoSkip only thins labels out when dense client lists (1..10, 20..100) would collide.
        ticks: { callback: (value) => String(value), autoSkip: true, autoSkipPadding: 8, maxRotation: 0 },
        title: axisTitle(spec.x.title),
      },
    };
  }
  const steps = spec.x.steps;
  const seconds = {
    type: 'linear' as const,
    min: 0,
    max: spec.x.max,
    // No extra tick at an odd max (e.g. 72s next to 70s), whose labels would overlap.
    ticks: { callback: (value: number | string) => `${value}s`, maxRotation: 0, includeBounds: false },
    title: axisTitle(spec.x.title),
  };
  if (steps.length === 0) return { x: seconds };
  return {
    x: seconds,
    steps: {
      type: 'linear',
      position: 'top',
      min: 0,
      max: spec.x.max,
      grid: { display: false },
      afterBuildTicks: setTicks(steps.map((s) => s.start + s.length / 2)),
      ticks: {
        autoSkip: true,
        autoSkipPadding: 8,
        maxRotation: 0,
        callback: (value) => {
          const step = steps.find((s) => s.start + s.length / 2 === value);
          return step ? `${step.clients}${step.partial ? ' (cut short)' : ''}` : '';
        },
      },
      title: axisTitle('concurrent clients in each step'),
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
    lineDash: (chart.data.datasets[item.datasetIndex ?? 0] as { borderDash?: number[] } | undefined)?.borderDash ?? [],
    lineWidth: 2,
  }));
}

export function chartConfiguration(spec: ChartSpec, options: RenderOptions = {}): ChartConfiguration<'line'> {
  const timeline = spec.x.kind === 'seconds';
  const plugins = basePlugins<'line'>(spec.warnings);
  if (spec.x.kind === 'seconds') plugins.push(stepBoundariesPlugin(spec.x.steps.slice(1).map((s) => s.start)));
  if (spec.markers && spec.markers.length > 0) plugins.push(timeMarkersPlugin(spec.markers));
  const dashed = spec.series.some((s) => s.dash.length > 0) && spec.series.some((s) => s.dash.length === 0);
  return {
    type: 'line',
    data: {
      datasets: spec.series.map((s) => ({
        label: s.label,
        data: s.points,
        borderColor: s.color,
        backgroundColor: s.color,
        borderDash: s.dash,
        borderWidth: spec.lines?.width ?? (timeline ? 1.5 : 2.5),
        pointStyle: s.pointStyle,
        // Hollow markers for partial steps (interrupted or failed).
        pointBackgroundColor: s.points.map((p) => (p.partial ? BACKGROUND : s.color)),
        pointBorderWidth: s.points.map((p) => (p.partial ? 2 : 1)),
        pointRadius: spec.lines?.pointRadius ?? (timeline ? 0 : 5),
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
        legend: dashed ? { usePointStyle: true, pointStyle: 'line', pointStyleWidth: 30, boxHeight: 9, padding: 18, generateLabels: labelsWithDashes } : LINE_LEGEND_LABELS,
      }),
      parsing: false,
      scales: {
        ...xScales(spec),
        y:
          spec.y.scale === 'log'
            ? { type: 'logarithmic', ...logBounds(spec, 'y'), ticks: { callback: (value) => logTickLabel(Number(value)) }, title: axisTitle(spec.y.title) }
            : {
                type: 'linear',
                beginAtZero: true,
                // suggestedMax, not max: Chart.js still picks round ticks up to (at least) the shared top.
                ...(spec.y.suggestedMax !== undefined ? { suggestedMax: spec.y.suggestedMax } : {}),
                // A gauge of whole things (queued ops, tickets) has no 0.5 tick.
                ticks: { ...(spec.y.unit === 'count' ? { precision: 0 } : {}), callback: (value) => tickNumber(Number(value)) },
                title: axisTitle(spec.y.title),
              },
        ...(spec.y2
          ? {
              y2: {
                type: 'linear',
                position: 'right',
                beginAtZero: true,
                grid: { drawOnChartArea: false },
                ticks: { precision: 0, callback: (value) => tickNumber(Number(value)) },
                title: axisTitle(spec.y2.title),
              },
            }
          : {}),
      },
    },
    plugins,
  };
}

/** Renders one chart to PNG bytes. */
export async function renderChart(spec: ChartSpec, options: RenderOptions = {}): Promise<Buffer> {
  registerChartComponents(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Title, SubTitle, Legend);
  return renderConfigurationPng(chartConfiguration(spec, options), options.width ?? CHART_WIDTH, options.height ?? CHART_HEIGHT);
}
