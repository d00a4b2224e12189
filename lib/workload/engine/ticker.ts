/**
 * The step's progress, once a second through onTick: the engine never prints. Unref'd so a step's
 * ticker never holds the process open; the caller clears it when the step ends.
 */
import { StepState, epochMs } from './step-state';
import { TickEvent } from './step-plan';

export interface Ticker {
  /** Stops the ticks; with `final`, sends the last one (what completed since the last), if anything did. */
  stop(final: boolean): void;
}

export function startTicker(step: StepState): Ticker {
  const { tally, t0, measureStart, callbacks } = step;
  let last = { reads: 0, writes: 0, errors: 0 };
  const tickNow = (): TickEvent => {
    const now = performance.now();
    const inWarmup = now < measureStart;
    const tick: TickEvent = {
      phase: inWarmup ? 'warmup' : 'measure',
      second: Math.floor((inWarmup ? now - t0 : now - measureStart) / 1000),
      reads: tally.liveReads - last.reads,
      writes: tally.liveWrites - last.writes,
      errors: tally.liveErrors - last.errors,
      measured: { reads: tally.reads, writes: tally.writes, errors: tally.errors },
    };
    const open = tally.outages.at(-1);
    if (open && open.end === undefined) tick.noAnswerSince = epochMs(open.start);
    const out = step.watch.outSince();
    if (out.reads !== undefined || out.writes !== undefined)
      tick.stalled = {
        ...(out.reads !== undefined ? { reads: epochMs(out.reads) } : {}),
        ...(out.writes !== undefined ? { writes: epochMs(out.writes) } : {}),
      };
    const latency = step.tickLatency.take();
    if (latency) tick.latency = latency;
    last = { reads: tally.liveReads, writes: tally.liveWrites, errors: tally.liveErrors };
    return tick;
  };
  const ticker = setInterval(() => callbacks.onTick?.(tickNow()), 1000);
  ticker.unref();
  return {
    stop(final) {
      clearInterval(ticker);
      if (!final || !callbacks.onTick) return;
      const tick = tickNow();
      if (tick.reads + tick.writes + tick.errors === 0 && !tick.latency) return;
      tick.final = true;
      callbacks.onTick(tick);
    },
  };
}

/**
 * Marks the kinds out (an op in flight for --stall-ms, no success of its kind meanwhile) several times
 * per stall, so a stall just longer than --stall-ms is seen while it lasts, not only at its end.
 */
export function startStallCheck(step: StepState): NodeJS.Timeout {
  const period = Math.max(20, Math.min(250, step.watch.stallMs / 4));
  const timer = setInterval(() => step.watch.check(performance.now()), period);
  timer.unref();
  return timer;
}
