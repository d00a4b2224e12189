/**
 * The result document before any step: the tool, the target as it was found, the load machine, the
 * workload and the run's `config` (what the options asked for, as results.json records it).
 * RunLifecycle.start (./run-lifecycle.ts) begins every run's result with it.
 */
import { RUN_DEFAULTS, RunOptions } from './options/run-options';
import { RESULT_SCHEMA, ResultDocument } from '../result';
import { toolInfo } from '../common/version';
import { describeLoadMachine } from '../server/load-machine';
import { dropUndefined } from '../common/values';

export function initialResult(
  options: RunOptions,
  target: ResultDocument['target'],
  startedAt: Date,
): ResultDocument {
  return {
    schema: RESULT_SCHEMA,
    tool: toolInfo(),
    label: options.label,
    complete: false,
    startedAt: startedAt.toISOString(),
    target,
    environment: { loadMachine: describeLoadMachine() },
    workload: {
      name: options.workload.name,
      ops: options.workload.ops,
      docs: options.docs,
      // The workload's own set-up loads its documents (YCSB's records, a file's `setup`): --doc-size sized nothing.
      ...(options.setup ? { ownData: true } : { docSize: options.docSize }),
      ...(options.workload.tags ? { tags: options.workload.tags } : {}),
    },
    config: resultConfig(options),
    steps: [],
  };
}

/** results.json's `config`: a run option's key goes here. */
function resultConfig(options: RunOptions): ResultDocument['config'] {
  return {
    clients: options.clients,
    seconds: options.ops !== undefined ? null : options.seconds,
    ...dropUndefined({ ops: options.ops }),
    // --warmup auto fixes no warm-up: each step's own is in its `warmup` (seconds, steady), so no 0 here.
    ...(options.warmup === 'auto'
      ? { warmup: 'auto', warmupMax: options.warmupMax ?? RUN_DEFAULTS.warmupMax }
      : { warmupSeconds: options.warmupSeconds }),
    trials: options.trials,
    rate: options.rate ?? null,
    ...(options.arrival ? { rateSpec: options.arrival } : {}),
    // How free clients waited for due times; only the open model (a rate, or scenarios with theirs) waits.
    ...(options.rate !== undefined || options.arrival || options.scenarios
      ? { arrivals: options.arrivals ?? 'exact' }
      : {}),
    ...(options.workload.sha256 ? { workloadFileSha256: options.workload.sha256 } : {}),
    load: options.load,
    docs: options.docs,
    docSize: options.docSize,
    batchSize: options.batchSize,
    writeConcern: options.writeConcern ?? null,
    ns: options.ns,
    randomSeed: options.randomSeed,
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
    opTimeoutMS: options.opTimeoutMS ?? null,
    onError: options.onError ?? 'stop',
    workers: options.workers ?? 'auto',
    driver: options.driver ?? 'node',
    ...(options.uriRetries ? { uriRetries: options.uriRetries } : {}),
    serverStats: options.serverStats !== false,
    reset: options.reset ?? 'once',
  };
}
