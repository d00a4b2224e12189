/**
 * What the application could not do (docs/reliability.md), for summary.md and index.html alike: one row
 * per outage (its start in seconds into its step's measured window and as a time of day, its kind,
 * how long, the failed ops by class), or one line "no outage"; then the delayed ops and the longest op.
 */
import { ERROR_CLASSES, ErrorsByClass, Outage, ResultDocument, StepResult } from '../result';
import type { Table } from './tables';

/** "network 12, notWritablePrimary 3"; "–" when none failed. */
export function errorsByClassText(errors: ErrorsByClass | undefined): string {
  const parts = ERROR_CLASSES.filter((c) => (errors?.[c] ?? 0) > 0).map(
    (c) => `${c} ${errors![c]}`,
  );
  return parts.length > 0 ? parts.join(', ') : '–';
}

/** HH:MM:SS.s of an ISO time, in UTC (the result's times are ISO, UTC). */
function timeOfDay(iso: string): string {
  return `${iso.slice(11, 21)} UTC`;
}

function kindText(o: Outage): string {
  if (o.kind !== 'all' || !o.spans || o.spans.length === 0) return o.kind;
  const parts = o.spans.map((s) => `${s.kind} ${s.seconds} s`).join(', ');
  return `all (${parts})`;
}

/** The steps of a result with an availability record, with how a row names them. */
function recordedSteps(result: ResultDocument): Array<{ where: string; step: StepResult }> {
  const steps = result.steps.map((step) => ({
    where: result.scenarios ? 'all scenarios' : String(step.clients),
    step,
  }));
  const scenarios = (result.scenarios ?? []).flatMap((sc) =>
    sc.steps.map((step) => ({ where: `${sc.name}, ${step.clients}`, step })),
  );
  return [...steps, ...scenarios].filter((s) => s.step.availability !== undefined);
}

/** The outages of a result, one row each; undefined when no step recorded its availability. */
export function availabilityTable(result: ResultDocument): Table | undefined {
  const steps = recordedSteps(result);
  if (steps.length === 0) return undefined;
  const trials = steps.some(({ step }) => step.availability!.outages.some((o) => o.trial));
  const rows = steps.flatMap(({ where, step }) =>
    step.availability!.outages.map((o) => [
      where,
      ...(trials ? [String(o.trial ?? 1)] : []),
      o.at !== undefined ? o.at.toFixed(1) : '–',
      timeOfDay(o.start),
      kindText(o),
      `${o.seconds}${o.end === undefined ? ' (no end)' : ''}`,
      String(o.opsFailed ?? '–'),
      errorsByClassText(o.errorsByClass),
    ]),
  );
  return {
    title: 'Outages',
    columns: [
      'Clients',
      ...(trials ? ['Trial'] : []),
      'Start (s into the window)',
      'Start (time of day)',
      'Kind',
      'Seconds',
      'Ops failed',
      'Failed ops by class',
    ],
    rows,
    align: [
      'right',
      ...(trials ? ['right' as const] : []),
      'right',
      'left',
      'left',
      'right',
      'right',
      'left',
    ],
  };
}

/** The delayed ops and the longest op of each step with a record: "4 clients: 12 ops delayed; longest ...". */
export function availabilityNotes(result: ResultDocument): string[] {
  return recordedSteps(result).flatMap(({ where, step }) => {
    const a = step.availability!;
    const longest = a.longestOp
      ? `; the longest op: ${a.longestOp.op} (${a.longestOp.kind}) ${a.longestOp.seconds} s${a.longestOp.failed ? ', failed' : ''}`
      : '';
    if ((a.opsDelayed ?? 0) === 0 && a.outages.length === 0 && !longest) return [];
    return [
      `${where} clients: ${a.unavailableSeconds ?? 0} s unavailable, ${a.opsDelayed ?? 0} ops delayed (slower than ${a.stallMs ?? '–'} ms outside an outage)${longest}`,
    ];
  });
}

/** Whether any step of the results had an outage. */
export function anyOutage(results: readonly ResultDocument[]): boolean {
  return results.some((r) => recordedSteps(r).some((s) => s.step.availability!.outages.length > 0));
}

/** summary.md's "Availability" section; nothing for results that recorded none. */
export function availabilitySummaryLines(
  result: ResultDocument,
  markdownTable: (t: Table) => string,
): string[] {
  const table = availabilityTable(result);
  if (!table) return [];
  const out = ['', '### Availability', ''];
  out.push(table.rows.length > 0 ? markdownTable(table) : 'No outage.');
  const notes = availabilityNotes(result);
  if (notes.length > 0) out.push('', ...notes.map((n) => `- ${n}`));
  return out;
}
