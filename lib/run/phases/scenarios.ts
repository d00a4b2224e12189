/**
 * Instead of a sweep: several workloads at once on one clock (a config's `scenarios`), run by
 * ../scenarios/scenarios.ts; how the run ends after them.
 */
import type { ScenarioSpec } from '../scenarios/scenario-spec';
import { runScenarios } from '../scenarios/scenarios';
import type { RunEnding } from '../run-lifecycle';
import { abortReason } from './end';
import type { SweepState } from './state';

export async function runScenarioPhase(
  state: SweepState,
  scenarios: ScenarioSpec[],
): Promise<RunEnding> {
  const { options, hooks, client, run, counting, writes } = state;
  const signal = hooks.signal;
  const failed = await runScenarios({
    client,
    options: { ...options, scenarios },
    result: run.result,
    signal,
    emit: run.emit,
    save: run.save,
    onStepComplete: hooks.onStepComplete,
    serverStats: run.serverStats,
    counting,
    writes,
    faults: {
      keeper: state.faults,
      ...(state.toxiproxy ? { toxiproxy: state.toxiproxy } : {}),
      ...(state.server.clientOptions ? { clientOptions: state.server.clientOptions } : {}),
    },
  });
  return signal?.aborted
    ? { incomplete: `interrupted (${abortReason(signal)})` }
    : failed
      ? { incomplete: failed }
      : { complete: true };
}
