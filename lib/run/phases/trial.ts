/**
 * One trial of a step: its plan, its warm-up (--warmup auto), the measured window through the
 * StepExecutor with its outages announced, and what the trial says about the step (a lost server,
 * a cut window, a remote failure, a thrown error). The step's trials gather in a StepTrials.
 */
import { MongoClient } from 'mongodb';
import { RUN_DEFAULTS, RunOptions } from '../options/run-options';
import type { ScenarioEvent, StepResult } from '../../result';
import type { StepMeasurement } from '../../metrics/measurement';
import { redactUri } from '../../security/redact';
import type { StepPlan, TickEvent } from '../../workload/engine/engine';
import type { StepOutcome } from '../../workload/engine/step-executor';
import { dropUndefined, messageOf } from '../../common/values';
import { autoWarmup } from '../auto-warmup';
import { awaitAnswer, lastLostServerOutage, outageAnnouncer } from '../outages';
import type { SweepPlan, SweepState } from './state';
import { trialEvents } from './faults';
import type { OplogReadings } from './step-oplog';

/** A step's trials so far. */
export interface StepTrials {
  measurements: StepMeasurement[];
  /** When each trial started (ISO), in order. */
  trialStarts: string[];
  /** Why the step failed, once a trial says it did. */
  failure?: string;
  /** Over the trials: the longest warm-up, steady only if every one was (--warmup auto). */
  warmup?: StepResult['warmup'];
  /** The last trial's turn (hooks.turn): released once the step is written. */
  release?: () => void;
  /** The run's fault events as each trial fired them (absent: the run has none). */
  events?: ScenarioEvent[];
  /** Each replica-set member's oplog before the first trial's window opened (./step-oplog.ts). */
  oplogStart?: OplogReadings;
}

/** Runs one trial into `trials`; 'stop' when the step has no more trials to run (interrupted, or failed). */
export async function runTrial(
  state: SweepState,
  sweep: SweepPlan,
  clients: number,
  trial: number,
  trials: StepTrials,
): Promise<'next' | 'stop'> {
  const serverStats = state.run.serverStats;
  try {
    const plan = stepPlan(state.options, clients, sweep);
    if (state.options.warmup === 'auto' && !(await warmUp(state, sweep, plan, trial, trials)))
      return 'stop'; // interrupted while warming up
    const { measurement: m, failure: remoteFailure } = await measure(
      state,
      sweep,
      plan,
      trial,
      trials,
    );
    if (m.interrupted && m.elapsedSeconds <= 0) {
      serverStats?.cancelOpen();
      return 'stop'; // stopped before measuring anything
    }
    // The last counted op is done: the window closes now, on the servers' side too.
    await serverStats?.windowClosed();
    trials.measurements.push(m);
    // The server went away (network errors) or an op outlived the window: this step failed.
    trials.failure =
      remoteFailure ??
      m.cut ??
      (m.lostServer !== undefined ? `lost the server: ${redactUri(m.lostServer)}` : undefined);
    return trials.failure ? 'stop' : 'next';
  } catch (err) {
    serverStats?.cancelOpen();
    // A driver message may quote a connection string: never store one with its password.
    trials.failure = redactUri(messageOf(err));
    return 'stop';
  }
}

/** A trial's plan: the step's clients, seconds, warm-up, rate and seed. */
export function stepPlan(options: RunOptions, clients: number, sweep: SweepPlan): StepPlan {
  const plan: StepPlan = {
    clients,
    seconds: options.seconds,
    warmupSeconds: options.warmupSeconds,
    rate: options.rate,
    randomSeed: options.randomSeed,
    overrunLimitMs: overrunLimit(options),
    ...dropUndefined({ stallMs: options.stallMs, arrivals: options.arrivals }),
  };
  if (sweep.arrival) plan.arrival = sweep.arrival;
  if (options.ops !== undefined) plan.ops = options.ops;
  return plan;
}

/** --warmup auto: warms up until steady (or --warmup-max); false when interrupted meanwhile. */
async function warmUp(
  state: SweepState,
  sweep: SweepPlan,
  plan: StepPlan,
  trial: number,
  trials: StepTrials,
): Promise<boolean> {
  const { options } = state;
  const { emit } = state.run;
  const clients = plan.clients;
  const warmed = await autoWarmup(
    sweep.executor,
    plan,
    options.warmupMax ?? RUN_DEFAULTS.warmupMax,
    trial,
    {
      signal: state.hooks.signal,
      onTick: (tick: TickEvent) => emit({ type: 'tick', clients, trial, tick }),
    },
  );
  if (!warmed) return false;
  emit({
    type: 'warmup-done',
    clients,
    trial,
    seconds: warmed.seconds,
    steady: warmed.steady,
  });
  // Over the trials: the longest warm-up, steady only if every one was.
  trials.warmup = {
    seconds: Math.max(trials.warmup?.seconds ?? 0, warmed.seconds),
    steady: (trials.warmup?.steady ?? true) && warmed.steady,
  };
  return true;
}

/** The measured window, its ticks and outages told; a lost server that answers again is not lost. */
async function measure(
  state: SweepState,
  sweep: SweepPlan,
  plan: StepPlan,
  trial: number,
  trials: StepTrials,
): Promise<StepOutcome> {
  const { options, server } = state;
  const { emit, serverStats } = state.run;
  const clients = plan.clients;
  // The run's fault events, timed from the window's opening; every fault undone once the window is done.
  const events = trialEvents(state, trial);
  const onWindowOpen =
    serverStats || events
      ? (atMs: number) => {
          serverStats?.windowOpensAt(atMs, clients, trial);
          events?.onWindowOpen(atMs);
        }
      : undefined;
  const outage = outageAnnouncer(emit, clients, trial);
  const onTick = (tick: TickEvent) => {
    outage.onTick(tick);
    emit({ type: 'tick', clients, trial, tick });
  };
  let outcome: StepOutcome;
  try {
    outcome = await sweep.executor.runStep(plan, trial, {
      signal: state.hooks.signal,
      onTick,
      onNoAnswer: outage.onNoAnswer,
      onWindowOpen,
    });
  } finally {
    if (events) (trials.events ??= []).push(...(await events.finish()));
  }
  outage.finish();
  const m = outcome.measurement;
  // No answer since the last network error: failed only if none comes by the window's end plus one server-selection timeout.
  const fresh = (timeoutMS: number) =>
    new MongoClient(server.uri, {
      ...server.clientOptions,
      serverSelectionTimeoutMS: timeoutMS,
      connectTimeoutMS: timeoutMS,
    });
  if (m.lostServer !== undefined && (await awaitAnswer(m, fresh, options.serverSelectionTimeoutMS)))
    delete m.lostServer;
  const lost = lastLostServerOutage(m);
  if (lost?.end !== undefined)
    emit({ type: 'outage', clients, trial, since: lost.start, end: lost.end });
  return outcome;
}

/** How long a step may run past its window before it is cut: the op timeout, plus a second of slack. */
export function overrunLimit(options: RunOptions): number | undefined {
  // An op count's window has no close to overrun: it ends when its last op does (each op bounded by the op timeout).
  if (options.ops !== undefined) return undefined;
  return options.opTimeoutMS !== undefined ? options.opTimeoutMS + 1000 : undefined;
}
