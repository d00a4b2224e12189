/** The objectives in summary.md: a table of verdicts (one row per objective, one column per client count), then the overall verdict. */
import type { ResultDocument, SloVerdict } from '../result';
import type { Table } from './tables';
import { SLO_EXIT_CODE } from '../slo/outcome';

function cell(v: SloVerdict | undefined): string {
  if (!v) return '–';
  if (v.pass === null || v.actual === null) return 'n/a';
  const actual =
    v.unit === 'µs'
      ? `${(v.actual / 1000).toFixed(v.actual >= 100_000 ? 0 : 2)} ms`
      : v.unit === '%'
        ? `${v.actual.toFixed(3)}%`
        : `${Math.round(v.actual).toLocaleString('en-US')} ${v.unit}`;
  return `${v.pass ? 'pass' : '**FAIL**'} (${actual})`;
}

export function sloTable(result: ResultDocument): Table | undefined {
  const slo = result.slo;
  if (!slo) return undefined;
  const clients = [...new Set(slo.verdicts.map((v) => v.clients))];
  return {
    title: 'Objectives',
    columns: ['objective', ...clients.map((c) => `${c} client${c === 1 ? '' : 's'}`)],
    rows: slo.objectives.map((o) => [
      o,
      ...clients.map((c) => cell(slo.verdicts.find((v) => v.objective === o && v.clients === c))),
    ]),
    align: ['left', ...clients.map(() => 'left' as const)],
  };
}

export function sloSummaryLines(
  result: ResultDocument,
  markdownTable: (t: Table) => string,
): string[] {
  const table = sloTable(result);
  if (!table || !result.slo) return [];
  const slo = result.slo;
  const verdict = slo.pass
    ? 'Every objective passed at every step.'
    : `**An objective failed** (exit ${SLO_EXIT_CODE})${slo.aborted ? '; --slo-abort stopped the sweep there.' : '.'}`;
  return ['', '### Objectives (--slo)', '', markdownTable(table), '', verdict];
}
