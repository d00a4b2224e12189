/** summary.md: what was measured, the tables, links to the charts. */
import { availabilitySummaryLines } from './availability-summary';
import { sweepAdvice } from '../metrics/client-load';
import { ResultDocument } from '../result';
import { ChartSpec } from './chart-data';
import {
  clientBoundWarnings,
  environmentDetails,
  resultFacts,
  seriesLabels,
  warnings,
} from './describe';
import { formatOps } from './format';
import { comparisonTables, latencyByOpTable, resultTable, Table } from './tables';
import { agentSummaryLines } from './agents-summary';
import { serverSummaryLines } from './server-summary';
import { storageSummaryLines } from './storage-summary';
import { sloSummaryLines } from './slo-summary';
import { scenarioSummaryLines } from './scenario-report';
import { rateSummaryLines } from './rate-summary';

function escapeCell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function markdownTable(table: Table): string {
  const header = `| ${table.columns.map(escapeCell).join(' | ')} |`;
  const rule = `|${table.align.map((a) => (a === 'right' ? '---:' : ':---')).join('|')}|`;
  const rows = table.rows.map((row) => `| ${row.map(escapeCell).join(' | ')} |`);
  return [header, rule, ...rows].join('\n');
}

/** "Key: value" facts about one result, in display order. */
export function resultDetails(result: ResultDocument): Array<[string, string]> {
  const facts = resultFacts(result);
  const details: Array<[string, string]> = [
    ['Workload', facts.workload],
    ['Topology', facts.topology],
    ['Server', facts.server],
    [
      'Documents',
      `${result.workload.docs === undefined ? 'count not recorded' : formatOps(result.workload.docs)} (${facts.docSize})`,
    ],
    ['Target', result.target.uri],
    ['Started', result.startedAt],
    ['Finished', result.finishedAt ?? 'did not finish'],
    [
      'Status',
      result.complete
        ? 'complete'
        : `INCOMPLETE${result.incompleteReason ? `: ${result.incompleteReason}` : ''}`,
    ],
    ['Written by', `${result.tool.name} ${result.tool.version}`],
    ...environmentDetails(result),
  ];
  return details;
}

/** "32 clients: DuplicateKey (11000) x 3, e.g. E11000 ..." for every error kind a step recorded. */
export function errorLines(result: ResultDocument): string[] {
  return result.steps.flatMap((s) =>
    (s.errorSamples ?? []).map(
      (e) =>
        `${s.clients} client${s.clients === 1 ? '' : 's'}: ${e.error} x ${formatOps(e.count)}, e.g. ${e.example}`,
    ),
  );
}

function chartLinks(charts: readonly ChartSpec[]): string {
  return charts.map((c) => `![${c.title}](${encodeURI(c.file)})`).join('\n\n');
}

export function renderSummaryMarkdown(
  results: readonly ResultDocument[],
  charts: readonly ChartSpec[],
): string {
  const labels = seriesLabels(results);
  const out: string[] = ['# mongo-bench report', ''];
  out.push(
    results.length === 1
      ? `Result: **${escapeCell(labels[0])}**.`
      : `Comparison of ${results.length} results: ${labels.map((l) => `**${escapeCell(l)}**`).join(', ')}.`,
  );
  out.push(
    '',
    'Throughput is operations per second (reads = queries, writes = updates/inserts/deletes); latency is in milliseconds.',
  );
  for (const w of warnings(results)) out.push('', `> **${w}**`);
  for (const [what, meaning] of clientBoundWarnings(results))
    out.push('', `> **${escapeCell(what)} ${meaning}**`);
  if (results.length > 1) {
    out.push('', '## Comparison', '', 'One column per result; rows are concurrent clients.');
    for (const table of comparisonTables(results))
      out.push('', `### ${table.title}`, '', markdownTable(table));
    if (charts.length > 0) out.push('', '### Charts', '', chartLinks(charts));
  }
  results.forEach((result, i) => {
    out.push('', `## ${results.length > 1 ? 'Result: ' : ''}${escapeCell(labels[i])}`, '');
    for (const [key, value] of resultDetails(result)) out.push(`- ${key}: ${escapeCell(value)}`);
    out.push('');
    out.push(
      result.steps.length > 0
        ? markdownTable(resultTable(result, labels[i]))
        : '_No step finished: nothing measured._',
    );
    const byOp = latencyByOpTable(result);
    if (byOp) out.push('', `### ${byOp.title}`, '', markdownTable(byOp));
    const errors = errorLines(result);
    if (errors.length > 0)
      out.push('', 'Errors by kind:', '', ...errors.map((line) => `- ${escapeCell(line)}`));
    out.push(...availabilitySummaryLines(result, markdownTable));
    const advice = sweepAdvice(result.steps);
    if (advice) out.push('', `**Load generator:** ${advice}`);
    out.push(...agentSummaryLines(result, markdownTable));
    out.push(...storageSummaryLines(result, markdownTable));
    out.push(...serverSummaryLines(result, markdownTable));
    out.push(...sloSummaryLines(result, markdownTable));
    out.push(...scenarioSummaryLines(result, markdownTable));
    out.push(...rateSummaryLines(result, markdownTable));
  });
  if (results.length === 1 && charts.length > 0) out.push('', '## Charts', '', chartLinks(charts));
  return `${out.join('\n')}\n`;
}
