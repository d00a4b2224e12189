/** A comparison as text: one table model, drawn for the terminal and as compare.md. */
import { formatOps } from '../report/format';
import { markdownTable } from '../report/summary-md';
import { Table } from '../report/tables';
import { Comparison, StepComparison } from './compare';
import { counted } from '../common/values';

export const COMPARE_MD = 'compare.md';
export const COMPARE_PNG = 'compare-ratios.png';
export const COMPARE_JSON = 'compare.json';

const NONE = '–';

/** 0.8312 -> "0.83x (-16.9%)" */
export function formatRatio(value: number | null): string {
  if (value === null) return NONE;
  const pct = (value - 1) * 100;
  return `${value.toFixed(2)}x (${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%)`;
}

export function formatP(p: number | null): string {
  if (p === null) return NONE;
  return p < 0.0001 ? '< 0.0001' : p.toFixed(4);
}

function verdictCell(s: StepComparison): string {
  const base = s.regression ? `${s.verdict.toUpperCase()} (regression)` : s.verdict;
  return s.note ? `${base}: ${s.note}` : base;
}

/** The smallest detectable slowdown, shown beside the threshold column's title. */
function detectableCell(s: StepComparison): string {
  if (s.minDetectablePercent === undefined) return NONE;
  return s.minDetectablePercent === null ? 'none' : `${s.minDetectablePercent}%`;
}

/** Which latency classes the comparison has (a read-only workload has no write latencies). */
function latencyClasses(c: Comparison): Array<'reads' | 'writes'> {
  return (['reads', 'writes'] as const).filter((k) =>
    c.steps.some((s) => s.latencyRatio[k].p50 !== null),
  );
}

export function comparisonTable(c: Comparison): Table {
  const classes = latencyClasses(c);
  const columns = [
    'Clients',
    'A ops/s',
    'B ops/s',
    'ops/s B/A',
    ...classes.flatMap((k) => [
      `${k === 'reads' ? 'read' : 'write'} p50 B/A`,
      `${k === 'reads' ? 'read' : 'write'} p99 B/A`,
    ]),
    'runs A+B',
    'p',
    `detectable (threshold ${c.threshold}%)`,
    'Verdict',
  ];
  const rows = c.steps.map((s) => [
    String(s.clients),
    s.opsPerSecA === null ? NONE : formatOps(s.opsPerSecA),
    s.opsPerSecB === null ? NONE : formatOps(s.opsPerSecB),
    formatRatio(s.opsRatio),
    ...classes.flatMap((k) => [
      formatRatio(s.latencyRatio[k].p50),
      formatRatio(s.latencyRatio[k].p99),
    ]),
    `${s.samples.a}+${s.samples.b}`,
    formatP(s.pValue),
    detectableCell(s),
    verdictCell(s),
  ]);
  return {
    title: 'B against A by client count',
    columns,
    rows,
    align: columns.map((col) => (col === 'Verdict' ? 'left' : 'right')),
  };
}

function textTable(table: Table): string {
  const widths = table.columns.map((col, i) =>
    Math.max(col.length, ...table.rows.map((r) => r[i].length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) =>
        table.align[i] === 'right' ? cell.padStart(widths[i]) : cell.padEnd(widths[i]),
      )
      .join('  ')
      .trimEnd();
  return [
    line(table.columns),
    line(widths.map((w) => '-'.repeat(w))),
    ...table.rows.map(line),
  ].join('\n');
}

/** The one-line outcome, also the last line on the terminal. */
export function conclusion(c: Comparison): string {
  const slower = c.steps.filter((s) => s.verdict === 'slower').map((s) => s.clients);
  const faster = c.steps.filter((s) => s.verdict === 'faster').map((s) => s.clients);
  const regressed = c.steps.filter((s) => s.regression).map((s) => s.clients);
  if (regressed.length > 0)
    return `REGRESSION: B is slower than A beyond the ${c.threshold}% threshold at ${counted(regressed, 'client')}`;
  if (c.outcome === 'not compared') {
    const why = c.steps.find((s) => s.note)?.note;
    return `NOT COMPARED: no client count could be tested${why ? ` (${why})` : ''}; the ratios are shown, but they are no verdict`;
  }
  const untested = c.steps.filter((s) => s.verdict === 'not compared').map((s) => s.clients);
  const parts: string[] = [];
  if (slower.length > 0)
    parts.push(`slower (within the ${c.threshold}% threshold) at ${counted(slower, 'client')}`);
  if (faster.length > 0) parts.push(`faster at ${counted(faster, 'client')}`);
  const tail = untested.length > 0 ? ` (not compared at ${counted(untested, 'client')})` : '';
  return parts.length > 0
    ? `B is ${parts.join('; ')}; no regression beyond ${c.threshold}%${tail}`
    : `no difference beyond noise at any client count compared${tail}`;
}

/** Per client count, the smallest detectable change in words. */
export function detectableLines(c: Comparison): string[] {
  return c.steps.flatMap((s) =>
    s.detectable ? [`${s.clients} client${s.clients === 1 ? '' : 's'}: ${s.detectable}`] : [],
  );
}

function legend(c: Comparison): string[] {
  return [
    `Method: ${c.method}; significance level ${c.alpha} (${Math.round((1 - c.alpha) * 1000) / 10}% confidence).`,
    `A verdict of "faster" or "slower" needs p < ${c.alpha} and an ops/s change of at least ${c.noise}% (smaller significant changes are noise).`,
    `A slowdown beyond ${c.threshold}% that is significant is a regression (exit code 1). Latency ratios are shown, not tested (above 1 is slower).`,
    `"detectable": the ops/s slowdown the test would detect 4 times in 5 with these numbers of trials, simulated from the observed spread (at least --noise, ${c.noise}%); a threshold below it is a gate that can miss what it guards.`,
    'The replicates are trials (each with its own warm-up) or result files, never the seconds of one run: those are autocorrelated, and runs differ by more than their seconds suggest. One run each gives a ratio and "not compared" (exit code 3).',
  ];
}

export function renderComparisonText(c: Comparison): string {
  return [
    `A: ${c.a.label}${c.a.file ? ` (${c.a.file})` : ''}, ${c.a.server}`,
    `B: ${c.b.label}${c.b.file ? ` (${c.b.file})` : ''}, ${c.b.server}`,
    ...c.notes.map((n) => `note: ${n}`),
    '',
    textTable(comparisonTable(c)),
    '',
    ...detectableLines(c),
    '',
    ...legend(c),
    '',
    conclusion(c),
  ].join('\n');
}

export function renderComparisonMarkdown(c: Comparison): string {
  const who = (side: 'A' | 'B', r: Comparison['a']) =>
    `- **${side}**: ${r.label}${r.file ? ` (\`${r.file}\`)` : ''}, ${r.server}${r.complete ? '' : ' (incomplete)'}`;
  return [
    // The first line tells a later compare into this folder that the file is mongo-bench's (lib/common/file-plan.ts).
    '<!-- Generated by mongo-bench compare. -->',
    '# Comparison',
    '',
    who('A', c.a),
    who('B', c.b),
    ...c.notes.map((n) => `- note: ${n}`),
    '',
    `**${conclusion(c)}**`,
    '',
    markdownTable(comparisonTable(c)),
    '',
    ...detectableLines(c).map((l) => `- ${l}`),
    '',
    ...legend(c).map((l) => `- ${l}`),
    '',
    `![B/A ratios by client count](${COMPARE_PNG})`,
    '',
  ].join('\n');
}
