/**
 * The sweep's start: what cannot run through agents is refused before anything connects, then the
 * run's lifecycle starts (../run-lifecycle.ts: connected, the write plan passed, the result begun
 * with ../initial-result.ts, the servers sampled).
 */
import { UsageError } from '../../config/errors';
import type { RunOptions } from '../options/run-options';
import { initialResult } from '../initial-result';
import { RunLifecycle, StartedRun } from '../run-lifecycle';
import type { BenchmarkEvent } from '../events';
import type { BenchmarkHooks } from './state';

/** Scenarios, --warmup auto and --rate's stages or share of the maximum run only in this process. */
export function refuseThroughAgents(options: RunOptions, hooks: BenchmarkHooks): void {
  if (options.scenarios && hooks.stepExecutor)
    throw new UsageError('scenarios run in this process: they cannot be combined with --agents');
  if (options.warmup === 'auto' && hooks.stepExecutor)
    throw new UsageError(
      'option --warmup auto: not through --agents yet; give the warm-up in seconds',
    );
  if (options.arrival && hooks.stepExecutor) {
    throw new UsageError(
      'option --rate: stages and a share of the maximum do not run through --agents yet; give a constant rate (--rate 500)',
    );
  }
}

/** Starts the run's lifecycle; its events leave through hooks.onEvent. */
export function startRun(
  options: RunOptions,
  hooks: BenchmarkHooks,
  resultsPath: string | undefined,
): Promise<StartedRun> {
  const emit = (event: BenchmarkEvent) => hooks.onEvent?.(event);
  return RunLifecycle.start(options, hooks, emit, resultsPath, (target, startedAt) =>
    initialResult(options, target, startedAt),
  );
}
