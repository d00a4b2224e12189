/**
 * A step's trials made its result: summarized (or a failed step when nothing was measured), its
 * availability, the error-rate rule (--max-error-rate), its warm-up and trial starts, what its data
 * cost on disk and weighed against the cache, each member's oplog (./step-oplog.ts), the servers'
 * counts checked against it; then judged (the objectives, a failed step under --on-error), told,
 * written and handed on (hooks.onStepComplete).
 */
import { RUN_DEFAULTS, RunOptions } from '../options/run-options';
import type { StepResult } from '../../result';
import { annotateResult } from '../../metrics/warnings';
import { errorRateFailure } from '../../metrics/error-rate';
import { summarizeStep } from '../../workload/engine/op-figures';
import type { StepExecutor } from '../../workload/engine/step-executor';
import { dataVsCacheFromStats } from '../../server/data-vs-cache';
import {
  readCollectionStats,
  readDatabaseStats,
  storageFromStats,
} from '../../server/storage-stats';
import { checkStep, checkWarning } from '../../server-stats/consistency';
import { stepOplog } from './step-oplog';
import { withDeadline } from '../../common/deadline';
import { addStepVerdicts, describeVerdict } from '../../slo/check';
import { addAvailability } from '../outages';
import type { RunEnding } from '../run-lifecycle';
import type { StepTrials } from './trial';
import type { SweepState } from './state';

/** After a step: the next one, no more (the sweep ends as it is), or the run's ending. */
export type StepNext = 'next' | 'stop' | { ending: RunEnding };

/** The step's result from its trials, added to the run's result (not yet written). */
export async function summarizeTrials(
  state: SweepState,
  executor: StepExecutor,
  clients: number,
  trials: StepTrials,
): Promise<StepResult> {
  const { options, hooks, client } = state;
  const { result } = state.run;
  const { measurements, trialStarts } = trials;
  const step =
    measurements.length > 0
      ? summarizeStep(
          measurements,
          trials.failure ? { status: 'failed', error: trials.failure } : {},
        )
      : failedStep(clients, options, trials.failure as string);
  addAvailability(step, measurements);
  // Most ops failed: the step measured the failures, not the server (--max-error-rate).
  const tooManyErrors =
    trials.failure === undefined && !hooks.signal?.aborted
      ? errorRateFailure(step, options.maxErrorRate ?? RUN_DEFAULTS.maxErrorRate)
      : undefined;
  if (tooManyErrors) {
    trials.failure = tooManyErrors;
    step.status = 'failed';
    step.error = tooManyErrors;
  }
  if (trials.warmup && measurements.length > 0) step.warmup = trials.warmup;
  if (trials.events && trials.events.length > 0) step.events = trials.events;
  if (step.trialStats && trialStarts.length === measurements.length)
    step.trialStats.startedAt = trialStarts;
  executor.describeStep?.(step);
  // What the step's data cost on disk and weighed against each shard's cache (the SoftLayer ratio),
  // read once the measured window closed (outside it: the consistency check is not moved).
  // Not after an interrupt (the run is quitting), and never longer than a server selection: a pool that a
  // network fault left half open would otherwise hold the run an op timeout per command.
  if (measurements.length > 0 && !hooks.signal?.aborted) {
    const readAt = new Date();
    const limitMs = options.serverSelectionTimeoutMS;
    const read = await withDeadline(
      (async () => {
        const stats = await readCollectionStats(client, options.ns);
        const storage = storageFromStats(stats, readAt);
        storage.database = await readDatabaseStats(client, options.ns);
        return { stats, storage };
      })(),
      limitMs,
      () => undefined,
    );
    if (read) {
      step.dataVsCache = dataVsCacheFromStats(read.stats, {
        processes: result.target.processes,
        members: state.run.serverStats?.processes,
      });
      step.storage = read.storage;
    } else {
      const why = `no answer within ${limitMs / 1000} s (--server-selection-timeout) after the window closed`;
      step.storage = { readAt: readAt.toISOString(), missing: { storage: why } };
      state.run.emit({ type: 'server-stats', text: `storage of ${options.ns} not read: ${why}` });
    }
    // Each member's oplog after the last window closed: what the step wrote to it, how long it holds at that rate.
    const oplog = await stepOplog(
      state.run.serverStats,
      trials.oplogStart,
      options.minOplogWindowSeconds,
      result.target.processes,
    );
    if (oplog) step.oplog = oplog;
  }
  result.steps.push(step);
  annotateResult(result);
  if (measurements.length > 0) checkServerCounts(state, step);
  return step;
}

/** The servers' own counts against the step's; the sampler's new notes, once each. */
function checkServerCounts(state: SweepState, step: StepResult): void {
  const { serverStats, emit } = state.run;
  if (!serverStats) return;
  const check = checkStep(step, serverStats.windowsSoFar(), serverStats.processes, state.counting);
  serverStats.addCheck(check);
  const warning = checkWarning(check);
  if (warning) emit({ type: 'server-stats', text: `warning: ${warning}` });
  // What the servers would not tell (a test double's serverStatus, say): once, as soon as it is known.
  for (const note of serverStats.section().notes) {
    if (!state.toldNotes.has(note))
      emit({ type: 'server-stats', text: `could not sample: ${note}` });
    state.toldNotes.add(note);
  }
}

/**
 * The step judged (its objectives; a failure recorded), told (step-done), written, handed on, its
 * turn released; then whether the sweep goes on (--on-error, --slo-abort).
 */
export async function closeStep(
  state: SweepState,
  clients: number,
  step: StepResult,
  trials: StepTrials,
): Promise<StepNext> {
  const { options, hooks, run, failedSteps } = state;
  const { result, resultsPath } = run;
  const failure = trials.failure;
  // The objectives (--slo), judged on every finished step.
  const sloFailure =
    result.slo && options.slo ? addStepVerdicts(result.slo, options.slo, step) : undefined;
  run.emit({ type: 'step-done', step });
  if (failure) {
    failedSteps.push(
      `the step with ${clients} client${clients === 1 ? '' : 's'} failed: ${failure}`,
    );
    result.incompleteReason = failedSteps.join('; ');
  }
  await run.save();
  await hooks.onStepComplete?.(result);
  // The step's summary, checks and file are written inside the last trial's turn: no other run measures meanwhile.
  trials.release?.();
  if (failure && options.onError !== 'continue') {
    return {
      ending: {
        failed: `${failedSteps.at(-1)} (partial results${resultsPath ? ` in ${resultsPath}` : ''})`,
        reason: `${failedSteps.join('; ')} (--on-error stop: the remaining steps were not run)`,
      },
    };
  }
  if (
    sloFailure &&
    options.sloAbort &&
    result.slo &&
    clients !== options.clients[options.clients.length - 1]
  ) {
    result.slo.aborted = true;
    return {
      ending: {
        incomplete: `an objective failed (--slo-abort): ${describeVerdict(sloFailure)}; the remaining steps were not run`,
      },
    };
  }
  return 'next';
}

/** A step that measured nothing: its failure, zeros elsewhere. */
function failedStep(clients: number, options: RunOptions, error: string): StepResult {
  const empty = { avg: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, count: 0 };
  return {
    clients,
    seconds: options.seconds,
    trials: 0,
    status: 'failed',
    error,
    ops: { reads: 0, writes: 0, errors: 0 },
    opsPerSec: { total: 0, reads: 0, writes: 0 },
    peakOpsPerSec: { total: 0, reads: 0, writes: 0 },
    latencyMicros: { reads: empty, writes: { ...empty } },
    perSecond: [],
    benchRun: {},
  };
}
