/** history.md: per label, the runs, the trend charts and a table of change points; then the CI gate's verdict. */
import { formatOps } from '../report/format';
import type { HistoryChangePoint, HistoryDocument, HistorySeries } from './history';
import type { NewestRunCheck } from './newest-run';

/** "-99.0% against the median of 3 runs (2026-01-01 .. 2026-01-03), beyond the 5.0% limit (4 x 1.0% noise scale, or the threshold)" */
export function formatNewestRun(c: NewestRunCheck, unit = ''): string {
  if (!c.tested || !c.baseline || c.changePercent === undefined)
    return `not tested: ${c.reason ?? ''}`;
  const pts = unit === '% of ops' ? ' points' : '%';
  const sign = c.changePercent >= 0 ? '+' : '';
  return `${sign}${c.changePercent.toFixed(1)}${pts} against the median of ${c.baseline.runs} runs (${c.baseline.first.startedAt} to ${c.baseline.last.startedAt}); limit ${c.limitPercent?.toFixed(1)}${pts} (max of --threshold and 4 x the noise scale ${c.scalePercent?.toFixed(1)}${pts}): ${c.failed ? 'FAILED' : 'passed'}`;
}

/** The gate's verdict in one line (history.md and the terminal end on it). */
export function gateLine(h: HistoryDocument): string {
  const failures = h.regressions.length + h.newestRunFailures.length;
  if (h.outcome === 'regression')
    return `regression: ${h.regressions.length} gated series end on a change point beyond ${h.options.threshold}%, ${h.newestRunFailures.length} newest run${h.newestRunFailures.length === 1 ? '' : 's'} fail the newest-run check: exit 1 (${failures} in all)`;
  if (h.outcome === 'not tested')
    return `not tested: no gated series has enough runs for either test (3 runs before the newest for the newest-run check, 10 for E-Divisive): exit 3`;
  return `no gated series ends on a regression beyond ${h.options.threshold}%: exit 0`;
}

export function formatValue(value: number, unit: string): string {
  if (unit === 'µs')
    return `${(value / 1000).toFixed(value >= 100_000 ? 0 : value >= 10_000 ? 1 : 2)} ms`;
  if (unit === '% of ops') return `${value.toFixed(value >= 1 ? 2 : 3)}%`;
  return `${formatOps(value)} ${unit}`;
}

export function formatChange(cp: HistoryChangePoint): string {
  return cp.changePercent === null
    ? 'from 0'
    : `${cp.changePercent >= 0 ? '+' : ''}${cp.changePercent.toFixed(1)}%`;
}

export function formatRun(run: { startedAt: string; label: string }): string {
  return `${run.startedAt} (${run.label})`;
}

function changeRow(s: HistorySeries, cp: HistoryChangePoint): string {
  const verdict =
    cp.direction === 'regression'
      ? cp.beyondThreshold
        ? '**regression**'
        : 'regression within the threshold'
      : 'improvement';
  return `| ${s.name} | ${s.clients} | ${formatRun(cp.firstAfter)} | ${formatRun(cp.lastBefore)} | ${formatValue(cp.meanBefore, s.unit)} | ${formatValue(cp.meanAfter, s.unit)} | ${formatChange(cp)} | ${cp.pvalue.toFixed(3)} | ${verdict} |`;
}

export function renderHistoryMarkdown(
  h: HistoryDocument,
  charts: Map<string, string[]> = new Map(),
): string {
  const o = h.options;
  const lines: string[] = [
    `# Performance history`,
    '',
    `Store: ${h.store}${o.label !== undefined ? `, label ${o.label}` : ''}. Generated ${h.generatedAt}.`,
    `Change points by E-Divisive means (p ≤ ${o.pvalue}, ${o.permutations} permutations, seed ${o.seed}; series of 10 runs or more); a regression is a significant worsening by more than ${o.threshold}%.`,
    `The newest-run check: each series' newest run against the median of the runs before its newest change point or failed check${o.accept !== undefined ? ` (from ${o.accept}, accepted)` : ''}; it fails beyond max(${o.threshold}%, 4 x the noise scale). Gated: ops/s, p50${o.gate.length > 0 ? `, ${o.gate.join(', ')}` : ''}.`,
    '',
  ];
  if (h.labels.length === 0)
    lines.push(
      'No results in the store' + (o.label !== undefined ? ` with label ${o.label}.` : '.'),
      '',
    );
  for (const label of h.labels) {
    lines.push(
      `## ${label.label}`,
      '',
      `${label.runs} run${label.runs === 1 ? '' : 's'}, ${label.first} to ${label.last}.`,
    );
    if (label.servers && label.servers.length > 0)
      lines.push('', `Server: ${label.servers.join('; ')}.`);
    for (const warning of label.notMongoDB ?? []) lines.push('', `**${warning}.**`);
    if (label.testDouble)
      lines.push('', '**Test double server: these numbers are not MongoDB numbers.**');
    if (label.mixesTestDouble)
      lines.push(
        '',
        '**Warning: this label mixes runs on a test double with runs on MongoDB; their numbers do not belong in one series.**',
      );
    lines.push('');
    for (const file of charts.get(label.label) ?? []) lines.push(`![trend](${file})`, '');
    const series = h.series.filter((s) => s.label === label.label);
    const rows = series.flatMap((s) => s.changePoints.map((cp) => changeRow(s, cp)));
    const checks = series
      .filter((s) => s.gated)
      .map(
        (s) =>
          `| ${s.name} | ${s.clients} | ${s.points.length} | ${s.eDivisive === 'tested' ? 'tested' : 'series too short'} | ${formatNewestRun(s.newestRun, s.unit)} |`,
      );
    if (checks.length > 0)
      lines.push(
        '| gated metric | clients | runs | E-Divisive | newest run |',
        '| --- | ---: | ---: | --- | --- |',
        ...checks,
        '',
      );
    if (rows.length === 0) {
      lines.push(
        'No change point in any series (ops/s, read and write p50/p99, errors at every client count).',
        '',
      );
    } else {
      lines.push(
        '| metric | clients | first run after the change | last run before | mean before | mean after | change | p-value | verdict |',
        '| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | --- |',
        ...rows,
        '',
      );
    }
  }
  lines.push('## Gate', '', `${gateLine(h)}.`, '');
  for (const f of h.newestRunFailures)
    lines.push(
      `- ${f.label}, ${f.metric} at ${f.clients} client${f.clients === 1 ? '' : 's'}: newest run ${formatNewestRun(f.check)}`,
    );
  for (const t of h.notTested)
    lines.push(
      `- ${t.label}, ${t.metric} at ${t.clients} client${t.clients === 1 ? '' : 's'}: not tested (${t.why})`,
    );
  {
    for (const r of h.regressions)
      lines.push(
        `- ${r.label}, ${r.metric} at ${r.clients} client${r.clients === 1 ? '' : 's'}: ${formatChange(r.changePoint)} from ${formatRun(r.changePoint.firstAfter)} on (p ${r.changePoint.pvalue.toFixed(3)})`,
      );
  }
  if (h.skipped.length > 0) {
    lines.push(
      '',
      '## Not read',
      '',
      ...h.skipped.map((s) => `- ${s.source}: ${s.why.split('\n')[0]}`),
    );
  }
  return `${lines.join('\n')}\n`;
}
