/**
 * The engine: `clients` concurrent loops, each running the ops array in order over and over with one
 * request in flight (like one benchRun thread), for warm-up + measured seconds. It records into
 * fixed-size histograms and per-second counters and never prints: progress leaves through onTick.
 *
 * An op belongs to the measured window when it starts (or, with a rate, was scheduled to start) at or
 * after the window opens. When the window closes no client starts another op, not even the rest of its
 * pass through the ops array: benchRun checks before every op (mongodb/mongo src/mongo/shell/bench.cpp,
 * BenchRunWorker::generateLoadOnConnection: `for (const auto& op : _config->ops) { if (shouldStop())
 * break; ...`). The ops in flight are awaited and counted in the totals and histograms, so counts agree
 * exactly with what the server applied, but an op completing after the close is bucketed in the step's
 * overrun, never in a window second (nor so in the peak).
 */
import { sleepUntil } from '../../common/sleep-until';
import { LoadProbe, LoopReading } from '../../metrics/client-load';
import { ErrorTally, StepMeasurement } from '../../metrics/measurement';
import { TemplateScope } from '../language/template';
import { arrivalScheduleFor, DueWaits, runArrivalLoop } from './arrival-loop';
import { runClientLoop } from './client-loop';
import { BoundOp } from './compile-ops';
import { duePoller } from './due-poller';
import { OpRecorders } from './op-recorders';
import { stepMeasurement } from './step-measurement';
import { checkStepPlan, StepCallbacks, StepPlan } from './step-plan';
import { StepState } from './step-state';
import { Tally } from './step-tally';
import { startStallCheck, startTicker } from './ticker';

// The step's types and the lost-server test live beside their users; other modules import them from here.
export type { StepPlan, TickEvent, StepCallbacks } from './step-plan';
export { isLostServerError } from './step-tally';
export type { StepMeasurement, ErrorTally };

/**
 * Sleeps until `at` (performance.now()), or until the signal aborts. A timer may fire a fraction of
 * a millisecond early on this clock: the rest is waited out, or the first op would start before the
 * window and not be counted.
 */
async function waitUntil(at: number, signal: AbortSignal | undefined): Promise<void> {
  await sleepUntil(at, signal);
  while (performance.now() < at && !signal?.aborted)
    await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Runs one step (one trial at one client count) and returns what it measured. */
export async function runStep(
  ops: BoundOp[],
  scope: TemplateScope,
  plan: StepPlan,
  callbacks: StepCallbacks = {},
): Promise<StepMeasurement> {
  const { slice, opsLimit } = checkStepPlan(plan, scope);
  // Allocated before the start instant (histograms are not free), so the first op is not held up.
  const recorders = new OpRecorders(ops);
  const tally = new Tally(plan.seconds);
  const signal = callbacks.signal;

  if (plan.startAt !== undefined) await waitUntil(plan.startAt, signal);
  const t0 = plan.startAt ?? performance.now();
  const step = new StepState(ops, plan, callbacks, recorders, tally, t0, opsLimit);
  const schedule = arrivalScheduleFor(step, slice);
  const dueWaits = schedule ? new DueWaits(step, plan.arrivals) : undefined;
  const ticker = startTicker(step);
  const stallCheck = startStallCheck(step);
  const probe = new WindowLoadProbe(step.measureStart);

  let overrunTimer: NodeJS.Timeout | undefined;
  let load: LoopReading | undefined;
  let ended = false;
  try {
    const loops: Promise<void>[] = [];
    for (let c = slice.first; c < slice.first + slice.count; c++) {
      // Each loop starts (and runs to its first await) before the next client's state is made.
      const state = scope.newClientState(c, plan.randomSeed + c);
      loops.push(
        schedule && dueWaits
          ? runArrivalLoop(step, state, schedule, dueWaits)
          : runClientLoop(step, state),
      );
    }
    const all = Promise.all(loops);
    if (plan.overrunLimitMs === undefined || opsLimit !== undefined) {
      await all;
    } else {
      // A stuck op must not hold the run: past the window plus the limit, stop waiting for it.
      const limit = plan.overrunLimitMs;
      const overran = new Promise<'cut'>((resolve) => {
        overrunTimer = setTimeout(
          () => resolve('cut'),
          Math.max(0, step.stopAt + limit - performance.now()),
        );
      });
      if ((await Promise.race([all, overran])) === 'cut') step.cut = true;
    }
    ended = true;
  } finally {
    load = probe.read();
    dueWaits?.detach();
    // The ops completed since the last tick go out in a final one (not when the step threw).
    ticker.stop(ended);
    clearInterval(stallCheck);
    clearTimeout(overrunTimer);
    probe.stop();
  }
  return stepMeasurement(step, performance.now(), load, schedule);
}

/** This loop's polling for exact due times so far: not work, so the probe leaves it out of the ELU. */
const polledMs = (): number => duePoller.pollingMs;

/**
 * The loop's load over the measured window: from its opening to the last counted op. A loop too busy
 * to run the opening's timer before its clients stop is saturated: the probe taken at the step's start
 * then speaks for it, rather than no reading (which would read as an idle loop).
 */
class WindowLoadProbe {
  private probe = new LoadProbe(polledMs);
  private readonly timer: NodeJS.Timeout;

  constructor(measureStart: number) {
    this.timer = setTimeout(
      () => (this.probe = new LoadProbe(polledMs)),
      Math.max(0, measureStart - performance.now()),
    );
  }

  read(): LoopReading {
    return this.probe.read();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
