/**
 * The combined table, shaped like the seeds' tables: one row per configuration, one column per measure
 * (units in the header), skipped rows kept with their reason. Rendered as summary.md and results.csv.
 */
import { markdownTable } from '../report/summary-md';
import { csvCell } from '../report/results-csv';
import { formatMs, formatOps } from '../report/format';
import { markedServerLabel, targetIsNotMongoDB, targetServerLabel } from '../report/describe';
import { MatrixDocument, sharedParameters } from './matrix-document';
import { findExperiment } from '../experiments/registry';
import { MatrixRow, MeasureDefinition } from './types';

const NONE = '–';
/** The mark of a byte figure of 0 that a test double reported (it holds its data in memory): not a measurement. */
const DOUBLE_ZERO = '0 †';
export const DOUBLE_ZERO_NOTE =
  "† The TEST DOUBLE's own figure: it holds its data in memory and reports storageSize 0; not a measurement of any disk.";

/** A byte measure of 0 on a test double: the double's reported 0, never to be read as a measurement. */
function doubleZero(
  doc: MatrixDocument,
  value: number | null | undefined,
  m: MeasureDefinition,
): boolean {
  return doc.target.testDouble === true && m.unit === 'bytes' && value === 0;
}

/** Units written after a figure; counts and ratios have none. */
export function unitShown(m: MeasureDefinition): string | undefined {
  return m.unit === 'count' || m.unit === 'docs' || m.unit === 'ratio' ? undefined : m.unit;
}

/** "Write (MiB/s)" */
export function columnTitle(m: MeasureDefinition): string {
  const unit = unitShown(m);
  return unit ? `${m.title} (${unit})` : m.title;
}

/** Display of one measure: MiB/s to 0.1, ms as in the reports, a share never rounded up to 100 %, bytes whole. */
export function formatMeasure(
  value: number | null | undefined,
  measure: MeasureDefinition,
): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NONE;
  switch (measure.unit) {
    case 'ms':
      return formatMs(value);
    case '%':
      // The seed wrote ">99%": 99.97 must not read as 100.
      return value >= 100 ? '100' : (Math.floor(value * 10) / 10).toFixed(1);
    case 'MiB/s':
    case 'MiB':
    case 's':
      return value >= 100 ? formatOps(value) : value.toFixed(1);
    case 'ratio':
      return value >= 100 ? formatOps(value) : value.toFixed(2);
    default:
      return formatOps(value);
  }
}

function statusCell(row: MatrixRow): string {
  // An ok row may still carry a remark (e.g. a run stopped at its time limit).
  return `${row.status}${row.reason ? `: ${row.reason}` : ''}`;
}

export interface TableModel {
  columns: string[];
  rows: string[][];
  align: Array<'left' | 'right'>;
}

export function matrixTable(doc: MatrixDocument): TableModel {
  const measures = doc.measures;
  const columns = ['Configuration', 'Settings', ...measures.map(columnTitle), 'Status'];
  const rows = doc.rows.map((row) => [
    row.label,
    row.settings,
    ...measures.map((m) =>
      doubleZero(doc, row.measures[m.key], m) ? DOUBLE_ZERO : formatMeasure(row.measures[m.key], m),
    ),
    statusCell(row),
  ]);
  return {
    columns,
    rows,
    align: ['left', 'left', ...measures.map(() => 'right' as const), 'left'],
  };
}

function describeTarget(doc: MatrixDocument): string {
  const t = doc.target;
  // Another product (FerretDB, ...) by its own name: its figures never under a MongoDB label.
  const server = t.testDouble
    ? `TEST DOUBLE (reports ${t.serverVersion ?? 'unknown'}), not MongoDB`
    : targetIsNotMongoDB(t)
      ? markedServerLabel(t)
      : `MongoDB ${t.serverVersion ?? '(version unknown)'}`;
  const topo = doc.capabilities.topology;
  const members =
    topo.kind === 'replicaSet' ? ` ${topo.setName}, ${topo.dataMembers} data-bearing members` : '';
  return `${t.uri} · ${topo.kind}${members} · ${server}`;
}

export function renderMatrixMarkdown(
  doc: MatrixDocument,
  chartFiles: readonly { file: string; title: string }[],
): string {
  const out: string[] = [`# mongo-bench matrix: ${doc.name}`, ''];
  if (doc.target.testDouble)
    out.push('> **TEST DOUBLE server: these numbers are not MongoDB numbers.**', '');
  else if (targetIsNotMongoDB(doc.target))
    out.push(
      `> **NOT MongoDB: ${targetServerLabel(doc.target)}; these are its numbers, not MongoDB's.**`,
      '',
    );
  if (!doc.complete)
    out.push(
      `> **INCOMPLETE${doc.incompleteReason ? `: ${doc.incompleteReason}` : ''}** (rows not run are marked).`,
      '',
    );
  out.push(`- Experiment: ${doc.experiment} (${doc.source})`);
  out.push(`- Target: ${describeTarget(doc)}`);
  out.push(`- Scale: ${doc.scaleApplied ? doc.scale : 'not applied'} (${doc.scaleNote})`);
  out.push(
    `- Parameters: ${sharedParameters(doc)
      .filter(([k]) => k !== 'randomSeed')
      .map(([k, v]) => `${k}=${typeof v === 'number' ? formatOps(v) : String(v)}`)
      .join(', ')}`,
  );
  out.push(`- Started: ${doc.startedAt}; finished: ${doc.finishedAt ?? 'did not finish'}`);
  out.push(...(findExperiment(doc.experiment)?.summaryLines ?? []));
  out.push('', markdownTable({ title: doc.name, ...matrixTable(doc) }));
  if (doc.rows.some((r) => doc.measures.some((m) => doubleZero(doc, r.measures[m.key], m))))
    out.push('', DOUBLE_ZERO_NOTE);
  if (doc.notes.length > 0) out.push('', '## Notes', '', ...doc.notes.map((n) => `- ${n}`));
  const withResults = doc.rows.filter((r) => r.resultFile);
  if (withResults.length > 0)
    out.push(
      '',
      '## Result documents',
      '',
      ...withResults.map(
        (r) => `- ${r.label}: [${r.resultFile}](${encodeURI(r.resultFile as string)})`,
      ),
    );
  if (chartFiles.length > 0)
    out.push(
      '',
      '## Charts',
      '',
      chartFiles.map((c) => `![${c.title}](${encodeURI(c.file)})`).join('\n\n'),
    );
  return `${out.join('\n')}\n`;
}

export function renderMatrixCsv(doc: MatrixDocument): string {
  const measures = doc.measures;
  const header = [
    'label',
    'status',
    'reason',
    'group',
    'series',
    'write_concern',
    'capped',
    'read_preference',
    'test_double',
    ...measures.map((m) => m.csv),
    'result_file',
  ];
  const lines = [header.join(',')];
  for (const row of doc.rows) {
    const wc = row.details?.writeConcern;
    const cells = [
      row.label,
      row.status,
      row.reason,
      row.group,
      row.series,
      wc === undefined || wc === null ? '' : JSON.stringify(wc),
      row.details?.capped as boolean | undefined,
      row.details?.readPreference as string | undefined,
      doc.target.testDouble === true,
      ...measures.map((m) => row.measures[m.key] ?? undefined),
      row.resultFile,
    ];
    lines.push(cells.map((c) => csvCell(c)).join(','));
  }
  return `${lines.join('\n')}\n`;
}
