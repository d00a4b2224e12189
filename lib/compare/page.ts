/**
 * The compare page (index.html beside compare.md): whatever `compare` decided (its table of ratios,
 * p-values and verdicts, its conclusion and notes), the B/A ratios as a live chart, and the two
 * results overlaid as in `report A B`. Rendered by the report's page renderer; both results and the
 * comparison are embedded (`mb-data-results`, `mb-data-comparison`).
 */
import { ResultDocument } from '../result';
import { ChartSpec, PALETTE, Series } from '../report/chart-data';
import { buildReportCharts } from '../report/chart-registry';
import { reportPageModel } from '../report/index-html';
import { PageBlock, PageModel, renderPage } from '../report/page/page';
import { Comparison } from './compare';
import { RATIO_SERIES } from './chart';
import { COMPARE_PNG, comparisonTable, conclusion, detectableLines } from './render-text';

/** The ratios by client count, with the no-change line and the ops/s regression threshold as flat lines. */
export function ratioChart(c: Comparison): ChartSpec {
  const ticks = c.steps.map((s) => s.clients);
  const flat = (label: string, y: number, color: string, dash: number[]): Series => ({
    label,
    color,
    pointStyle: 'crossRot',
    dash,
    points: ticks.map((x) => ({ x, y })),
  });
  const series: Series[] = RATIO_SERIES.map((r, i): Series => ({
    label: r.label,
    color: PALETTE[i % PALETTE.length],
    pointStyle: 'circle',
    dash: [],
    points: c.steps.map((s) => ({ x: s.clients, y: r.value(s) })),
  })).filter((s) => s.points.some((p) => p.y !== null));
  series.push(
    flat('no change (1)', 1, '#555555', [2, 3]),
    flat(`ops/s -${c.threshold}%: regression threshold`, 1 - c.threshold / 100, '#b00020', [6, 4]),
  );
  return {
    file: COMPARE_PNG,
    title: `B / A by concurrent clients: ${c.b.label} against ${c.a.label}`,
    subtitle: c.a.server === c.b.server ? c.a.server : `A: ${c.a.server} · B: ${c.b.server}`,
    warnings: c.warnings,
    x: { kind: 'clients', title: 'concurrent clients (log scale)', ticks },
    y: { title: 'ratio B / A (log scale; 1 = no change)', unit: 'ratio', scale: 'log' },
    series,
  };
}

export function comparePageModel(
  c: Comparison,
  results: readonly [ResultDocument, ResultDocument],
): PageModel {
  const who = (side: 'A' | 'B', r: Comparison['a']): [string, string] => [
    side,
    `${r.label}${r.file ? ` (${r.file})` : ''}, ${r.server}${r.complete ? '' : ' (incomplete)'}`,
  ];
  const verdicts: PageBlock[] = [
    { kind: 'facts', facts: [who('A', c.a), who('B', c.b)] },
    { kind: 'text', text: conclusion(c), style: c.regression ? 'warning' : 'strong' },
    ...c.notes.map((n): PageBlock => ({ kind: 'text', style: 'note', text: `Note: ${n}` })),
    { kind: 'table', table: comparisonTable(c), sortable: true },
    ...detectableLines(c).map((text): PageBlock => ({
      kind: 'text',
      style: 'note',
      text: `Smallest detectable change at ${text}`,
    })),
    {
      kind: 'text',
      style: 'note',
      text: `Method: ${c.method}; significance level ${c.alpha}. "faster" or "slower" needs p < ${c.alpha} and an ops/s change of at least ${c.noise}%; a significant slowdown beyond ${c.threshold}% is a regression. Latency ratios are shown, not tested (above 1 is slower).`,
    },
    { kind: 'chart', spec: ratioChart(c), image: COMPARE_PNG },
  ];
  // The results overlaid (the registry's charts marked for this page), live only: `compare` writes no PNG of them (`report A B` does).
  const overlay = reportPageModel(
    results,
    buildReportCharts(results, (entry) => entry.png && entry.comparePage),
    { comparePage: true },
  );
  const stripImages = (b: PageBlock): PageBlock =>
    b.kind === 'chart'
      ? { kind: 'chart', spec: b.spec, ...(b.zoomGroup ? { zoomGroup: b.zoomGroup } : {}) }
      : b.kind === 'grid' || b.kind === 'section'
        ? { ...b, blocks: b.blocks.map(stripImages) }
        : b;
  return {
    title: `mongo-bench compare: ${c.b.label} against ${c.a.label}`,
    blocks: [
      { kind: 'section', heading: 'Verdicts', blocks: verdicts },
      ...overlay.blocks.map(stripImages),
    ],
    data: { comparison: c, results },
  };
}

export function renderComparePage(
  c: Comparison,
  results: readonly [ResultDocument, ResultDocument],
): string {
  return renderPage(comparePageModel(c, results));
}

/** The compare page's file name, beside compare.md. */
export const COMPARE_PAGE = 'index.html';
