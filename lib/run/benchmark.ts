/**
 * runBenchmark: the sweep, told as its phases (./phases/): start the run (its lifecycle, ./run-lifecycle.ts:
 * connected, the data guard passed, the result begun, the servers sampled), prepare the data,
 * choose where the clients run (the StepExecutor), probe the maximum when --rate asks for a share of
 * it, run each step (its trials, warm-up and outages), end. results.json is written after every
 * step. Progress leaves through hooks.onEvent (the CLI draws it); hooks.onStepComplete receives the
 * result so far (the report writer's seam); hooks.signal stops the clients, and the partial result
 * is written with complete: false; every fault an event made and did not yet undo is undone on every
 * way out (./phases/faults.ts). The phases share one SweepState (./phases/state.ts).
 */
import { join } from 'node:path';
import type { RunOptions } from './options/run-options';
import { compileRunWorkload } from './options/run-workload';
import type { ResultDocument } from '../result';
import { refuseThroughAgents, startRun } from './phases/start';
import { BenchmarkHooks, sweepState } from './phases/state';
import { prepareFirst } from './phases/prepare';
import { runScenarioPhase } from './phases/scenarios';
import { chooseExecutor } from './phases/executor';
import { planSweep } from './phases/probe';
import { runSweepStep } from './phases/step';
import { recordOwnership } from './phases/ownership';
import { endSweep } from './phases/end';
import { startFaults, undoFaults } from './phases/faults';
import { MetricsEndpoint, MetricsServer } from './metrics-server';
import type { BenchmarkEvent } from './events';

export type { BenchmarkHooks } from './phases/state';

export const RESULTS_FILE = 'results.json';

export async function runBenchmark(
  options: RunOptions,
  given: BenchmarkHooks = {},
): Promise<ResultDocument> {
  const prepared = compileRunWorkload(options);
  refuseThroughAgents(options, given);
  // --metrics-port: listening before anything connects (a taken port is a usage error now), closed at the end.
  const ownMetrics =
    !given.metrics && options.metrics
      ? await startMetricsServer(options.metrics, given.onEvent)
      : undefined;
  try {
    return await sweep(options, withMetrics(given, given.metrics ?? ownMetrics), prepared);
  } finally {
    await ownMetrics?.close();
  }
}

/** Starts the metrics endpoint, its address (and a warning off loopback) told as events. */
export async function startMetricsServer(
  endpoint: MetricsEndpoint,
  onEvent: ((event: BenchmarkEvent) => void) | undefined,
): Promise<MetricsServer> {
  const server = await MetricsServer.start(endpoint, (text) =>
    onEvent?.({ type: 'metrics', text, warning: true }),
  );
  onEvent?.({ type: 'metrics', text: `serving the run's metrics at ${server.url}` });
  return server;
}

/** The hooks with every event also followed by the metrics. */
function withMetrics(hooks: BenchmarkHooks, metrics: MetricsServer | undefined): BenchmarkHooks {
  if (!metrics) return hooks;
  return {
    ...hooks,
    metrics,
    onEvent: (e) => {
      metrics.metrics.onEvent(e);
      hooks.onEvent?.(e);
    },
  };
}

async function sweep(
  options: RunOptions,
  hooks: BenchmarkHooks,
  prepared: ReturnType<typeof compileRunWorkload>,
): Promise<ResultDocument> {
  // Start: connected, the data guard passed, the result begun, the servers sampled. Every way out
  // below is `return run.end(...)` (the sampler stopped, the result stamped and written), then run.close().
  const resultsPath = options.outDir ? join(options.outDir, RESULTS_FILE) : undefined;
  const started = await startRun(options, hooks, resultsPath);
  const { run } = started;
  hooks.metrics?.metrics.attachServer(run.serverStats);
  const state = sweepState(options, hooks, prepared, started);
  try {
    run.atEnd(() => recordOwnership(state, 'done'));
    // Fault events: the Toxiproxy checked, what a killed run left cleaned and said, before anything is measured.
    await startFaults(state);
    // Prepare the data once, unless every trial prepares its own (--reset each-step).
    if (options.reset !== 'each-step') {
      const stopped = await prepareFirst(state);
      if (stopped) return await run.end({ incomplete: stopped });
    }
    await recordOwnership(state, 'running');
    // Several workloads at once on one clock (a config's `scenarios`) instead of a sweep.
    if (options.scenarios) return await run.end(await runScenarioPhase(state, options.scenarios));
    // Where every step's clients run, chosen once; the --rate probe when the rate is a share of the maximum.
    const sweep = await planSweep(state, chooseExecutor(state));
    if ('ending' in sweep) return await run.end(sweep.ending);
    for (const clients of options.clients) {
      if (hooks.signal?.aborted) break;
      const next = await runSweepStep(state, sweep, clients);
      await recordOwnership(state, 'running');
      if (next === 'stop') break;
      if (next !== 'next') return await run.end(next.ending);
    }
    return await run.end(endSweep(state));
  } finally {
    // Every path (failure, interrupt): every fault still in force undone, the sampler and the connections ended.
    await undoFaults(state);
    await run.close();
  }
}
