/**
 * One self-contained HTML page from a plain page model: sections of live charts (ChartSpecs drawn by
 * Chart.js in the browser), tables (sortable), facts and text. Chart.js and its zoom plugin are
 * inlined, the data is embedded as JSON, and a Content-Security-Policy forbids every request but the
 * page's own images, so the file works from file:// and attached to a CI run. Without JavaScript the
 * tables stay and each chart shows its PNG (when it has one).
 *
 * The report (index-html.ts), the compare page (compare-page.ts) and a history page all render
 * through `renderPage`: build a PageModel, get the HTML.
 */
import { ChartSpec } from '../chart-data';
import { Table } from '../tables';
import { chartConfigScript, inlineLibraries } from './assets';
import { pageScript } from './page-script';
import { PAGE_STYLE } from './page-style';

export interface ChartBlock {
  kind: 'chart';
  spec: ChartSpec;
  /** The PNG of the same chart beside the page, shown when scripts do not run. */
  image?: string;
  /** Charts of one group zoom and pan together (their x axes are the same seconds). */
  zoomGroup?: string;
}

export interface TableBlock {
  kind: 'table';
  table: Table;
  /** Click a column's heading to sort the rows by it. */
  sortable?: boolean;
  /** Show the table's title as its caption (default true). */
  caption?: boolean;
}

export interface TextBlock {
  kind: 'text';
  text: string;
  style?: 'plain' | 'warning' | 'note' | 'strong';
}

export interface ListBlock {
  kind: 'list';
  items: string[];
}

export interface FactsBlock {
  kind: 'facts';
  facts: Array<[string, string]>;
}

/** Blocks side by side (one column on a narrow window). */
export interface GridBlock {
  kind: 'grid';
  blocks: PageBlock[];
}

/** A heading and its blocks; level 2 sections are listed in the page's navigation. */
export interface SectionBlock {
  kind: 'section';
  heading: string;
  level?: 2 | 3;
  /** Folded away until clicked (long, rarely read parts). */
  collapsed?: boolean;
  blocks: PageBlock[];
}

export type PageBlock =
  ChartBlock | TableBlock | TextBlock | ListBlock | FactsBlock | GridBlock | SectionBlock;

export interface PageModel {
  title: string;
  blocks: PageBlock[];
  /**
   * Plain data embedded as JSON, each entry in `<script type="application/json" id="mb-data-KEY">`:
   * a reader (or a test) gets it back with JSON.parse of that element's text.
   */
  data?: Record<string, unknown>;
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON inside <script>: `<` escaped as \u003c so no text in the data can close the element or open a comment. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * Scripts and styles inline only; images from the page's own folder (the PNG fallbacks); nothing
 * else, so no chart, font or library can be fetched from a network even by mistake.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' file: data:";

/**
 * The served page's (run --serve): the file page's, plus requests to the server it came from (its event
 * stream, /events). Only that server: no other host can be reached from the page either.
 */
export const SERVED_CONTENT_SECURITY_POLICY = `${CONTENT_SECURITY_POLICY}; connect-src 'self'`;

export interface RenderOptions {
  /** The page's Content-Security-Policy (default: the file page's, CONTENT_SECURITY_POLICY). */
  csp?: string;
  /** A script of its own run after the page's (the served page's event stream), in the page's scope rules. */
  script?: string;
  /**
   * The page's icon as a URL the page holds itself (`data:,`: none), so the browser asks its server for
   * nothing the page does not (the served page; a file page is asked for no icon).
   */
  icon?: string;
  /** Inline Chart.js even when no block has a chart (the served page draws the running step's seconds). */
  chartLibraries?: boolean;
}

export function htmlTable(
  table: Table,
  options: { caption?: boolean; sortable?: boolean } = {},
): string {
  const head = table.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const body = table.rows
    .map(
      (row) =>
        `<tr>${row.map((cell, i) => `<td class="${table.align[i]}">${escapeHtml(cell)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  const caption = options.caption !== false ? `<caption>${escapeHtml(table.title)}</caption>` : '';
  return `<table${options.sortable ? ' class="sortable"' : ''}>${caption}\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table>`;
}

function slug(text: string, taken: Set<string>): string {
  const base =
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'section';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

interface RenderState {
  charts: Array<{ spec: ChartSpec; zoomGroup?: string }>;
  ids: Set<string>;
  nav: Array<{ id: string; heading: string }>;
}

function chartHtml(block: ChartBlock, state: RenderState): string {
  const index =
    state.charts.push({
      spec: block.spec,
      ...(block.zoomGroup ? { zoomGroup: block.zoomGroup } : {}),
    }) - 1;
  const { spec } = block;
  const fallback = block.image
    ? `<img src="${escapeHtml(encodeURI(block.image))}" width="1000" height="600" alt="${escapeHtml(spec.title)}">`
    : '<span class="note">This chart is drawn by JavaScript; its figures are in the tables.</span>';
  return [
    `<figure class="chart" id="chart-${index}" data-chart="${index}">`,
    `<figcaption><strong>${escapeHtml(spec.title)}</strong><br><span class="subtitle">${escapeHtml(spec.subtitle)}</span></figcaption>`,
    ...spec.warnings.map((w) => `<p class="warning">${escapeHtml(w)}</p>`),
    `<noscript>${fallback}</noscript>`,
    '</figure>',
  ].join('\n');
}

function blockHtml(block: PageBlock, state: RenderState): string {
  switch (block.kind) {
    case 'chart':
      return chartHtml(block, state);
    case 'table':
      return htmlTable(block.table, { caption: block.caption, sortable: block.sortable });
    case 'text':
      return `<p${block.style && block.style !== 'plain' ? ` class="${block.style}"` : ''}>${escapeHtml(block.text)}</p>`;
    case 'list':
      return `<ul>${block.items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`;
    case 'facts':
      return `<dl>${block.facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
    case 'grid':
      return `<div class="grid">\n${block.blocks.map((b) => `<div>${blockHtml(b, state)}</div>`).join('\n')}\n</div>`;
    case 'section': {
      const level = block.level ?? 2;
      const id = slug(block.heading, state.ids);
      if (level === 2) state.nav.push({ id, heading: block.heading });
      const inner = block.blocks.map((b) => blockHtml(b, state)).join('\n');
      if (block.collapsed)
        return `<section id="${id}"><details><summary><h${level}>${escapeHtml(block.heading)}</h${level}></summary>\n${inner}\n</details></section>`;
      return `<section id="${id}"><h${level}>${escapeHtml(block.heading)}</h${level}>\n${inner}\n</section>`;
    }
  }
}

/**
 * The page: inline style, the model's blocks, the embedded data, the libraries and the page's own script.
 * Its generator meta is how a later command knows the page for mongo-bench's and may replace it
 * (lib/common/file-plan.ts).
 */
export function renderPage(model: PageModel, options: RenderOptions = {}): string {
  const state: RenderState = { charts: [], ids: new Set(['mb-charts']), nav: [] };
  const body = model.blocks.map((b) => blockHtml(b, state)).join('\n');
  const nav =
    state.nav.length > 1
      ? `<nav>${state.nav.map((n) => `<a href="#${n.id}">${escapeHtml(n.heading)}</a>`).join(' · ')}</nav>`
      : '';
  const data = Object.entries(model.data ?? {}).map(
    ([key, value]) =>
      `<script type="application/json" id="mb-data-${escapeHtml(key)}">${embedJson(value)}</script>`,
  );
  const own = `<script>\n${pageScript(chartConfigScript())}\n</script>`;
  const extra = options.script ? [`<script>\n${options.script}\n</script>`] : [];
  const scripts =
    state.charts.length > 0 || options.chartLibraries
      ? [
          ...inlineLibraries().map(
            (lib) => `<script data-library="${lib.name}">\n${lib.source}\n</script>`,
          ),
          own,
          ...extra,
        ]
      : [own, ...extra];
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="mongo-bench">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${options.csp ?? CONTENT_SECURITY_POLICY}">
${options.icon !== undefined ? `<link rel="icon" href="${escapeHtml(options.icon)}">\n` : ''}<title>${escapeHtml(model.title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<h1>${escapeHtml(model.title)}</h1>
${nav}
${body}
<div id="mb-tooltip" role="status" hidden></div>
${data.join('\n')}
<script type="application/json" id="mb-charts">${embedJson(state.charts)}</script>
${scripts.join('\n')}
</body>
</html>
`;
}
