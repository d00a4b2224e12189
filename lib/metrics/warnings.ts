/**
 * The warnings that qualify a result's figures, computed from the result alone (so any result file,
 * old or new, gets the same verdict): every path that writes a result (the local loop, worker threads,
 * agents, scenarios, the perf suite, the experiments) runs `annotateResult` over it first. Each step (and
 * each scenario's step) gets `warnings` and `steadiness`; the codes this module computes are replaced on
 * every pass, codes added by other parts of the run are kept. docs/report.md lists the codes.
 */
import type {
  LatencySummary,
  ResultDocument,
  StepResult,
  StepSteadiness,
  StepWarning,
  TrendRecord,
} from '../result';
import { perSecondRate } from '../result';
import { CLIENT_BOUND_MESSAGE } from './client-load';
import { normalUpperTail } from './normal-tail';
import { NOT_TESTABLE_MESSAGE, trendTest } from './steadiness';
import { dropUndefined } from '../common/values';
import { oplogWindowWarning } from './oplog-warning';

/** A share of failed ops above this is the `errors` warning. */
export const ERRORS_WARNING_SHARE = 0.01;
/** A percentile needs at least this many samples to mean something (p99 from 100, p99.9 from 1,000). */
export const PERCENTILE_MIN_SAMPLES: Record<'p99' | 'p999', number> = { p99: 100, p999: 1000 };
/** A step with fewer ops than this is the `few-samples` warning, whatever its percentiles. */
export const STEP_MIN_OPS = 100;

/** The codes computed here (replaced on every pass); others are kept as their authors left them. */
export const COMPUTED_CODES = [
  'errors',
  'few-samples',
  'mix-not-held',
  'not-steady',
  'client-bound',
  'probe-client-bound',
  'nothing-scheduled',
  'nothing-measured',
  'timer-late',
  'oplog-window',
  'outage',
] as const;
/** The open model's timer lateness is worth a warning from this share of the mean latency, over this share of the ops. */
export const TIMER_LATE_SHARE_OF_LATENCY = 0.25;
export const TIMER_LATE_MIN_OPS_SHARE = 0.1;

export interface StepContext {
  /** The workload's op specs, as the result records them (for the mix). Absent: the mix is not checked. */
  ops?: readonly unknown[];
  /** The result's `--rate N%` probe: its maximum may have been set by the load generator. */
  probeClientBound?: { clients: number };
}

const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');
const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`;
const signedPct = (x: number): string => `${x >= 0 ? '+' : ''}${Math.round(x * 10) / 10}%`;

/** The percentiles of a summary that come from too few samples ('p99', 'p999'). */
export function thinPercentiles(summary: Pick<LatencySummary, 'count'>): Array<'p99' | 'p999'> {
  if (summary.count <= 0) return [];
  return (['p99', 'p999'] as const).filter((p) => summary.count < PERCENTILE_MIN_SAMPLES[p]);
}

/**
 * The application could not read or write for a while during the step (docs/reliability.md): from the
 * step's `availability` alone.
 */
function outageWarning(step: StepResult): StepWarning | undefined {
  const a = step.availability;
  if (!a || a.outages.length === 0) return undefined;
  const seconds = a.unavailableSeconds ?? a.outages.reduce((s, o) => s + o.seconds, 0);
  const kinds = [...new Set(a.outages.map((o) => o.kind))];
  const longest = Math.max(...a.outages.map((o) => o.seconds));
  const failed = a.outages.reduce((s, o) => s + (o.opsFailed ?? 0), 0);
  return {
    code: 'outage',
    message: `${a.outages.length} outage${a.outages.length === 1 ? '' : 's'} (${kinds.join(', ')}): ${Math.round(seconds * 1000) / 1000} s unavailable, the longest ${longest} s, ${n0(failed)} op${failed === 1 ? '' : 's'} failed in ${a.outages.length === 1 ? 'it' : 'them'}`,
    outages: a.outages.length,
    seconds: Math.round(seconds * 1000) / 1000,
    longestSeconds: longest,
    kinds,
  };
}

function errorsWarning(step: StepResult): StepWarning | undefined {
  const attempts = step.ops.reads + step.ops.writes + step.ops.errors;
  if (attempts === 0 || step.ops.errors / attempts <= ERRORS_WARNING_SHARE) return undefined;
  const first = step.errorSamples?.[0];
  const share = step.ops.errors / attempts;
  return {
    code: 'errors',
    message: `${n0(step.ops.errors)} of ${n0(attempts)} ops failed (${pct(share)})${first ? `; first error: ${first.error}: ${first.example}` : ''}`,
    count: step.ops.errors,
    share: Math.round(share * 10000) / 10000,
    ...(first ? { firstError: first.example } : {}),
  };
}

function fewSamplesWarning(step: StepResult): StepWarning | undefined {
  const parts: string[] = [];
  const thin: Record<string, number> = {};
  const summaries: Array<[string, LatencySummary]> = [
    ['reads', step.latencyMicros.reads],
    ['writes', step.latencyMicros.writes],
  ];
  for (const [name, summary] of summaries) {
    const which = thinPercentiles(summary);
    if (which.length === 0) continue;
    thin[name] = summary.count;
    parts.push(
      `${name} ${which.map((p) => (p === 'p999' ? 'p99.9' : p)).join(' and ')} from ${n0(summary.count)} sample${summary.count === 1 ? '' : 's'}`,
    );
  }
  const ops = step.ops.reads + step.ops.writes;
  const smallStep = ops > 0 && ops < STEP_MIN_OPS;
  if (parts.length === 0 && !smallStep) return undefined;
  const lead = smallStep
    ? `too few samples: the step measured ${n0(ops)} op${ops === 1 ? '' : 's'} (fewer than ${STEP_MIN_OPS})`
    : 'too few samples';
  return {
    code: 'few-samples',
    message: parts.length > 0 ? `${lead}: ${parts.join('; ')}` : lead,
    ops,
    samples: thin,
  };
}

/** The op type a spec names, as the engine keys latencyByOpMicros (`op`, or `type` once parsed). */
function specType(spec: unknown): string | undefined {
  if (typeof spec !== 'object' || spec === null) return undefined;
  const s = spec as { op?: unknown; type?: unknown };
  const t = typeof s.op === 'string' ? s.op : typeof s.type === 'string' ? s.type : undefined;
  return t;
}

const CLIENT_SIDE = new Set(['nop', 'let']);

function mixWarning(step: StepResult, ops: readonly unknown[]): StepWarning | undefined {
  if (step.ops.errors > 0 || step.ops.reads + step.ops.writes === 0) return undefined;
  // Weighted picks: each op's share of the attempts against its weight, a binomial test at p < 0.001.
  const weights = ops.map((o) =>
    typeof o === 'object' && o !== null ? (o as { weight?: unknown }).weight : undefined,
  );
  if (step.opCounts && weights.some((w) => typeof w === 'number')) {
    const total = step.opCounts.reduce((a, b) => a + b, 0);
    const weightSum = weights.reduce<number>((a, w) => a + (typeof w === 'number' ? w : 0), 0);
    if (total === 0 || weightSum <= 0) return undefined;
    const off: string[] = [];
    step.opCounts.forEach((count, i) => {
      const w = weights[i];
      if (typeof w !== 'number') return;
      const p = w / weightSum;
      const expected = total * p;
      // The normal approximation to the binomial holds where both tails expect 5 or more.
      if (expected < 5 || total * (1 - p) < 5) return;
      const z = (count - expected) / Math.sqrt(total * p * (1 - p));
      if (2 * normalUpperTail(Math.abs(z)) < 0.001)
        off.push(
          `op ${i} (${specType(ops[i]) ?? '?'}) ran ${n0(count)} times, its weight expects ${n0(expected)}`,
        );
    });
    return off.length > 0
      ? {
          code: 'mix-not-held',
          message: `the weighted mix did not hold (binomial test, p < 0.001): ${off.join('; ')}`,
        }
      : undefined;
  }
  // A fixed cycle: each client is at most one pass short, so an op type's count may differ from its share
  // of all ops by at most (clients x its occurrences per pass).
  const byOp = step.latencyByOpMicros;
  const types = ops
    .map(specType)
    .filter((t): t is string => t !== undefined && !CLIENT_SIDE.has(t));
  if (types.length === 0) return undefined;
  const perPass = new Map<string, number>();
  for (const t of types) perPass.set(t, (perPass.get(t) ?? 0) + 1);
  if (perPass.size < 2 || !byOp || [...perPass.keys()].some((t) => byOp[t] === undefined))
    return undefined;
  const total = [...perPass.keys()].reduce((s, t) => s + byOp[t].count, 0);
  const off: string[] = [];
  for (const [t, occurrences] of perPass) {
    const expected = (total * occurrences) / types.length;
    const allowed = step.clients * occurrences;
    if (Math.abs(byOp[t].count - expected) > allowed)
      off.push(
        `${t} ran ${n0(byOp[t].count)} times, the cycle expects ${n0(expected)} (+-${n0(allowed)})`,
      );
  }
  return off.length > 0
    ? {
        code: 'mix-not-held',
        message: `the op mix did not hold (more than one pass per client off): ${off.join('; ')}`,
      }
    : undefined;
}

/**
 * The open model starts an op no sooner than its due time and times it from then; a free client waits on
 * a timer (`--arrivals timer`: Node's timers wake whole milliseconds late at best) or on a timer and then
 * the event loop's poller (`exact`: late only when the loop or the machine is busy). Where that lateness
 * is a large part of the latency, whichever the mode, the latencies say more about the load generator than
 * about the server.
 */
function timerLateWarning(step: StepResult): StepWarning | undefined {
  const a = step.arrival;
  if (!a || a.timerWaits === undefined || a.timerLateMicrosAvg === undefined) return undefined;
  const { reads, writes } = step.latencyMicros;
  const count = reads.count + writes.count;
  if (count === 0 || a.timerWaits / count < TIMER_LATE_MIN_OPS_SHARE) return undefined;
  const meanLatency = (reads.avg * reads.count + writes.avg * writes.count) / count;
  if (!(meanLatency > 0) || a.timerLateMicrosAvg < TIMER_LATE_SHARE_OF_LATENCY * meanLatency)
    return undefined;
  const ms = (us: number) => `${Math.round(us / 10) / 100} ms`;
  const p99 = a.waitLateMicros ? `, ${ms(a.waitLateMicros.p99)} at p99` : '';
  const remedy =
    a.arrivals === 'exact'
      ? 'its event loop or machine was too busy to start them on time (each polling event loop needs a core of its own: on a machine with fewer free cores, --arrivals timer)'
      : '--arrivals exact starts them within microseconds';
  return {
    code: 'timer-late',
    message:
      `the load generator's ${a.arrivals === 'exact' ? 'waits' : 'timers'} started ${n0(a.timerWaits)} ops (${pct(a.timerWaits / count)}) ${ms(a.timerLateMicrosAvg)} after their due time on average${p99}, ` +
      `and the open model times each op from its due time: that wait is ${pct(a.timerLateMicrosAvg / meanLatency)} of the mean latency (${ms(meanLatency)}); ` +
      `${remedy}; for the server's own latency at this load, read the closed loop (no --rate)`,
    timerWaits: a.timerWaits,
    timerLateMicrosAvg: a.timerLateMicrosAvg,
  };
}

function record(t: ReturnType<typeof trendTest>, trial?: number): TrendRecord {
  const round = (x: number | null, digits: number) =>
    x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits;
  return {
    n: t.n,
    testable: t.testable,
    pValue: round(t.pValue, 6),
    senSlope: round(t.senSlope, 3),
    changePercent: round(t.changePercent, 1),
    trending: t.trending,
    ...dropUndefined({ trial }),
  };
}

/** The steadiness tests of a step: its seconds per trial, and its trials' means in time order. */
export function stepSteadiness(step: StepResult): StepSteadiness {
  const open = step.arrival !== undefined;
  const series: StepSteadiness['series'] = open ? 'latencyAvgMicros' : 'opsPerSec';
  const value = (s: StepResult['perSecond'][number]): number | undefined =>
    open ? s.latencyAvgMicros : perSecondRate(s, s.reads + s.writes);
  const byTrial = new Map<number, number[]>();
  for (const s of step.perSecond) {
    const v = value(s);
    if (v === undefined) continue;
    const key = s.trial ?? 1;
    byTrial.set(key, [...(byTrial.get(key) ?? []), v]);
  }
  const several = byTrial.size > 1;
  const perSecond = [...byTrial].map(([trial, values]) =>
    record(trendTest(values), several ? trial : undefined),
  );
  const out: StepSteadiness = { series, perSecond };
  if (step.trials > 1 && byTrial.size > 1) {
    const means = open
      ? [...byTrial.values()].map((v) => v.reduce((a, b) => a + b, 0) / v.length)
      : (step.trialStats?.opsPerSec.values ??
        [...byTrial.values()].map((v) => v.reduce((a, b) => a + b, 0) / v.length));
    out.trials = record(trendTest(means));
  }
  const untestable =
    perSecond.some((t) => !t.testable) || out.trials?.testable === false || perSecond.length === 0;
  if (untestable) out.note = NOT_TESTABLE_MESSAGE;
  return out;
}

function steadinessWarning(step: StepResult, steadiness: StepSteadiness): StepWarning | undefined {
  const what = steadiness.series === 'opsPerSec' ? 'ops/s' : 'mean latency';
  const parts: string[] = [];
  for (const t of steadiness.perSecond) {
    if (t.trending)
      parts.push(
        `${what} moved ${signedPct(t.changePercent ?? 0)} over ${t.n} s${t.trial !== undefined ? ` of trial ${t.trial}` : ''} (Mann-Kendall p = ${t.pValue})`,
      );
  }
  if (steadiness.trials?.trending)
    parts.push(
      `the trials' ${what} moved ${signedPct(steadiness.trials.changePercent ?? 0)} from first to last (p = ${steadiness.trials.pValue})`,
    );
  if (step.warmup && !step.warmup.steady)
    parts.push(`the warm-up reached its cap (${step.warmup.seconds} s) before the ${what} settled`);
  if (parts.length === 0) return undefined;
  return { code: 'not-steady', message: `not in steady state: ${parts.join('; ')}` };
}

/** The warnings this module computes for one step (in a fixed order). */
export function computeStepWarnings(
  step: StepResult,
  context: StepContext = {},
): { warnings: StepWarning[]; steadiness?: StepSteadiness } {
  const out: StepWarning[] = [];
  const attempts = step.ops.reads + step.ops.writes + step.ops.errors;
  if (step.arrival && step.arrival.scheduled === 0) {
    out.push({
      code: 'nothing-scheduled',
      message: 'the rate scheduled no op in the measured window: nothing was measured',
    });
  } else if (attempts === 0 && step.status !== 'failed' && step.status !== 'interrupted') {
    out.push({
      code: 'nothing-measured',
      message: 'no op completed in the measured window: the step has no figures',
    });
  }
  const outage = outageWarning(step);
  if (outage) out.push(outage);
  const errors = errorsWarning(step);
  if (errors) out.push(errors);
  const few = fewSamplesWarning(step);
  if (few) out.push(few);
  const mix = context.ops ? mixWarning(step, context.ops) : undefined;
  if (mix) out.push(mix);
  const steadiness = attempts > 0 ? stepSteadiness(step) : undefined;
  const notSteady = steadiness
    ? steadinessWarning(step, steadiness)
    : step.warmup && !step.warmup.steady
      ? steadinessWarning(step, {
          series: step.arrival ? 'latencyAvgMicros' : 'opsPerSec',
          perSecond: [],
        })
      : undefined;
  if (notSteady) out.push(notSteady);
  const timerLate = timerLateWarning(step);
  if (timerLate) out.push(timerLate);
  if (step.clientBound) out.push({ code: 'client-bound', message: CLIENT_BOUND_MESSAGE });
  const oplog = oplogWindowWarning(step.oplog);
  if (oplog) out.push(oplog);
  if (context.probeClientBound) {
    out.push({
      code: 'probe-client-bound',
      message: `the --rate probe's maximum was set by the load generator (client-bound at ${context.probeClientBound.clients} client${context.probeClientBound.clients === 1 ? '' : 's'}), not the server: the rate held is a share of mongo-bench's ceiling`,
    });
  }
  return { warnings: out, ...(steadiness ? { steadiness } : {}) };
}

const computed = new Set<string>(COMPUTED_CODES);

function annotateStep(step: StepResult, context: StepContext): void {
  const kept = (step.warnings ?? []).filter((w) => !computed.has(w.code));
  const { warnings, steadiness } = computeStepWarnings(step, context);
  const all = [...warnings, ...kept];
  if (all.length > 0) step.warnings = all;
  else delete step.warnings;
  if (steadiness) step.steadiness = steadiness;
  else delete step.steadiness;
}

/**
 * Computes every step's warnings and steadiness, in place, and returns the result: the result's
 * invariants layer, run before any result is written. Idempotent.
 */
export function annotateResult<T extends ResultDocument>(result: T): T {
  const probe = result.rateProbe?.clientBoundAtMax
    ? { clients: result.rateProbe.clientsAtMax }
    : undefined;
  // With scenarios, `steps` holds all of them together: no one workload's mix applies to it.
  const ops = result.scenarios
    ? undefined
    : Array.isArray(result.workload?.ops)
      ? (result.workload.ops as unknown[])
      : undefined;
  for (const step of result.steps)
    annotateStep(step, { ops, ...(probe && step.arrival ? { probeClientBound: probe } : {}) });
  for (const scenario of result.scenarios ?? []) {
    for (const step of scenario.steps) annotateStep(step, { ops: scenario.workload.ops });
  }
  return result;
}

/** Every warning of a result, flattened with where it belongs ("clients 4", "scenario reader, clients 2"). */
export function resultWarnings(
  result: ResultDocument,
): Array<{ where: string; warning: StepWarning }> {
  const out: Array<{ where: string; warning: StepWarning }> = [];
  // In a run of scenarios, the run's one step is all of them together, not a client count.
  const where = (step: StepResult) =>
    result.scenarios ? 'all scenarios' : `clients ${step.clients}`;
  for (const step of result.steps)
    for (const warning of step.warnings ?? []) out.push({ where: where(step), warning });
  for (const scenario of result.scenarios ?? []) {
    for (const step of scenario.steps)
      for (const warning of step.warnings ?? [])
        out.push({ where: `scenario ${scenario.name}, clients ${step.clients}`, warning });
  }
  return out;
}

/** One line per warning, as the terminal and the reports print them: "WARNING clients 4 [few-samples]: ...". */
export function warningLines(result: ResultDocument): string[] {
  return resultWarnings(result).map(
    ({ where, warning }) => `WARNING ${where} [${warning.code}]: ${warning.message}`,
  );
}

/** A percentile for display: the number, or "12 samples" when it comes from too few of them. */
export function percentileCell(
  summary: LatencySummary,
  percentile: 'p50' | 'p95' | 'p99' | 'p999',
  format: (micros: number) => string,
): string {
  if (summary.count === 0) return '-';
  if (
    (percentile === 'p99' || percentile === 'p999') &&
    summary.count < PERCENTILE_MIN_SAMPLES[percentile]
  )
    return `${n0(summary.count)} sample${summary.count === 1 ? '' : 's'}`;
  return format(summary[percentile]);
}
