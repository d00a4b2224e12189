/**
 * Instead of a sweep: several workloads at once on one clock (a config's `scenarios`), run by
 * ../scenarios/scenarios.ts; how the run ends after them.
 */
import { RATE_SCENARIO_CLIENTS, ScenarioSpec } from '../scenarios/scenario-spec';
import { runScenarios } from '../scenarios/scenarios';
import type { RunEnding } from '../run-lifecycle';
import { abortReason } from './end';
import type { SweepState } from './state';
import { openEngineClient } from '../../workload/engine/op-client';
import type { OpClient } from '../../workload/engine/write-handles';

export async function runScenarioPhase(
  state: SweepState,
  scenarios: ScenarioSpec[],
): Promise<RunEnding> {
  const { options, hooks } = state;
  const signal = hooks.signal;
  // --driver wire: the scenarios' ops through a wire client of their own, for all of them at once.
  const wire =
    options.driver === 'wire'
      ? openEngineClient('wire', state.server.uri, {
          serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
          maxClients: scenarioClients(scenarios),
          clientOptions: state.server.clientOptions,
          opTimeoutMS: options.opTimeoutMS,
        })
      : undefined;
  let failed: string | undefined;
  try {
    await wire?.connect();
    failed = await runWith(state, scenarios, signal, wire?.client);
  } finally {
    await wire?.close().catch(() => undefined);
  }
  return signal?.aborted
    ? { incomplete: `interrupted (${abortReason(signal)})` }
    : failed
      ? { incomplete: failed }
      : { complete: true };
}

/** The most clients the scenarios run at once: the pool's size. */
function scenarioClients(scenarios: ScenarioSpec[]): number {
  return scenarios.reduce(
    (sum, s) => sum + (s.clients ? Math.max(...s.clients) : RATE_SCENARIO_CLIENTS),
    0,
  );
}

function runWith(
  state: SweepState,
  scenarios: ScenarioSpec[],
  signal: AbortSignal | undefined,
  opClient: OpClient | undefined,
): Promise<string | undefined> {
  const { options, hooks, client, run, counting, writes } = state;
  return runScenarios({
    client,
    ...(opClient ? { opClient } : {}),
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
      ...(state.server.members ? { members: state.server.members } : {}),
    },
  });
}
