/** Builds a step's result entry from the measurements of its trials (merging histograms, series and counts). */
import { isClientBound, mergeClientLoads, round1 } from './client-load';
import { LatencyRecorder, mergeRecorders } from './latency';
import { ArrivalMeasurement, StepMeasurement } from './measurement';
import {
  addBenchRunCounts,
  addOpCounts,
  mergeOpLatencies,
  sumTimerWaits,
} from './merge-measurements';
import { PerSecondSample, StepArrival, StepResult } from '../result';
import { trialStats } from './trial-stats';

/** benchRun's names for an op type's figures: the per-second rate field, the count field, the latency field. */
export interface BenchRunFigureNames {
  rate: string;
  count: string;
  latency: string;
}

/**
 * benchRun's figure names per op type, in the order they are written: handed in by the caller from
 * the op registry (lib/workload/engine/op-figures.ts summarizeStep), a floor above this one.
 */
export type BenchRunNames = Readonly<Record<string, BenchRunFigureNames>>;

export interface SummarizeOptions {
  status?: StepResult['status'];
  error?: string;
}

export function summarizeTrials(
  trials: StepMeasurement[],
  benchRunNames: BenchRunNames,
  options: SummarizeOptions = {},
): StepResult {
  if (trials.length === 0) throw new RangeError('summarizeStep needs at least one trial');
  const first = trials[0];
  const sum = (pick: (m: StepMeasurement) => number) => trials.reduce((s, m) => s + pick(m), 0);
  const reads = sum((m) => m.reads);
  const writes = sum((m) => m.writes);
  const errors = sum((m) => m.errors);
  const elapsed = sum((m) => m.elapsedSeconds);
  const perSec = (n: number) => (elapsed > 0 ? round1(n / elapsed) : 0);

  const perSecond: PerSecondSample[] = [];
  // The busiest second of any trial, by rate: a partial last second counts by its length.
  const peaks = { total: 0, reads: 0, writes: 0 };
  trials.forEach((m, trial) => {
    const series = closedSeries(m);
    series.reads.forEach((r, t) => {
      const sample: PerSecondSample = {
        t,
        reads: r,
        writes: series.writes[t],
        errors: series.errors[t],
      };
      if (trials.length > 1) sample.trial = trial + 1;
      const latencySum = series.latencyMicros?.[t];
      const answered = r + series.writes[t];
      if (latencySum !== undefined && answered > 0)
        sample.latencyAvgMicros = round1(latencySum / answered);
      if (series.arrival) Object.assign(sample, arrivalSecond(series.arrival, t));
      const span = series.spans[t];
      if (span !== 1) sample.span = Math.round(span * 1000) / 1000;
      perSecond.push(sample);
      notePeak(peaks, r, series.writes[t], span);
    });
  });

  const readLatency = mergeRecorders(trials.map((m) => m.latency.reads));
  const writeLatency = mergeRecorders(trials.map((m) => m.latency.writes));
  const opTypes = [...new Set(trials.flatMap((m) => [...m.latency.byOp.keys()]))];
  const byOp = new Map(
    opTypes.map((type) => [
      type,
      mergeRecorders(trials.map((m) => m.latency.byOp.get(type)).filter((r) => r !== undefined)),
    ]),
  );

  const counted = addBenchRunCounts(trials.map((m) => m.benchRun));
  let benchRun: Record<string, number>;
  if (counted) {
    // benchRun's own figures, by its rules (lib/workload/engine/benchrun-outcome.ts): nop/let in totalOps,
    // failed attempts in the per-op counters; mongo-bench's own figures are ops/opsPerSec above.
    benchRun = {
      totalOps: counted.totalOps,
      'totalOps/s': perSec(counted.totalOps),
      errCount: counted.errCount,
    };
    for (const [type, names] of Object.entries(benchRunNames)) {
      const c = counted.byOp[type] ?? { count: 0, micros: 0 };
      benchRun[names.rate] = perSec(c.count);
      benchRun[names.count] = c.count;
      if (c.count > 0) benchRun[names.latency] = round1(c.micros / c.count);
    }
  } else {
    // Measurements without benchRun's counts (made before they were kept): mongo-bench's figures.
    benchRun = { totalOps: reads + writes, 'totalOps/s': perSec(reads + writes), errCount: errors };
    for (const [type, names] of Object.entries(benchRunNames)) {
      const recorder = byOp.get(type);
      const count = recorder?.count ?? 0;
      benchRun[names.rate] = perSec(count);
      benchRun[names.count] = count;
      if (count > 0 && recorder) benchRun[names.latency] = round1(recorder.sum / count);
    }
  }

  const errorSamples = new Map<string, { error: string; count: number; example: string }>();
  for (const m of trials) {
    for (const tally of m.errorTallies) {
      const known = errorSamples.get(tally.error);
      if (known) known.count += tally.count;
      else errorSamples.set(tally.error, { ...tally });
    }
  }

  const step: StepResult = {
    clients: first.clients,
    seconds: first.seconds,
    trials: trials.length,
    status: options.status ?? (trials.some((m) => m.interrupted) ? 'interrupted' : 'ok'),
    ops: { reads, writes, errors },
    opsPerSec: { total: perSec(reads + writes), reads: perSec(reads), writes: perSec(writes) },
    // Never below the average: the average also counts the ops in flight at the close (the overrun)
    // over the time they took to finish, and where they finished faster than the window's seconds went
    // it passes every whole second; the window's last stretch, with them, ran at least at it.
    peakOpsPerSec: {
      total: Math.max(round1(peaks.total), perSec(reads + writes)),
      reads: Math.max(round1(peaks.reads), perSec(reads)),
      writes: Math.max(round1(peaks.writes), perSec(writes)),
    },
    latencyMicros: { reads: readLatency.summary(), writes: writeLatency.summary() },
    latencyByOpMicros: Object.fromEntries(
      [...byOp].map(([type, recorder]) => [type, recorder.summary()]),
    ),
    perSecond,
    benchRun,
    elapsedSeconds: Math.round(elapsed * 1000) / 1000,
  };
  if (options.error) step.error = options.error;
  const overruns = trials.flatMap((m) => (m.overrun ? [m.overrun] : []));
  if (overruns.length > 0) {
    // Trials ran one after another: counts add, and the overrun is the longest of any trial.
    const add = (pick: (o: (typeof overruns)[number]) => number) =>
      overruns.reduce((s, o) => s + pick(o), 0);
    step.overrun = {
      reads: add((o) => o.reads),
      writes: add((o) => o.writes),
      errors: add((o) => o.errors),
      seconds: Math.max(...overruns.map((o) => o.seconds)),
    };
  }
  if (trials.length > 1) {
    step.trialStats = {
      opsPerSec: trialStats(
        trials.map((m) => (m.elapsedSeconds > 0 ? (m.reads + m.writes) / m.elapsedSeconds : 0)),
      ),
    };
  }
  if (errorSamples.size > 0) step.errorSamples = [...errorSamples.values()];
  const inFlightAtOpen = sum((m) => m.inFlightAtOpen ?? 0);
  if (inFlightAtOpen > 0) step.inFlightAtOpen = inFlightAtOpen;
  const byIndex = mergeOpLatencies(trials.map((m) => m.latency.byIndex));
  if (byIndex)
    step.latencyByOp = byIndex.map(({ index, name, op, recorder }) => ({
      index,
      name,
      op,
      ...recorder.summary(),
    }));
  const opCounts = addOpCounts(trials.map((m) => m.opCounts));
  if (opCounts) step.opCounts = opCounts;
  const arrival = summarizeArrival(trials);
  if (arrival) step.arrival = arrival;
  const client = mergeClientLoads(trials.flatMap((m) => (m.client ? [m.client] : [])));
  if (client) {
    step.clientBound = isClientBound(client);
    step.client = client;
  }
  return step;
}

/** A tail of the window shorter than this (seconds) is folded into the second before it: a few ops make no spike. */
const FOLD_SECONDS = 0.2;

interface ClosedSeries {
  reads: number[];
  writes: number[];
  errors: number[];
  latencyMicros?: number[];
  arrival?: ArrivalMeasurement;
  /** The seconds each entry covers: 1, but the last (partial, or 1.x with a folded tail). */
  spans: number[];
}

/**
 * A trial's per-second series with its last, partial second measured: the window lasted
 * windowSeconds, so its last bucket covers what is left after the whole seconds before it. A tail
 * under FOLD_SECONDS is added to the second before it.
 */
function closedSeries(m: StepMeasurement): ClosedSeries {
  const n = m.perSecond.reads.length;
  const spans = new Array<number>(n).fill(1);
  const out: ClosedSeries = {
    reads: [...m.perSecond.reads],
    writes: [...m.perSecond.writes],
    errors: [...m.perSecond.errors],
    ...(m.perSecond.latencyMicros ? { latencyMicros: [...m.perSecond.latencyMicros] } : {}),
    ...(m.arrival
      ? {
          arrival: {
            ...m.arrival,
            scheduled: [...m.arrival.scheduled],
            dropped: [...m.arrival.dropped],
            late: [...m.arrival.late],
          },
        }
      : {}),
    spans,
  };
  if (n === 0 || m.windowSeconds === undefined || !(m.windowSeconds > 0)) return out;
  const tail = Math.min(1, m.windowSeconds - (n - 1));
  if (tail >= 1) return out;
  if (tail < FOLD_SECONDS && n >= 2) {
    const fold = (a: number[] | undefined) => {
      if (!a || a.length < n) return;
      a[n - 2] += a[n - 1];
      a.length = n - 1;
    };
    fold(out.reads);
    fold(out.writes);
    fold(out.errors);
    fold(out.latencyMicros);
    fold(out.arrival?.scheduled);
    fold(out.arrival?.dropped);
    fold(out.arrival?.late);
    spans.length = n - 1;
    spans[n - 2] = 1 + Math.max(0, tail);
  } else if (tail > 0) spans[n - 1] = tail;
  return out;
}

function notePeak(
  peaks: { total: number; reads: number; writes: number },
  reads: number,
  writes: number,
  span: number,
): void {
  peaks.total = Math.max(peaks.total, (reads + writes) / span);
  peaks.reads = Math.max(peaks.reads, reads / span);
  peaks.writes = Math.max(peaks.writes, writes / span);
}

/** One second's open-model counts (the engine's series may be one shorter when the step was cut short). */
function arrivalSecond(
  a: ArrivalMeasurement,
  t: number,
): Pick<PerSecondSample, 'scheduled' | 'dropped' | 'late'> {
  return { scheduled: a.scheduled[t] ?? 0, dropped: a.dropped[t] ?? 0, late: a.late[t] ?? 0 };
}

/** The open model's totals over the step's trials; undefined without a rate. */
function summarizeArrival(trials: StepMeasurement[]): StepArrival | undefined {
  const parts = trials.flatMap((m) => (m.arrival ? [m.arrival] : []));
  if (parts.length === 0) return undefined;
  const total = (pick: (a: ArrivalMeasurement) => number[]) =>
    parts.reduce((s, a) => s + pick(a).reduce((x, y) => x + y, 0), 0);
  const { target, lateAfterMs, dropAfterMs } = parts[0];
  const arrival: StepArrival = {
    target,
    lateAfterMs,
    dropAfterMs,
    scheduled: total((a) => a.scheduled),
    dropped: total((a) => a.dropped),
    late: total((a) => a.late),
  };
  const { timerWaits, timerLateMsSum, waitLate, arrivals } = sumTimerWaits(parts);
  if (arrivals) arrival.arrivals = arrivals;
  if (timerWaits !== undefined && timerWaits > 0) {
    arrival.timerWaits = timerWaits;
    arrival.timerLateMicrosAvg = Math.round(((timerLateMsSum ?? 0) / timerWaits) * 1000);
    if (waitLate) arrival.waitLateMicros = LatencyRecorder.decode(waitLate).summary();
  }
  return arrival;
}
