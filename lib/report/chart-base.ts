/**
 * What every chart of the tool shares (report, compare, history, matrix, diskperf, capture): Chart.js 4
 * drawing on @napi-rs/canvas (no DOM, no native build) with the shipped font, a white background, red
 * warning lines under the axes, one frame of options (title, subtitle, legend, padding) and PNG output.
 * A chart module builds its datasets and scales and takes the rest from here, so they all look alike.
 */
import { createCanvas } from '@napi-rs/canvas';
import {
  Chart,
  ChartComponentLike,
  ChartConfiguration,
  ChartOptions,
  ChartType,
  Plugin,
} from 'chart.js';
import { CHART_FONT_FAMILY, registerChartFonts } from './fonts';

export const CHART_WIDTH = 1000;
export const CHART_HEIGHT = 600;
export const BACKGROUND = '#ffffff';
export const WARNING_COLOR = '#b00020';
export const WARNING_LINE_HEIGHT = 20;
const TITLE_COLOR = '#111111';
const SUBTITLE_COLOR = '#444444';

let fontsAndDefaultsSet = false;
/** The fonts and Chart.js defaults every chart of the tool uses, then the given chart components (again is harmless). */
export function registerChartComponents(...components: ChartComponentLike[]): void {
  if (!fontsAndDefaultsSet) {
    registerChartFonts();
    Chart.defaults.font.family = CHART_FONT_FAMILY;
    Chart.defaults.font.size = 13;
    Chart.defaults.color = '#333333';
    fontsAndDefaultsSet = true;
  }
  Chart.register(...components);
}

/** A white background (a PNG is transparent otherwise). */
export function backgroundPlugin<T extends ChartType>(): Plugin<T> {
  return {
    id: 'mbBackground',
    beforeDraw(chart) {
      const { ctx } = chart;
      ctx.save();
      ctx.fillStyle = BACKGROUND;
      ctx.fillRect(0, 0, chart.width, chart.height);
      ctx.restore();
    },
  };
}

/** Red warning lines under the x axis: incomplete run, not MongoDB (room for them: WARNING_LINE_HEIGHT each). */
export function warningsPlugin<T extends ChartType>(lines: readonly string[]): Plugin<T> {
  return {
    id: 'mbWarnings',
    afterDraw(chart) {
      const { ctx } = chart;
      ctx.save();
      ctx.fillStyle = WARNING_COLOR;
      ctx.font = `bold 14px "${CHART_FONT_FAMILY}"`;
      ctx.textBaseline = 'bottom';
      ctx.textAlign = 'left';
      lines.forEach((line, i) =>
        ctx.fillText(line, 12, chart.height - 6 - (lines.length - 1 - i) * WARNING_LINE_HEIGHT),
      );
      ctx.restore();
    },
  };
}

export interface GuideLine {
  color: string;
  width: number;
  dash: number[];
}

/**
 * Strokes one guide line across the plot area (a step boundary, a change point, a threshold) at a
 * value of the x or y scale; returns its pixel position, snapped to the pixel grid so it stays sharp.
 */
export function strokeGuideLine(
  chart: Chart,
  axis: 'x' | 'y',
  value: number,
  line: GuideLine,
): number {
  const { ctx, chartArea } = chart;
  const at = Math.round(chart.scales[axis].getPixelForValue(value)) + 0.5;
  ctx.save();
  ctx.strokeStyle = line.color;
  ctx.lineWidth = line.width;
  ctx.setLineDash(line.dash);
  ctx.beginPath();
  if (axis === 'x') {
    ctx.moveTo(at, chartArea.top);
    ctx.lineTo(at, chartArea.bottom);
  } else {
    ctx.moveTo(chartArea.left, at);
    ctx.lineTo(chartArea.right, at);
  }
  ctx.stroke();
  ctx.restore();
  return at;
}

/** The background, then the warning lines when there are any: the plugins every chart starts with. */
export function basePlugins<T extends ChartType>(warnings: readonly string[] = []): Plugin<T>[] {
  return [backgroundPlugin<T>(), ...(warnings.length > 0 ? [warningsPlugin<T>(warnings)] : [])];
}

type LegendLabels = NonNullable<
  NonNullable<NonNullable<ChartOptions<'line'>['plugins']>['legend']>['labels']
>;

/** The legend of the line charts: round markers above the plot. */
export const LINE_LEGEND_LABELS: LegendLabels = {
  usePointStyle: true,
  boxWidth: 9,
  boxHeight: 9,
  padding: 18,
};

export interface ChartFrame {
  title: string;
  /** One line, or several (Chart.js does not wrap: see wrapSubtitle). */
  subtitle: string | string[];
  /** Red lines drawn by warningsPlugin under the chart; room is made for them. */
  warnings?: readonly string[];
  /** Draw the title (on by default; tests turn it off to prove text is drawn). */
  showTitle?: boolean;
  /** Space around the title; Chart.js's own (10 above and below) when absent. */
  titlePadding?: { top: number; bottom: number };
  subtitleColor?: string;
  /** Legend labels (LINE_LEGEND_LABELS when absent); false: no legend. */
  legend?: LegendLabels | false;
}

/** The options every chart shares: a fixed-size still image, the title block, the legend and room for warnings. */
export function baseChartOptions(frame: ChartFrame) {
  const warnings = frame.warnings?.length ?? 0;
  return {
    responsive: false,
    animation: false as const,
    devicePixelRatio: 1,
    layout: { padding: { left: 8, right: 16, top: 4, bottom: 8 + warnings * WARNING_LINE_HEIGHT } },
    plugins: {
      title: {
        display: frame.showTitle !== false,
        text: frame.title,
        font: { size: 18, weight: 'bold' as const },
        color: TITLE_COLOR,
        ...(frame.titlePadding ? { padding: frame.titlePadding } : {}),
      },
      subtitle: {
        display: true,
        text: frame.subtitle,
        font: { size: 13 },
        color: frame.subtitleColor ?? SUBTITLE_COLOR,
        padding: { bottom: 8 },
      },
      legend:
        frame.legend === false
          ? { display: false }
          : { display: true, position: 'top' as const, labels: frame.legend ?? LINE_LEGEND_LABELS },
    },
  };
}

/** An axis title in the shared font. */
export function axisTitle(text: string) {
  return { display: true, text };
}

/** Draws a Chart.js configuration (its components registered) on a canvas of that size: PNG bytes. */
export async function renderConfigurationPng<T extends ChartType>(
  configuration: ChartConfiguration<T>,
  width = CHART_WIDTH,
  height = CHART_HEIGHT,
): Promise<Buffer> {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d') as unknown as ConstructorParameters<typeof Chart>[0];
  const chart = new Chart(context, configuration);
  try {
    return await canvas.encode('png');
  } finally {
    chart.destroy();
  }
}
