/**
 * The loop's load reading when the loop is too busy to run a timer: the step must still say how busy
 * it was (a missing reading counts as an idle loop, and a saturated step would not be marked client-bound).
 */
import { BoundOp } from '../../lib/workload/engine/compile-ops';
import { runStep } from '../../lib/workload/engine/engine';
import { TemplateScope } from '../../lib/workload/language/template';

/** Holds the thread for `ms`: no timer, no I/O callback runs meanwhile. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose
  }
}

test('a loop that never reaches its timers during the step still reports its load: busy all the time', async () => {
  // One op that holds the loop past the whole window: the window-opening timer cannot fire before the
  // client sees the window closed and stops.
  const op = {
    index: 0,
    type: 'let',
    opClass: 'read',
    delayMs: 0,
    run: async () => block(1300),
  } as unknown as BoundOp;
  const m = await runStep([op], new TemplateScope(), {
    clients: 1,
    seconds: 1,
    warmupSeconds: 0,
    randomSeed: 1,
  });
  expect(m.load).toBeDefined();
  expect(m.load!.eventLoopUtilization).toBeGreaterThan(0.9);
});
