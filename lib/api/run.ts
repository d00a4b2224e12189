/**
 * `mongo-bench run` from code: the same options (camelCase flags, or `config` naming a file), the
 * same target choice (an embedded mongod by default, a launched cluster, or `uri`), the same output
 * folder with results.json and the report. Everything it started is stopped before it returns.
 */
import { MongoClientOptions } from 'mongodb';
import { RunFlags } from '../run/options/run-options';
import { apiNamer, checkApiKeys, withOptionPlaces } from '../config/error-place';
import { resolveRunPlan, runShape } from '../run/options/run-plan';
import { executeRun, RunOutcome } from '../run/execute';
import { RunEvent } from '../run/events';
import { afterRun } from '../run/after-run';

export interface RunControl {
  signal?: AbortSignal;
  /** Phases (launch, setup, load, sweep, report, stop), setup steps, notes, and the benchmark's events. */
  onEvent?: (event: RunEvent) => void;
  clientOptions?: MongoClientOptions;
}

export type { RunFlags, RunOutcome, RunEvent };

/** Resolves the options (errors name the option: UsageError) and runs; `outcome.result` is the result document. */
export async function run(options: RunFlags, control: RunControl = {}): Promise<RunOutcome> {
  checkApiKeys(options, [...Object.keys(runShape), 'config', 'dryRun']);
  // The checks are the CLI's and name its flags (option --max-clients): here, the API's keys.
  const plan = withOptionPlaces(() => resolveRunPlan({ ...options, dryRun: undefined }), apiNamer);
  const outcome = await executeRun(plan, {
    signal: control.signal ?? new AbortController().signal,
    emit: (event) => control.onEvent?.(event),
    clientOptions: control.clientOptions,
  });
  // The result kept in the store (store/MONGO_BENCH_STORE), and exit code 99 when an objective (slo) failed.
  return afterRun(outcome, plan.store, {
    note: (text) => control.onEvent?.({ type: 'note', text }),
  });
}
