/**
 * A client of the closed model: one request in flight, the ops array in order over and over (or drawn by
 * weight), like one benchRun thread, until the window closes, the op count is used up, the step is cut
 * or aborted.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ClientState } from '../language/template';
import { weightedOpPicker } from '../language/weighted-pick';
import { StepState } from './step-state';

export async function runClientLoop(step: StepState, state: ClientState): Promise<void> {
  // The step's fields are read where used, never copied into locals: every local of an async function
  // is saved and restored at each await, and five more cost ~100 instructions per op (callgrind).
  const count = step.ops.length;
  let i = 0;
  const pacing = { syncOps: 0 };
  // Weighted: `i` stays 0, so the stop check below runs before every draw.
  const pickOp = weightedOpPicker(step.weights, step.plan.randomSeed + state.index);
  for (;;) {
    if (step.cut) return;
    // No op of the array starts once the window has closed (bench.cpp checks shouldStop() before each):
    // the overrun is one op per client at most, and the op mix holds within one pass per client.
    if (performance.now() >= step.stopAt) return;
    if (step.signal?.aborted) return;
    const at = pickOp ? pickOp() : i;
    const op = step.ops[at];
    if (!pickOp) i = i + 1 === count ? 0 : i + 1;
    if (op.opClass === 'none') {
      await step.runClientSideOp(at, op, state, pacing);
      continue;
    }
    pacing.syncOps = 0;
    const start = performance.now();
    step.inFlight[state.index] = start * step.kindSign[at];
    if (step.opsLimit !== undefined && start >= step.measureStart) {
      if (step.claimed === step.opsLimit) return;
      step.claimed++;
    }
    let failure: unknown;
    let failed = false;
    try {
      await op.run(state);
    } catch (err) {
      failed = true;
      failure = err;
    }
    const end = performance.now();
    if (step.cut) return; // the step was given up on: this late outcome is not counted
    step.recordOutcome(at, start, end, failed, failure, state.index);
    if (op.delayMs > 0) await sleep(op.delayMs);
  }
}
