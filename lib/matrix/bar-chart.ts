/**
 * Grouped bar charts of the matrix (Chart.js 4 on @napi-rs/canvas, the report's font and palette).
 * barChartSpec() is pure (matrix document in, plain chart description out); renderBarChart() draws it.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  ChartConfiguration,
  Legend,
  LinearScale,
  LogarithmicScale,
  Plugin,
  SubTitle,
  Title,
} from 'chart.js';
import { PALETTE } from '../report/chart-data';
import {
  axisTitle,
  baseChartOptions,
  basePlugins,
  CHART_HEIGHT,
  CHART_WIDTH,
  registerChartComponents,
  renderConfigurationPng,
} from '../report/chart-base';
import { CHART_FONT_FAMILY } from '../report/fonts';
import { logTickLabel, wrapSubtitle } from '../report/render-chart';
import { MatrixDocument, sharedParameters } from './matrix-document';
import { formatMeasure } from './table';
import { MatrixChartDefinition, MeasureDefinition } from './types';

export interface BarDataset {
  label: string;
  color: string;
  /** One per category; null = no bar (see `notes`). */
  values: Array<number | null>;
  /** Per category, why there is no bar ("skipped", "failed"), drawn where the bar would stand. */
  notes: Array<string | null>;
}

export interface BarChartSpec {
  file: string;
  title: string;
  subtitle: string;
  warnings: string[];
  categories: string[];
  datasets: BarDataset[];
  y: { title: string; scale: 'linear' | 'log'; measure: MeasureDefinition };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function targetLine(doc: MatrixDocument): string {
  const t = doc.target;
  const server = t.testDouble
    ? `test double (reports ${t.serverVersion ?? '?'}), not MongoDB`
    : `MongoDB ${t.serverVersion ?? '?'}`;
  const params = sharedParameters(doc)
    .filter(([k]) => k !== 'randomSeed')
    .map(([k, v]) => `${k} ${typeof v === 'number' ? v.toLocaleString('en-US') : String(v)}`)
    .join(', ');
  const scale = doc.scaleApplied ? [`scale ${doc.scale}`] : [];
  return [
    doc.name === doc.experiment ? doc.name : `${doc.name} (${doc.experiment})`,
    doc.capabilities.topology.kind,
    server,
    ...scale,
    params,
  ].join(' · ');
}

function chartWarnings(doc: MatrixDocument): string[] {
  const out: string[] = [];
  if (!doc.complete)
    out.push(
      `INCOMPLETE matrix${doc.incompleteReason ? `: ${doc.incompleteReason}` : ''} (showing the configurations that finished)`,
    );
  if (doc.target.testDouble) out.push('TEST DOUBLE server: these numbers are not MongoDB numbers');
  return out;
}

const noteFor = (status: string): string => (status === 'ok' ? '' : status);

export function barChartSpec(doc: MatrixDocument, def: MatrixChartDefinition): BarChartSpec {
  const measures = def.measures.map((key) => {
    const m = doc.measures.find((x) => x.key === key);
    if (!m) throw new Error(`chart ${def.file}: unknown measure ${key}`);
    return m;
  });
  const common = {
    file: def.file,
    title: def.title,
    subtitle: targetLine(doc),
    warnings: chartWarnings(doc),
    y: { title: def.yTitle, scale: def.scale, measure: measures[0] },
  };
  if (measures.length === 1) {
    // One measure: x = configuration groups, one bar per series within a group.
    const [measure] = measures;
    const groups = unique(doc.rows.map((r) => r.group));
    const series = unique(doc.rows.map((r) => r.series));
    const datasets = series.map((s, i) => {
      const cell = (g: string) => doc.rows.find((r) => r.group === g && r.series === s);
      return {
        label: s,
        color: PALETTE[i % PALETTE.length],
        values: groups.map((g) => {
          const row = cell(g);
          return row && row.status === 'ok' ? (row.measures[measure.key] ?? null) : null;
        }),
        notes: groups.map((g) => {
          const row = cell(g);
          return row ? noteFor(row.status) || null : null;
        }),
      };
    });
    return { ...common, categories: groups, datasets };
  }
  // Several measures of one unit: x = configurations, one bar per measure.
  const categories = doc.rows.map((r) => r.label);
  const datasets = measures.map((m, i) => ({
    label: m.title,
    color: PALETTE[i % PALETTE.length],
    values: doc.rows.map((r) => (r.status === 'ok' ? (r.measures[m.key] ?? null) : null)),
    // The note stands once, under the middle bar of the group.
    notes: doc.rows.map((r) =>
      i === Math.floor((measures.length - 1) / 2) ? noteFor(r.status) || null : null,
    ),
  }));
  return { ...common, categories, datasets };
}

/** The value above each bar, and the reason ("skipped") where a bar is missing. */
function labelsPlugin(spec: BarChartSpec): Plugin<'bar'> {
  return {
    id: 'mbBarLabels',
    afterDatasetsDraw(chart) {
      const { ctx, chartArea } = chart;
      ctx.save();
      ctx.font = `11px "${CHART_FONT_FAMILY}"`;
      ctx.textAlign = 'center';
      spec.datasets.forEach((ds, d) => {
        const meta = chart.getDatasetMeta(d);
        meta.data.forEach((bar, i) => {
          const { x, y } = bar.getProps(['x', 'y'], true) as { x: number; y: number };
          const value = ds.values[i];
          if (value !== null && Number.isFinite(y)) {
            ctx.fillStyle = '#222222';
            ctx.textBaseline = 'bottom';
            ctx.fillText(
              formatMeasure(value, spec.y.measure),
              x,
              Math.max(chartArea.top + 12, y - 3),
            );
          } else if (ds.notes[i]) {
            ctx.fillStyle = '#888888';
            ctx.translate(x, chartArea.bottom - 6);
            ctx.rotate(-Math.PI / 2);
            ctx.textAlign = 'left';
            ctx.textBaseline = 'middle';
            ctx.fillText(ds.notes[i] as string, 0, 0);
            ctx.setTransform(1, 0, 0, 1, 0, 0);
            ctx.textAlign = 'center';
          }
        });
      });
      ctx.restore();
    },
  };
}

/** Log-axis bounds: a power of ten under the smallest bar (bars grow from the axis minimum), room above the tallest. */
export function logAxisBounds(values: number[]): { min?: number; max?: number } {
  const positive = values.filter((v) => v > 0);
  if (positive.length === 0) return {};
  return {
    min: 10 ** Math.floor(Math.log10(Math.min(...positive))),
    max: 10 ** Math.ceil(Math.log10(Math.max(...positive) * 1.5)),
  };
}

/** Splits a long category label over lines at ", " / " (" so ticks do not overlap. */
export function wrapCategory(label: string, maxChars = 18): string[] {
  if (label.length <= maxChars) return [label];
  const parts = label.split(/(?<=,) | (?=\()/);
  const lines: string[] = [];
  let line = '';
  for (const part of parts) {
    if (line && (line + ' ' + part).length > maxChars) {
      lines.push(line);
      line = part;
    } else line = line ? `${line} ${part}` : part;
  }
  if (line) lines.push(line);
  return lines;
}

export function barChartConfiguration(
  spec: BarChartSpec,
  width = CHART_WIDTH,
): ChartConfiguration<'bar'> {
  const values = spec.datasets.flatMap((d) => d.values).filter((v): v is number => v !== null);
  const plugins = [...basePlugins<'bar'>(spec.warnings), labelsPlugin(spec)];
  const yTitle = axisTitle(spec.y.title);
  const maxChars = Math.max(10, Math.floor(width / Math.max(1, spec.categories.length) / 8));
  return {
    type: 'bar',
    data: {
      labels: spec.categories.map((c) => wrapCategory(c, maxChars)),
      datasets: spec.datasets.map((d) => ({
        label: d.label,
        data: d.values,
        backgroundColor: d.color,
        borderColor: d.color,
        borderWidth: 1,
        maxBarThickness: 90,
      })),
    },
    options: {
      ...baseChartOptions({
        title: spec.title,
        titlePadding: { top: 8, bottom: 4 },
        subtitle: wrapSubtitle(spec.subtitle, Math.floor(width / 8.5)),
        warnings: spec.warnings,
        legend: spec.datasets.length > 1 ? { boxWidth: 14 } : false,
      }),
      scales: {
        x: {
          ticks: { font: { size: 12 }, maxRotation: 0, autoSkip: false },
          grid: { display: false },
        },
        y:
          spec.y.scale === 'log'
            ? {
                type: 'logarithmic',
                ...logAxisBounds(values),
                ticks: { autoSkip: false, callback: (v) => logTickLabel(Number(v)) },
                title: yTitle,
              }
            : spec.y.measure.unit === '%'
              ? // A share: the axis ends at 100 %, with room above for the value labels.
                {
                  type: 'linear',
                  min: 0,
                  max: 110,
                  afterBuildTicks: (scale) => {
                    scale.ticks = scale.ticks.filter((t) => t.value <= 100);
                  },
                  ticks: { stepSize: 20 },
                  title: yTitle,
                }
              : { type: 'linear', beginAtZero: true, grace: '8%', title: yTitle },
      },
    },
    plugins,
  };
}

export async function renderBarChart(
  spec: BarChartSpec,
  size: { width?: number; height?: number } = {},
): Promise<Buffer> {
  registerChartComponents(
    BarController,
    BarElement,
    CategoryScale,
    LinearScale,
    LogarithmicScale,
    Title,
    SubTitle,
    Legend,
  );
  const width = size.width ?? CHART_WIDTH;
  return renderConfigurationPng(
    barChartConfiguration(spec, width),
    width,
    size.height ?? CHART_HEIGHT,
  );
}
