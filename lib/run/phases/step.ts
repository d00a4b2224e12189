/**
 * One step of the sweep (one client count): its trials, each in its turn (hooks.turn) and, with
 * --reset each-step, on freshly prepared data (./trial.ts), each member's oplog read before the first
 * (./step-oplog.ts); then its result, judged and written (./step-result.ts).
 */
import { dropUndefined } from '../../common/values';
import { autoWarmupCap } from '../options/run-options';
import { prepareData } from './prepare';
import { closeStep, StepNext, summarizeTrials } from './step-result';
import { runTrial, stepPlan, StepTrials } from './trial';
import { readOplogs } from './step-oplog';
import type { SweepPlan, SweepState } from './state';

export async function runSweepStep(
  state: SweepState,
  sweep: SweepPlan,
  clients: number,
): Promise<StepNext> {
  const trials = await runTrials(state, sweep, clients);
  if ('ending' in trials) return trials;
  // Interrupted before this step measured anything.
  if (trials.measurements.length === 0 && !trials.failure) return 'stop';
  const step = await summarizeTrials(state, sweep.executor, clients, trials);
  return closeStep(state, clients, step, trials);
}

/** The step's trials, until the last, an interrupt or a failure; or the run's ending when a reset stopped short. */
async function runTrials(
  state: SweepState,
  sweep: SweepPlan,
  clients: number,
): Promise<StepTrials | Extract<StepNext, { ending: unknown }>> {
  const { options, hooks } = state;
  const trials: StepTrials = { measurements: [], trialStarts: [] };
  if (hooks.unmeasuredRound && clients === options.clients[0]) {
    const stopped = await runUnmeasuredTrial(state, sweep, clients);
    if (stopped) return { ending: { incomplete: stopped } };
  }
  // With hooks.turn, each trial (its set-up included) waits for its turn; a run that ends early is released by its scheduler.
  for (let trial = 1; trial <= options.trials && !hooks.signal?.aborted; trial++) {
    trials.release?.();
    trials.release = hooks.turn ? await hooks.turn('trial', clients, trial) : undefined;
    // --reset each-step: as mongo-perf re-runs a test's set-up before every thread count and trial (util/utils.js, runTest).
    if (options.reset === 'each-step') {
      const stopped = await prepareData(state, clients);
      if (stopped) return { ending: { incomplete: stopped } };
    }
    // Each member's oplog before the step's first window opens (after its set-up, in its turn).
    if (trial === 1) trials.oplogStart = await readOplogs(state.run.serverStats);
    trials.trialStarts.push(new Date().toISOString());
    state.run.emit({
      type: 'step-start',
      clients,
      trial,
      trials: options.trials,
      seconds: options.seconds,
      warmupSeconds: options.warmupSeconds,
      ...dropUndefined({ ops: options.ops, warmupMax: autoWarmupCap(options) }),
    });
    if ((await runTrial(state, sweep, clients, trial, trials)) === 'stop') break;
  }
  return trials;
}

/**
 * The unmeasured trial (BenchmarkHooks.unmeasuredRound), in its turn (trial 0), on prepared data: the
 * same plan as a measured trial, its figures dropped. A failure here is left for the measured trials
 * to meet and report. Returns why the run stopped short, when a reset did.
 */
async function runUnmeasuredTrial(
  state: SweepState,
  sweep: SweepPlan,
  clients: number,
): Promise<string | undefined> {
  const { options, hooks } = state;
  const release = hooks.turn ? await hooks.turn('trial', clients, 0) : undefined;
  try {
    if (options.reset === 'each-step') {
      const stopped = await prepareData(state, clients);
      if (stopped) return stopped;
    }
    state.run.emit({ type: 'unmeasured-trial', clients, seconds: options.seconds });
    await sweep.executor
      .runStep(stepPlan(options, clients, sweep), 0, { signal: hooks.signal })
      .catch(() => undefined);
    return undefined;
  } finally {
    release?.();
  }
}
