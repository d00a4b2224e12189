/**
 * The comparison chart: B/A ratios (ops/s, latency p50/p99) by client count on a log ratio axis (a
 * halving and a doubling lie as far from 1; a 99% collapse stays on the chart), with the line of no
 * change at 1, the regression threshold for ops/s, and each client count's verdict written above it. Drawn with the report's Chart.js-on-canvas
 * helpers (fonts, white background, warning lines) so it looks like every other chart of the tool.
 */
import {
  ChartConfiguration,
  Legend,
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
import { PALETTE } from '../report/chart-data';
import { CHART_FONT_FAMILY } from '../report/fonts';
import {
  axisTitle,
  baseChartOptions,
  basePlugins,
  registerChartComponents,
  renderConfigurationPng,
  strokeGuideLine,
} from '../report/chart-base';
import { Comparison, StepComparison } from './compare';

/** The B/A ratios drawn, on the PNG and on the compare page. */
export const RATIO_SERIES: Array<{ label: string; value: (s: StepComparison) => number | null }> = [
  { label: 'ops/s B/A (above 1: faster)', value: (s) => s.opsRatio },
  { label: 'read p50 B/A (above 1: slower)', value: (s) => s.latencyRatio.reads.p50 },
  { label: 'read p99 B/A', value: (s) => s.latencyRatio.reads.p99 },
  { label: 'write p50 B/A', value: (s) => s.latencyRatio.writes.p50 },
  { label: 'write p99 B/A', value: (s) => s.latencyRatio.writes.p99 },
];

/** Horizontal reference lines: no change (1) and the ops/s regression threshold. */
function referenceLinesPlugin(
  lines: Array<{ y: number; color: string; dash: number[]; label: string }>,
): Plugin<'line'> {
  return {
    id: 'mbCompareReferences',
    beforeDatasetsDraw(chart) {
      const { ctx, chartArea } = chart;
      for (const line of lines) {
        const py = Math.round(chart.scales.y.getPixelForValue(line.y)) + 0.5;
        if (py < chartArea.top || py > chartArea.bottom) continue;
        strokeGuideLine(chart, 'y', line.y, { color: line.color, width: 1.5, dash: line.dash });
        ctx.save();
        ctx.fillStyle = line.color;
        ctx.font = `12px "${CHART_FONT_FAMILY}"`;
        ctx.textAlign = 'left';
        ctx.textBaseline = 'bottom';
        ctx.fillText(line.label, chartArea.left + 4, py - 2);
        ctx.restore();
      }
    },
  };
}

/** The verdict of each client count, written at the top of the plot above its x. */
function verdictsPlugin(steps: readonly StepComparison[]): Plugin<'line'> {
  return {
    id: 'mbCompareVerdicts',
    afterDatasetsDraw(chart) {
      const { ctx, chartArea } = chart;
      ctx.save();
      ctx.font = `bold 12px "${CHART_FONT_FAMILY}"`;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'top';
      for (const s of steps) {
        const px = chart.scales.x.getPixelForValue(s.clients);
        if (px < chartArea.left || px > chartArea.right) continue;
        ctx.fillStyle = s.regression
          ? '#b00020'
          : s.verdict === 'not compared'
            ? '#777777'
            : '#333333';
        ctx.fillText(verdictLabel(s), px, chartArea.top + 4);
      }
      ctx.restore();
    },
  };
}

/** A verdict in a few words, for the chart. */
export function verdictLabel(s: StepComparison): string {
  if (s.regression) return 'REGRESSION';
  if (s.verdict === 'no difference beyond noise') return 'no difference';
  return s.verdict;
}

/** Ratio ticks of the log axis: the usual fractions and multiples, within the range drawn. */
const RATIO_TICKS = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.8, 0.9, 1, 1.1, 1.25, 2, 5, 10, 20, 50, 100,
];

export function comparisonChartConfiguration(c: Comparison): ChartConfiguration<'line'> {
  const steps = c.steps;
  const ticks = steps.map((s) => s.clients);
  const datasets = RATIO_SERIES.map((series, i) => ({
    series,
    color: PALETTE[i % PALETTE.length],
    points: steps.map((s) => ({ x: s.clients, y: series.value(s) })),
  }))
    .filter((d) => d.points.some((p) => p.y !== null))
    .map((d) => ({
      label: d.series.label,
      data: d.points,
      borderColor: d.color,
      backgroundColor: d.color,
      borderWidth: 2.5,
      pointRadius: 5,
      spanGaps: false,
    }));
  const values = datasets
    .flatMap((d) => d.data.map((p) => p.y))
    .filter((v): v is number => v !== null && v > 0);
  const lowLine = 1 - c.threshold / 100;
  // Room above the highest ratio for the verdicts written at the top.
  const yMin = Math.min(lowLine * 0.9, ...values.map((v) => v / 1.1));
  const yMax = Math.max(1.15, ...values.map((v) => v * 1.35));
  const warnings = c.warnings;
  const lo = ticks[0] ?? 1;
  const hi = ticks[ticks.length - 1] ?? 1;
  return {
    type: 'line',
    data: { datasets },
    options: {
      ...baseChartOptions({
        title: `B / A by concurrent clients: ${c.b.label} against ${c.a.label}`,
        subtitle: `${c.a.server === c.b.server ? c.a.server : `A: ${c.a.server} · B: ${c.b.server}`} · dashed: ${c.threshold}% regression threshold for ops/s`,
        warnings,
      }),
      parsing: false,
      scales: {
        x: {
          type: 'logarithmic',
          min: lo / 1.25,
          max: hi * 1.25,
          afterBuildTicks: (scale: Scale) => {
            scale.ticks = ticks.map((value) => ({ value }));
          },
          ticks: {
            callback: (value) => String(value),
            autoSkip: true,
            autoSkipPadding: 8,
            maxRotation: 0,
          },
          title: axisTitle('concurrent clients (log scale)'),
        },
        y: {
          type: 'logarithmic',
          min: yMin,
          max: yMax,
          afterBuildTicks: (scale: Scale) => {
            // Over a wide range the ticks near 1 would crowd: keep 1 and the decades' 1-2-5.
            const wide = yMax / yMin > 20;
            scale.ticks = RATIO_TICKS.filter(
              (v) =>
                v >= yMin &&
                v <= yMax &&
                (!wide ||
                  [1, 2, 5].includes(
                    Number((v / 10 ** Math.floor(Math.log10(v) + 1e-9)).toFixed(6)),
                  )),
            ).map((value) => ({ value }));
          },
          ticks: { callback: (value) => `${Number(value)}x` },
          title: axisTitle('ratio B / A (log scale; 1 = no change)'),
        },
      },
    },
    plugins: [
      ...basePlugins<'line'>(warnings),
      referenceLinesPlugin([
        { y: 1, color: '#555555', dash: [], label: 'no change' },
        { y: lowLine, color: '#b00020', dash: [6, 4], label: `ops/s -${c.threshold}%` },
      ]),
      verdictsPlugin(steps),
    ],
  };
}

export async function renderComparisonChart(c: Comparison): Promise<Buffer> {
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
  return renderConfigurationPng(comparisonChartConfiguration(c));
}
