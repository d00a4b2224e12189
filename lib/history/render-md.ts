/** history.md: per label, the runs, the trend charts and a table of change points; then the CI gate's verdict. */
import { formatOps } from '../report/format';
import type { HistoryChangePoint, HistoryDocument, HistorySeries } from './history';

export function formatValue(value: number, unit: string): string {
  if (unit === 'µs') return `${(value / 1000).toFixed(value >= 100_000 ? 0 : value >= 10_000 ? 1 : 2)} ms`;
  if (unit === '% of ops') return `${value.toFixed(value >= 1 ? 2 : 3)}%`;
  return `${formatOps(value)} ${unit}`;
}

export function formatChange(cp: HistoryChangePoint): string {
  return cp.changePercent === null ? 'from 0' : `${cp.changePercent >= 0 ? '+' : ''}${cp.changePercent.toFixed(1)}%`;
}

export function formatRun(run: { startedAt: string; label: string }): string {
  return `${run.startedAt} (${run.label})`;
}

function changeRow(s: HistorySeries, cp: HistoryChangePoint): string {
  const verdict = cp.direction === 'regression' ? (cp.beyondThreshold ? '**regression**' : 'regression within the threshold') : 'improvement';
  return `| ${s.name} | ${s.clients} | ${formatRun(cp.firstAfter)} | ${formatRun(cp.lastBefore)} | ${formatValue(cp.meanBefore, s.unit)} | ${formatValue(cp.meanAfter, s.unit)} | ${formatChange(cp)} | ${cp.pvalue.toFixed(3)} | ${verdict} |`;
}

export function renderHistoryMarkdown(h: HistoryDocument, charts: Map<string, string[]> = new Map()): string {
  const o = h.options;
  const lines: string[] = [
    `# Performance history`,
    '',
    `Store: ${h.store}${o.label !== undefined ? `, label ${o.label}` : ''}. Generated ${h.generatedAt}.`,
    `Change points by E-Divisive means (p ≤ ${o.pvalue}, ${o.permutations} permutations, seed ${o.seed}); a regression is a significant worsening by more than ${o.threshold}%.`,
    '',
  ];
  if (h.labels.length === 0) lines.push('No results in the store' + (o.label !== undefined ? ` with label ${o.label}.` : '.'), '');
  for (const label of h.labels) {
    lines.push(`## ${label.label}`, '', `${label.runs} run${label.runs === 1 ? '' : 's'}, ${label.first} to ${label.last}.`);
    if (label.servers && label.servers.length > 0) lines.push('', `Server: ${label.servers.join('; ')}.`);
    for (const warning of label.notMongoDB ?? []) lines.push('', `**${warning}.**`);
    if (label.testDouble) lines.push('', '**Test double server: these numbers are not MongoDB numbers.**');
    if (label.mixesTestDouble) lines.push('', '**Warning: this label mixes runs on a test double with runs on MongoDB; their numbers do not belong in one series.**');
    lines.push('');
    for (const file of charts.get(label.label) ?? []) lines.push(`![trend](${file})`, '');
    const series = h.series.filter((s) => s.label === label.label);
    const rows = series.flatMap((s) => s.changePoints.map((cp) => changeRow(s, cp)));
    if (rows.length === 0) {
      lines.push('No change point in any series (ops/s, read and write p50/p99, errors at every client count).', '');
    } else {
      lines.push(
        '| metric | clients | first run after the change | last run before | mean before | mean after | change | p-value | verdict |',
        '| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | --- |',
        ...rows,
        '',
      );
    }
  }
  lines.push('## Gate', '');
  if (h.regressions.length === 0) lines.push('No series ends on a regression beyond the threshold: exit 0.');
  else {
    lines.push(`${h.regressions.length} series end${h.regressions.length === 1 ? 's' : ''} on a regression beyond ${o.threshold}%: exit 1.`, '');
    for (const r of h.regressions) lines.push(`- ${r.label}, ${r.metric} at ${r.clients} client${r.clients === 1 ? '' : 's'}: ${formatChange(r.changePoint)} from ${formatRun(r.changePoint.firstAfter)} on (p ${r.changePoint.pvalue.toFixed(3)})`);
  }
  if (h.skipped.length > 0) {
    lines.push('', '## Not read', '', ...h.skipped.map((s) => `- ${s.source}: ${s.why.split('\n')[0]}`));
  }
  return `${lines.join('\n')}\n`;
}
