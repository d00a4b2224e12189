/**
 * The pure chart configuration shared by the PNGs (render-chart.ts) and the page (page/page-script.ts):
 * from a ChartSpec, its scales (axis types, bounds, ticks), its tick labels and number formats, its line
 * widths and whether its legend shows dashes. Written once: render-chart.ts imports it, and the page
 * embeds a transpiled copy (page/chart-config-source.ts, generated from this file; a test fails when
 * the copy is stale), so this file imports nothing at run time and uses only what a browser's ES2020
 * has. What differs between the two (fonts, frame, legend spacing, tooltips, zoom) stays with each.
 */
import type { ChartSpec, Unit } from './chart-data';

/** The unit written after a figure in the page's tooltip. */
export const UNIT_SUFFIX: Record<Unit, string> = {
  'ops/s': ' ops/s',
  ms: ' ms',
  '%': '%',
  s: ' s',
  count: '',
  ratio: '×',
};

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A figure as the tables print it: 100 and more rounded and grouped by thousands, smaller ones to 3 significant digits. */
export function formatNumber(v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  const a = Math.abs(v);
  if (a >= 100) {
    const r = Math.round(v);
    return (r < 0 ? '-' : '') + groupThousands(String(Math.abs(r)));
  }
  if (a === 0) return '0';
  return String(Number(v.toPrecision(3)));
}

/** A tick label without trailing zeros: 0.2, 1.5, 10, 25,000. */
export function tickNumber(value: number): string {
  return Math.abs(value) >= 1000
    ? formatNumber(value)
    : String(Number(Number(value).toPrecision(3)));
}

/** Chart.js puts a tick at every 1..9 x 10^n on a log axis; label only 1, 2, 5 x 10^n so labels do not collide. */
export function logTickLabel(value: number): string {
  if (!(value > 0)) return '';
  const mantissa = value / 10 ** Math.floor(Math.log10(value) + 1e-9);
  return [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6) ? tickNumber(value) : '';
}

/** Log-axis bounds with some room around the data (or the range shared with the charts beside it), so no point sits on the chart's edge. */
export function logBounds(spec: ChartSpec, axis: 'y' | 'y2'): { min?: number; max?: number } {
  const shared = axis === 'y' ? spec.y.logRange : undefined;
  if (shared) return { min: shared.min / 1.4, max: shared.max * 1.4 };
  const values = spec.series
    .filter((s) => (s.yAxis ?? 'y') === axis)
    .flatMap((s) => s.points.map((p) => p.y))
    .filter((y): y is number => y !== null && y > 0);
  if (values.length === 0) return {};
  return { min: Math.min(...values) / 1.4, max: Math.max(...values) * 1.4 };
}

/** What a scale hook sees of Chart.js's scale. */
export interface TickedScale {
  min: number;
  max: number;
  ticks: Array<{ value: number }>;
}

/** Ticks exactly at these values, those inside the range shown (a zoomed page axis shows fewer). */
export function ticksAt(values: readonly number[]): (scale: TickedScale) => void {
  return (scale) => {
    scale.ticks = values
      .filter((v) => v >= scale.min && v <= scale.max)
      .map((value) => ({ value }));
  };
}

function axisTitle(text: string): { display: true; text: string } {
  return { display: true, text };
}

/** The x scale (and, on a timeline, the "clients in each step" scale on top). */
export function xScales(spec: ChartSpec) {
  if (spec.x.kind === 'clients') {
    const ticks = spec.x.ticks;
    const lo = ticks[0] ?? 1;
    const hi = ticks[ticks.length - 1] ?? 1;
    return {
      x: {
        type: 'logarithmic' as const,
        // A little room either side so the first and last points are not cut by the chart edge.
        min: lo / 1.25,
        max: hi * 1.25,
        afterBuildTicks: ticksAt(ticks),
        // autoSkip only thins labels out when dense client lists (1..10, 20..100) would collide.
        ticks: {
          callback: (value: number | string) => String(value),
          autoSkip: true,
          autoSkipPadding: 8,
          maxRotation: 0,
        },
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
    ticks: {
      callback: (value: number | string) => `${value}s`,
      maxRotation: 0,
      includeBounds: false,
    },
    title: axisTitle(spec.x.title),
  };
  if (steps.length === 0) return { x: seconds };
  return {
    x: seconds,
    steps: {
      type: 'linear' as const,
      position: 'top' as const,
      min: 0,
      max: spec.x.max,
      grid: { display: false },
      afterBuildTicks: ticksAt(steps.map((s) => s.start + s.length / 2)),
      ticks: {
        autoSkip: true,
        autoSkipPadding: 8,
        maxRotation: 0,
        callback: (value: number | string) => {
          const step = steps.find((s) => s.start + s.length / 2 === value);
          return step ? `${step.clients}${step.partial ? ' (cut short)' : ''}` : '';
        },
      },
      title: axisTitle('concurrent clients in each step'),
    },
  };
}

/** The y scale (log or linear, as the spec says) and the right-hand y2 scale when the spec has one. */
export function yScales(spec: ChartSpec) {
  const y =
    spec.y.scale === 'log'
      ? {
          type: 'logarithmic' as const,
          ...logBounds(spec, 'y'),
          ticks: { callback: (value: number | string) => logTickLabel(Number(value)) },
          title: axisTitle(spec.y.title),
        }
      : {
          type: 'linear' as const,
          beginAtZero: true,
          // suggestedMax, not max: Chart.js still picks round ticks up to (at least) the shared top.
          // (No dropUndefined: the page embeds this module, which imports nothing at run time.)
          ...(spec.y.suggestedMax !== undefined ? { suggestedMax: spec.y.suggestedMax } : {}),
          // A gauge of whole things (queued ops, tickets) has no 0.5 tick.
          ticks: {
            ...(spec.y.unit === 'count' ? { precision: 0 } : {}),
            callback: (value: number | string) => tickNumber(Number(value)),
          },
          title: axisTitle(spec.y.title),
        };
  if (!spec.y2) return { y };
  return {
    y,
    y2: {
      type: 'linear' as const,
      position: 'right' as const,
      beginAtZero: true,
      grid: { drawOnChartArea: false },
      ticks: { precision: 0, callback: (value: number | string) => tickNumber(Number(value)) },
      title: axisTitle(spec.y2.title),
    },
  };
}

/** Every scale of the chart. */
export function chartScales(spec: ChartSpec) {
  return { ...xScales(spec), ...yScales(spec) };
}

/** Line width and marker radius: the spec's, else timelines 1.5 and no markers, other charts 2.5 and 5. */
export function lineStyle(spec: ChartSpec): { width: number; pointRadius: number } {
  const timeline = spec.x.kind === 'seconds';
  return spec.lines ?? { width: timeline ? 1.5 : 2.5, pointRadius: timeline ? 0 : 5 };
}

/** Dashes tell series apart (some dashed, some solid): the legend then shows each line's own stroke. */
export function dashedLegend(spec: ChartSpec): boolean {
  return spec.series.some((s) => s.dash.length > 0) && spec.series.some((s) => s.dash.length === 0);
}
