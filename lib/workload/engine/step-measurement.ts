/**
 * What a finished step measured, read off its state once every client has stopped.
 */
import { LoopReading } from '../../metrics/client-load';
import { errorsByClassOf } from '../../metrics/error-class';
import { LongestOp, MeasuredOutage, StepMeasurement } from '../../metrics/measurement';
import { dropUndefined } from '../../common/values';
import { ArrivalMeasurement, ArrivalSchedule } from './arrival-schedule';
import { StepState, epochMs } from './step-state';

/** `end`: when the last client stopped (performance.now()); `load`: the loop's over the window. */
export function stepMeasurement(
  step: StepState,
  end: number,
  load: LoopReading | undefined,
  schedule: ArrivalSchedule | undefined,
): StepMeasurement {
  const { tally, plan, measureStart, stopAt, opsLimit, opCounts, cut } = step;
  const interrupted =
    step.signal?.aborted === true &&
    (opsLimit === undefined ? end < stopAt : step.claimed < opsLimit);
  const elapsedSeconds = Math.max(0, (end - measureStart) / 1000);
  // An op count's window lasted as long as its ops: the seconds it spanned.
  const spanned =
    opsLimit === undefined
      ? plan.seconds
      : Math.min(tally.readsPerSecond.length, Math.max(1, Math.ceil(elapsedSeconds)));
  const buckets = interrupted ? Math.min(spanned, Math.ceil(elapsedSeconds)) : spanned;
  const toList = (a: Float64Array) => Array.from(a.subarray(0, buckets));
  // A timed window lasts its seconds even when its last op ended before the close (a rate's last due op).
  const windowSeconds =
    opsLimit === undefined && !interrupted ? plan.seconds : Math.min(elapsedSeconds, buckets);
  const arrival: ArrivalMeasurement | undefined = schedule?.finish(end, buckets);
  const latency = step.recorders.merged();
  const outages = stepOutages(step, end);
  return {
    clients: plan.clients,
    seconds: spanned,
    elapsedSeconds,
    windowSeconds,
    interrupted,
    reads: tally.reads,
    writes: tally.writes,
    errors: tally.errors,
    latency,
    perSecond: {
      reads: toList(tally.readsPerSecond),
      writes: toList(tally.writesPerSecond),
      errors: toList(tally.errorsPerSecond),
      latencyMicros: toList(tally.latencyPerSecond),
    },
    errorTallies: tally.tallies(),
    benchRun: tally.benchRun,
    overrun: {
      reads: tally.overrunReads,
      writes: tally.overrunWrites,
      errors: tally.overrunErrors,
      seconds: tally.lastLateEnd > stopAt ? Math.round(tally.lastLateEnd - stopAt) / 1000 : 0,
    },
    ...dropUndefined({ lostServer: tally.lostServer }),
    ...(tally.inFlightAtOpen > 0 ? { inFlightAtOpen: tally.inFlightAtOpen } : {}),
    ...(outages.length > 0 ? { outages } : {}),
    window: {
      start: epochMs(measureStart),
      end: epochMs(Number.isFinite(stopAt) ? stopAt : end),
    },
    stallMs: step.watch.stallMs,
    opsDelayed: step.watch.opsDelayed,
    ...dropUndefined({ longestOp: longestOp(step, latency) }),
    ...(load ? { load } : {}),
    ...(opCounts ? { opCounts } : {}),
    ...(arrival ? { arrival } : {}),
    ...(cut
      ? {
          cut: `still running ${Math.round((end - stopAt) / 100) / 10} s after the measured window closed (more than the ${plan.overrunLimitMs} ms allowed): cut`,
        }
      : {}),
  };
}

/** The lost-server outages (`all`) and each kind's, in time order (epoch ms). */
function stepOutages(step: StepState, end: number): MeasuredOutage[] {
  const lost: MeasuredOutage[] = step.tally.outages.map((o) => {
    const errorsByClass = errorsByClassOf(o.counts);
    return {
      kind: 'all',
      start: epochMs(o.start),
      ...(o.end !== undefined ? { end: epochMs(o.end) } : {}),
      ...(errorsByClass ? { errorsByClass } : {}),
      opsFailed: o.opsFailed,
    };
  });
  return [...lost, ...step.watch.finish(end, epochMs)].sort((a, b) => a.start - b.start);
}

/** The slowest op: the highest maximum of the per-op histograms (successes), or the slowest failure. */
function longestOp(step: StepState, latency: StepMeasurement['latency']): LongestOp | undefined {
  let best: LongestOp | undefined = step.watch.longestFailedOp;
  for (const o of latency.byIndex ?? []) {
    if (o.recorder.count === 0 || (best && o.recorder.max <= best.micros)) continue;
    best = {
      kind: step.ops[o.index].opClass === 'read' ? 'reads' : 'writes',
      index: o.index,
      micros: o.recorder.max,
    };
  }
  if (best) best.op = step.ops[best.index].name ?? step.ops[best.index].type;
  return best;
}
