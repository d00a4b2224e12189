/** index.html: charts and tables on one self-contained page (inline CSS, relative image paths, no network). */
import { ResultDocument } from '../metrics/result';
import { ChartSpec } from './chart-data';
import { clientBoundWarnings, seriesLabels, warnings } from './describe';
import { sweepAdvice } from '../metrics/client-load';
import { CHART_HEIGHT, CHART_WIDTH } from './render-chart';
import { errorLines, resultDetails } from './summary-md';
import { comparisonTables, resultTable, Table } from './tables';

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function htmlTable(table: Table, caption = true): string {
  const head = table.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const body = table.rows
    .map((row) => `<tr>${row.map((cell, i) => `<td class="${table.align[i]}">${escapeHtml(cell)}</td>`).join('')}</tr>`)
    .join('\n');
  return `<table>${caption ? `<caption>${escapeHtml(table.title)}</caption>` : ''}\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table>`;
}

function figures(charts: readonly ChartSpec[]): string {
  return charts
    .map((c) => `<figure><img src="${escapeHtml(encodeURI(c.file))}" width="${CHART_WIDTH}" height="${CHART_HEIGHT}" alt="${escapeHtml(c.title)}"></figure>`)
    .join('\n');
}

const STYLE = `
body { font-family: "DejaVu Sans", Verdana, Arial, sans-serif; margin: 24px; color: #222; max-width: 1100px; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { margin-top: 1.4em; }
.warning { color: #b00020; font-weight: bold; border: 2px solid #b00020; padding: 8px 12px; margin: 12px 0; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.9em; }
caption { text-align: left; font-weight: bold; padding: 4px 0; }
th, td { border: 1px solid #ccc; padding: 4px 8px; } th { background: #f2f2f2; }
td.right { text-align: right; font-variant-numeric: tabular-nums; } td.left { text-align: left; }
figure { margin: 16px 0; } img { max-width: 100%; height: auto; border: 1px solid #ddd; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; } dt { font-weight: bold; } dd { margin: 0; }
`;

export function renderIndexHtml(results: readonly ResultDocument[], charts: readonly ChartSpec[]): string {
  const labels = seriesLabels(results);
  const parts: string[] = [];
  const heading = results.length === 1 ? `mongo-bench report: ${labels[0]}` : `mongo-bench comparison: ${labels.join(' vs ')}`;
  parts.push(`<h1>${escapeHtml(heading)}</h1>`);
  parts.push('<p>Throughput is operations per second (reads = queries, writes = updates/inserts/deletes); latency is in milliseconds.</p>');
  for (const w of warnings(results)) parts.push(`<p class="warning">${escapeHtml(w)}</p>`);
  for (const [what, meaning] of clientBoundWarnings(results)) parts.push(`<p class="warning">${escapeHtml(`${what} ${meaning}`)}</p>`);
  if (results.length > 1) {
    parts.push('<h2>Comparison</h2>', '<p>One column per result; rows are concurrent clients.</p>');
    parts.push(figures(charts));
    for (const table of comparisonTables(results)) parts.push(htmlTable(table));
  }
  results.forEach((result, i) => {
    parts.push(`<h2>${escapeHtml(results.length > 1 ? `Result: ${labels[i]}` : labels[i])}</h2>`);
    parts.push(`<dl>${resultDetails(result).map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`);
    parts.push(result.steps.length > 0 ? htmlTable(resultTable(result, labels[i]), false) : '<p><em>No step finished: nothing measured.</em></p>');
    const errors = errorLines(result);
    if (errors.length > 0) parts.push(`<p>Errors by kind:</p><ul>${errors.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`);
    const advice = sweepAdvice(result.steps);
    if (advice) parts.push(`<p><strong>Load generator:</strong> ${escapeHtml(advice)}</p>`);
  });
  if (results.length === 1) parts.push('<h2>Charts</h2>', figures(charts));
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(heading)}</title>
<style>${STYLE}</style>
</head>
<body>
${parts.join('\n')}
</body>
</html>
`;
}
