/** The open model in summary.md: the target per step, what was scheduled, achieved, dropped and late, and `--rate 80%`'s probe. */
import type { RequestedRate, ResultDocument, StepArrival, StepResult } from '../result';
import type { Table } from './tables';

const count = (n: number) => Math.round(n).toLocaleString('en-US');

/** "500 ops/s", or "stages 100 → 2000 ops/s over 150 s". */
export function describeRequestedRate(target: RequestedRate): string {
  if (target.kind === 'constant') return `${count(target.opsPerSecond)} ops/s`;
  const rates = [target.startRate, ...target.stages.map((s) => s.rate)];
  const seconds = target.stages.reduce((s, x) => s + x.seconds, 0);
  return `stages ${rates
    .filter((r, i) => i === 0 || r !== rates[i - 1])
    .map(count)
    .join(' → ')} ops/s over ${Math.round(seconds * 10) / 10} s`;
}

/** A step of the open model (its `arrival` set; a scenario's step keeps its `startSecond`). */
export type OpenModelStep = StepResult & { arrival: StepArrival; startSecond?: number };

/**
 * The steps of the open model, each with what names it: a run's own steps by client count; in a run of
 * scenarios, only the open-model scenarios' steps, each against its own target (the run's one step adds
 * every scenario together, closed ones included, and is no open-model step).
 */
export function openModelSteps(
  result: ResultDocument,
): Array<{ name: string; step: OpenModelStep }> {
  const open = (name: string, step: StepResult) =>
    step.arrival ? [{ name, step: { ...step, arrival: step.arrival } }] : [];
  if (result.scenarios)
    return result.scenarios
      .filter((sc) => sc.rate !== undefined)
      .flatMap((sc) => sc.steps.flatMap((step) => open(sc.name, step)));
  return result.steps.flatMap((step) => open(String(step.clients), step));
}

export function rateTable(result: ResultDocument): Table | undefined {
  const steps = openModelSteps(result);
  if (steps.length === 0) return undefined;
  return {
    title: 'Open model (--rate)',
    columns: [
      result.scenarios ? 'scenario' : 'clients',
      'target',
      'scheduled',
      'achieved ops/s',
      'dropped',
      'late',
    ],
    rows: steps.map(({ name, step: s }) => {
      const a = s.arrival;
      const share = (n: number) =>
        a.scheduled > 0
          ? ` (${((100 * n) / a.scheduled).toFixed(n > 0 && n < a.scheduled / 1000 ? 3 : 1)}%)`
          : '';
      return [
        name,
        describeRequestedRate(a.target),
        count(a.scheduled),
        count(s.opsPerSec.total),
        `${count(a.dropped)}${share(a.dropped)}`,
        `${count(a.late)}${share(a.late)}`,
      ];
    }),
    align: [result.scenarios ? 'left' : 'right', 'left', 'right', 'right', 'right', 'right'],
  };
}

export function rateSummaryLines(
  result: ResultDocument,
  markdownTable: (t: Table) => string,
): string[] {
  const table = rateTable(result);
  if (!table) return [];
  const out = ['', '### Open model (--rate)', ''];
  const probe = result.rateProbe;
  if (probe) {
    out.push(
      `A closed probe (${probe.clients.join(', ')} clients, ${probe.seconds} s each after ${probe.warmupSeconds} s of warm-up) reached at most ${count(probe.maxOpsPerSec)} ops/s (${probe.clientsAtMax} clients); every step held ${Math.round(probe.share * 1000) / 10}% of it, ${count(probe.targetOpsPerSec)} ops/s.`,
      '',
    );
  }
  const open = openModelSteps(result);
  const a = open[0].step.arrival;
  const dropped = open.reduce((n, { step }) => n + step.arrival.dropped, 0);
  const late = open.reduce((n, { step }) => n + step.arrival.late, 0);
  out.push(
    markdownTable(table),
    '',
    `Ops are due on one schedule per step; latency counts from each op's due time. **Dropped: ${count(dropped)}** (never started: every client was still busy ${a.dropAfterMs} ms after the op was due); **late: ${count(late)}** (started more than ${a.lateAfterMs} ms after the op was due).`,
  );
  const lateness = latenessLine(open);
  if (lateness) out.push('', lateness);
  return out;
}

/**
 * How late the ops whose client was free started (the load generator's own error, inside every latency),
 * per step that recorded it; undefined when none did (older results).
 */
function latenessLine(open: Array<{ name: string; step: OpenModelStep }>): string | undefined {
  const parts = open.flatMap(({ name, step }) => {
    const w = step.arrival.waitLateMicros;
    return w ? [`${name}: p50 ${count(w.p50)} µs, p99 ${count(w.p99)} µs`] : [];
  });
  if (parts.length === 0) return undefined;
  const modes = [...new Set(open.map(({ step }) => step.arrival.arrivals ?? 'timer'))];
  return `Ops whose client was free waited for their due time (--arrivals ${modes.join(', ')}) and started this late after it (the load generator's own error, inside their latency): ${parts.join('; ')}.`;
}
