/** Plain-text tables for a step result (what the CLI prints as each step completes). */
import { CLIENT_BOUND_MESSAGE, describeClientLoad, describeAgentsLoad } from './client-load';
import { LatencySummary, StepResult } from '../result';
import { percentileCell } from './warnings';

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
}

const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');
const n1 = (x: number): string =>
  x.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** A percentile from too few samples is shown as its sample count ("12 samples"), never as a bare number. */
function latencyCells(l: LatencySummary): string[] {
  return l.count === 0
    ? ['-', '-', '-', '-', '-', '-']
    : [
        n0(l.avg),
        n0(l.p50),
        n0(l.p95),
        percentileCell(l, 'p99', n0),
        percentileCell(l, 'p999', n0),
        n0(l.max),
      ];
}

/**
 * The ops that completed after the window closed: in the totals and latencies, in no second of the
 * window (so not in peak/s). The closed loop has at most one per client (the op each had in flight at
 * the close): routine, so the line is printed only when they matter, that is when they are 1% of the
 * step's ops or more (a slow server: a few ops a step) or more than one per client and trial (the open
 * model: ops due in the window that waited for a busy client and started after its close).
 */
export function lateOpsLine(step: StepResult): string | undefined {
  const o = step.overrun;
  const late = o ? o.reads + o.writes + o.errors : 0;
  const total = step.ops.reads + step.ops.writes + step.ops.errors;
  if (!o || late === 0 || (late < 0.01 * total && late <= step.clients * step.trials))
    return undefined;
  const ops = `${n0(late)} op${late === 1 ? '' : 's'}`;
  // One op per client (and trial) at most is in flight at the close; in the open model the rest were due in
  // the window but waited for a busy client, so they started after it.
  const inFlight = step.clients * step.trials;
  const what =
    step.arrival && late > inFlight
      ? `${ops} due in it completed after its close, within ${o.seconds} s: at most ${n0(inFlight)} (one per client${step.trials > 1 ? ' and trial' : ''}) in flight at the close, the rest queued for a busy client and started after it`
      : `${ops} in flight at its close completed within ${o.seconds} s`;
  return `after the window: ${what}; ${late === 1 ? 'it is' : 'they are'} in the totals and latencies, not in any second (${Math.round((late / Math.max(1, total)) * 1000) / 10}% of the step's ops)`;
}

/**
 * "Latency by op" under the step's table, as results.json, summary.md and the page have it: one row per op
 * of the workload (its index in the ops array, what it runs), only where the workload has more than two
 * ops (with two or fewer, reads and writes above already tell them apart, or nearly).
 */
function opLatencyLines(step: StepResult): string[] {
  const rows = step.latencyByOp
    ? step.latencyByOp.map(({ index, name, op, ...summary }) => ({
        label: `${index} ${name === op ? op : `${op} ${name}`}`,
        summary,
      }))
    : Object.entries(step.latencyByOpMicros ?? {}).map(([op, summary]) => ({
        label: op,
        summary,
      }));
  if (rows.length <= 2) return [];
  const header = ['latency by op', 'ops', 'avg µs', 'p50', 'p95', 'p99', 'p99.9', 'max'];
  const cells = rows.map(({ label, summary }) => [
    label,
    n0(summary.count),
    ...latencyCells(summary),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  return [pad(header, widths), ...cells.map((r) => pad(r, widths).trimEnd())];
}

/** A small table: one row each for reads, writes and the total, then errors and trial spread if any. */
/** `opsPerTrial`: the step was bounded by an op count (--ops), not by seconds: the heading says so. */
export function formatStepTable(
  step: StepResult,
  heading = `clients ${step.clients}`,
  opsPerTrial?: number,
): string {
  const header = ['', 'ops', 'ops/s', 'peak/s', 'avg µs', 'p50', 'p95', 'p99', 'p99.9', 'max'];
  const rows = [
    [
      'reads',
      n0(step.ops.reads),
      n1(step.opsPerSec.reads),
      n0(step.peakOpsPerSec.reads),
      ...latencyCells(step.latencyMicros.reads),
    ],
    [
      'writes',
      n0(step.ops.writes),
      n1(step.opsPerSec.writes),
      n0(step.peakOpsPerSec.writes),
      ...latencyCells(step.latencyMicros.writes),
    ],
    [
      'total',
      n0(step.ops.reads + step.ops.writes),
      n1(step.opsPerSec.total),
      n0(step.peakOpsPerSec.total),
      '',
      '',
      '',
      '',
      '',
      '',
    ],
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const status =
    step.status && step.status !== 'ok'
      ? ` [${step.status}${step.error ? `: ${step.error}` : ''}]`
      : '';
  const lines = [
    `${heading}: ${opsPerTrial !== undefined ? `${opsPerTrial} ops` : `${step.seconds} s`} x ${step.trials} trial${step.trials === 1 ? '' : 's'}${status}`,
    pad(header, widths),
    ...rows.map((r) => pad(r, widths).trimEnd()),
    ...opLatencyLines(step),
  ];
  if (step.ops.errors > 0) {
    // The first kind carries the server's own message: "FailedToParse (9) x8228: Unknown modifier: $sett ...".
    const kinds = (step.errorSamples ?? [])
      .map((e, i) => `${e.error} x${e.count}${i === 0 && e.example ? `: ${e.example}` : ''}`)
      .join(', ');
    lines.push(`errors: ${n0(step.ops.errors)}${kinds ? ` (${kinds})` : ''}`);
  }
  if (step.availability && step.availability.outages.length > 0) {
    const a = step.availability;
    const down = a.outages
      .map(
        (o) =>
          `${o.kind} ${o.seconds} s${o.at !== undefined ? ` at ${o.at} s` : ''}${o.end === undefined ? ' (no end)' : ''}`,
      )
      .join(', ');
    lines.push(
      `outages: ${a.outages.length} (${down}); ${a.unavailableSeconds ?? 0} s unavailable${a.opsPerSecExcludesSeconds !== undefined ? `; ops/s leaves out ${a.opsPerSecExcludesSeconds} dead s (the step failed)` : '; ops/s over the whole window'}`,
    );
  }
  if (step.availability?.opsDelayed)
    lines.push(
      `delayed: ${step.availability.opsDelayed} ops slower than ${step.availability.stallMs ?? '–'} ms outside an outage`,
    );
  if (step.trialStats) {
    const t = step.trialStats.opsPerSec;
    lines.push(
      `ops/s across trials: mean ${n1(t.mean)}, median ${n1(t.median)}, stdev ${n1(t.stdev)}`,
    );
  }
  const late = lateOpsLine(step);
  if (late) lines.push(late);
  if (step.client)
    lines.push(
      `load generator: ${step.agents?.length ? describeAgentsLoad(step.client, step.agents.length) : describeClientLoad(step.client)}`,
    );
  if (step.clientBound) lines.push(`CLIENT-BOUND: ${CLIENT_BOUND_MESSAGE}`);
  for (const w of step.warnings ?? [])
    if (w.code !== 'client-bound') lines.push(`warning [${w.code}]: ${w.message}`);
  if (step.steadiness?.note) lines.push(step.steadiness.note);
  return lines.join('\n');
}
