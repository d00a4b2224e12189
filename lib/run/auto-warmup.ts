/**
 * `--warmup auto`: before a step is measured, its clients run until the last 10 one-second ops/s are
 * level (lib/metrics/steadiness.ts steadyForWarmup: their slope within +/-1% of their median per second, an
 * equivalence check rather than a failure to find a trend, which has no power early on), at most
 * `maxSeconds`. At the cap the step is measured anyway, and the result says it did not settle
 * (`warmup.steady: false`, the `not-steady` warning).
 */
import { steadyForWarmup } from '../metrics/steadiness';
import type { StepExecutor } from '../workload/engine/step-executor';
import type { StepPlan, TickEvent } from '../workload/engine/engine';
import { asWarmupLatency } from '../metrics/tick-latency';

export interface AutoWarmupOutcome {
  /** How long the warm-up ran, in whole seconds of ticks. */
  seconds: number;
  /** True when it settled before the cap. */
  steady: boolean;
}

/**
 * Runs the warm-up of one trial: the step's own plan, unmeasured, as one long step that is stopped once
 * steady. Undefined when the run was interrupted meanwhile.
 */
export async function autoWarmup(
  executor: StepExecutor,
  plan: StepPlan,
  maxSeconds: number,
  trial: number,
  hooks: { signal?: AbortSignal; onTick?: (tick: TickEvent) => void },
): Promise<AutoWarmupOutcome | undefined> {
  const stop = new AbortController();
  const passOn = () => stop.abort(hooks.signal?.reason);
  hooks.signal?.addEventListener('abort', passOn, { once: true });
  const perSecond: number[] = [];
  let steady = false;
  try {
    if (hooks.signal?.aborted) return undefined;
    await executor.runStep({ ...plan, seconds: maxSeconds, warmupSeconds: 0 }, trial, {
      signal: stop.signal,
      onTick: (tick) => {
        // Nothing of a warm-up run is measured: its ops go to the warm-up's metrics.
        const warmup: TickEvent = { ...tick, phase: 'warmup' };
        if (tick.latency) warmup.latency = asWarmupLatency(tick.latency);
        hooks.onTick?.(warmup);
        if (tick.final) return; // part of a second: not a second of the steadiness test
        perSecond.push(tick.reads + tick.writes);
        if (!steady && steadyForWarmup(perSecond)) {
          steady = true;
          stop.abort('the warm-up is steady');
        }
      },
    });
  } finally {
    hooks.signal?.removeEventListener('abort', passOn);
  }
  if (hooks.signal?.aborted) return undefined;
  return { seconds: steady ? perSecond.length : maxSeconds, steady };
}
