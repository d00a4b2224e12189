/**
 * The open model (a rate): one arrival schedule for this event loop's clients, and the clients that take
 * their ops off it. Kept apart from the closed loop (client-loop.ts) so that loop's hot path stays as it is.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ClientState } from '../language/template';
import { weightedOpPicker } from '../language/weighted-pick';
import { ArrivalSchedule, scaleRate } from './arrival-schedule';
import { duePoller, EXACT_WAKE_AHEAD_MS, PollEntry } from './due-poller';
import { ArrivalsMode, ClientSlice, DEFAULT_ARRIVALS } from './step-plan';
import { StepState } from './step-state';

/**
 * The step's schedule, holding this event loop's share of the rate; undefined for the closed model, and
 * for a workload of client-side ops only (nop, let), which has no rate to keep and no reply to wait for.
 */
export function arrivalScheduleFor(
  step: StepState,
  slice: ClientSlice,
): ArrivalSchedule | undefined {
  const { plan, t0, measureStart, stopAt } = step;
  const serverOps = step.ops.some((op) => op.opClass !== 'none');
  const target =
    plan.arrival ??
    (plan.rate ? ({ kind: 'constant', opsPerSecond: plan.rate } as const) : undefined);
  return target && serverOps
    ? new ArrivalSchedule(
        target,
        scaleRate(target, slice.count / plan.clients),
        { t0, measureStart, stopAt, seconds: plan.seconds },
        plan.lateAfterMs,
        plan.dropAfterMs,
        plan.arrivals ?? DEFAULT_ARRIVALS,
      )
    : undefined;
}

/**
 * The clients waiting for their op's due time. An abort wakes them all: one listener per step, not per
 * wait; detach() removes it when the step ends.
 */
export class DueWaits {
  private readonly waiting = new Set<() => void>();
  private readonly wakeAll = (): void => {
    for (const wake of this.waiting) wake();
  };

  constructor(
    private readonly step: StepState,
    private readonly arrivals: ArrivalsMode = DEFAULT_ARRIVALS,
  ) {
    step.signal?.addEventListener('abort', this.wakeAll, { once: true });
  }

  detach(): void {
    this.step.signal?.removeEventListener('abort', this.wakeAll);
  }

  /**
   * Waits until `due` (performance.now()) or an abort. Node's timers run on libuv's loop clock, cached and
   * in whole milliseconds, so a timer can fire up to ~2 ms early against performance.now(): when it does,
   * it is armed again for what remains (at least Node's 1 ms), never spun on. `timer`: the op may so start
   * up to a millisecond or two late. `exact`: the timer wakes the client EXACT_WAKE_AHEAD_MS early (none
   * is set when less than that and a millisecond is left), and this loop's poller (./due-poller.ts) finishes the wait within a
   * turn of the event loop. Either way the op is timed from its due time.
   */
  waitFor(due: number): Promise<void> {
    const { step, waiting } = this;
    const ahead = this.arrivals === 'exact' ? EXACT_WAKE_AHEAD_MS : 0;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let polled: PollEntry | undefined;
      const wake = () => {
        clearTimeout(timer);
        if (polled) duePoller.remove(polled);
        waiting.delete(wake);
        resolve();
      };
      const arm = () => {
        const remaining = due - performance.now();
        if (remaining <= 0 || step.signal?.aborted || step.cut) wake();
        else if (ahead === 0) timer = setTimeout(arm, Math.max(1, Math.ceil(remaining)));
        // exact: a timer set for whole milliseconds may fire up to one past them, so it is set to wake the
        // client at least `ahead` - 1 ms before due (rounded down), and none is set for less than 1 ms.
        else if (remaining < ahead + 1) polled = duePoller.add(due, wake);
        else timer = setTimeout(arm, Math.floor(remaining - ahead));
      };
      waiting.add(wake);
      arm();
    });
  }
}

/**
 * A client of the open model: it takes the next due op off the shared schedule (waiting for it when it
 * lies ahead) and times it from its due time. Client-side ops (nop, let) run in between, unscheduled.
 */
export async function runArrivalLoop(
  step: StepState,
  state: ClientState,
  arrivals: ArrivalSchedule,
  dueWaits: DueWaits,
): Promise<void> {
  // As in runClientLoop: the step's fields are read where used, so no await saves and restores them.
  const count = step.ops.length;
  let i = 0;
  const pacing = { syncOps: 0 };
  const pickOp = weightedOpPicker(step.weights, step.plan.randomSeed + state.index);
  for (;;) {
    if (step.cut || step.signal?.aborted) return;
    const at = pickOp ? pickOp() : i;
    const op = step.ops[at];
    if (!pickOp) i = i + 1 === count ? 0 : i + 1;
    if (op.opClass === 'none') {
      await step.runClientSideOp(at, op, state, pacing);
      continue;
    }
    pacing.syncOps = 0;
    const due = arrivals.claim(performance.now());
    if (due === undefined) return;
    // No op starts before its due time: it is timed from it (end - due), so an early start would take
    // time off its latency, and a late one keeps its wait (the coordinated-omission correction).
    const waited = performance.now() < due;
    if (waited) {
      await dueWaits.waitFor(due);
      if (step.signal?.aborted || step.cut) return;
    }
    const started = performance.now();
    step.inFlight[state.index] = started * step.kindSign[at];
    arrivals.noteStart(due, started);
    if (waited) arrivals.noteTimerWait(due, started);
    let failure: unknown;
    let failed = false;
    try {
      await op.run(state);
    } catch (err) {
      failed = true;
      failure = err;
    }
    const end = performance.now();
    if (step.cut) return;
    step.recordOutcome(at, due, end, failed, failure, state.index);
    if (op.delayMs > 0) await sleep(op.delayMs);
  }
}
