/**
 * runBenchmark: connect, load, sweep the client counts (trials per count), and build the result
 * document, writing results.json atomically after every step. Progress leaves through hooks.onEvent
 * (the CLI draws it); hooks.onStepComplete receives the result so far (the report writer's seam);
 * hooks.signal stops the clients, and the partial result is written with complete: false.
 */
import { join } from 'node:path';
import { MongoClient, WriteConcernSettings } from 'mongodb';
import { RunOptions } from '../config/run-options';
import { RunError, UsageError } from '../config/errors';
import { RESULT_SCHEMA, ResultDocument, StepResult } from '../metrics/result';
import { writeResultFile } from '../metrics/result-file';
import { StepMeasurement } from '../metrics/measurement';
import { summarizeStep } from '../metrics/step-result';
import { toolInfo } from '../version';
import { bindWorkload, prepareWorkload, PreparedWorkload } from './compile-ops';
import { runStep, TickEvent } from './engine';
import { loadData, LoadPlan, LoadProgress, LoadResult } from './loader';
import { documentFactory, INDEXED_FIELDS } from './documents';
import { parseNamespace, parseOps } from './op-spec';
import { connectTarget, warmConnections } from './target';

export type BenchmarkEvent =
  | { type: 'connected'; target: ResultDocument['target'] }
  | { type: 'load-start'; ns: string; docs: number; docSize: number; batchSize: number }
  | { type: 'load-progress'; loaded: number; total: number }
  | { type: 'load-done'; docs: number; seconds: number }
  | { type: 'step-start'; clients: number; trial: number; trials: number; seconds: number; warmupSeconds: number }
  | { type: 'tick'; clients: number; trial: number; tick: TickEvent }
  | { type: 'step-done'; step: StepResult }
  | { type: 'results-written'; path: string };

export interface BenchmarkHooks {
  onEvent?: (event: BenchmarkEvent) => void;
  /** After every step, with the result so far (already written to results.json when outDir is set). */
  onStepComplete?: (resultSoFar: ResultDocument) => void | Promise<void>;
  /** Abort to stop: clients finish their in-flight op, the result is written with complete: false. */
  signal?: AbortSignal;
}

export const RESULTS_FILE = 'results.json';

/** Parses and compiles the workload: every op/template error surfaces here, before any connection. */
export function compileRunWorkload(options: Pick<RunOptions, 'workload' | 'ns' | 'writeConcern'>): PreparedWorkload {
  const where = options.workload.file ? `workload file ${options.workload.file}: ` : '';
  const specs = parseOps(options.workload.ops, { defaultNs: options.ns, where });
  try {
    return prepareWorkload(specs, { defaultWriteConcern: options.writeConcern });
  } catch (err) {
    if (err instanceof UsageError && where) throw new UsageError(`${where}${err.message}`);
    throw err;
  }
}

function toDriverWriteConcern(wc: Record<string, unknown> | undefined): WriteConcernSettings | undefined {
  if (!wc) return undefined;
  const out: WriteConcernSettings = {};
  if (wc.w !== undefined) out.w = wc.w as WriteConcernSettings['w'];
  if (wc.j !== undefined) out.journal = Boolean(wc.j);
  const timeout = wc.wtimeoutMS ?? wc.wtimeout;
  if (timeout !== undefined) out.wtimeoutMS = Number(timeout);
  return out;
}

export function initialResult(options: RunOptions, target: ResultDocument['target'], startedAt: Date): ResultDocument {
  return {
    schema: RESULT_SCHEMA,
    tool: toolInfo(),
    label: options.label,
    complete: false,
    startedAt: startedAt.toISOString(),
    target,
    workload: { name: options.workload.name, ops: options.workload.ops, docs: options.docs, docSize: options.docSize },
    config: {
      clients: options.clients,
      seconds: options.seconds,
      warmupSeconds: options.warmupSeconds,
      trials: options.trials,
      rate: options.rate ?? null,
      load: options.load,
      docs: options.docs,
      docSize: options.docSize,
      batchSize: options.batchSize,
      writeConcern: options.writeConcern ?? null,
      ns: options.ns,
      randomSeed: options.randomSeed,
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
    },
    steps: [],
  };
}

export async function runBenchmark(options: RunOptions, hooks: BenchmarkHooks = {}): Promise<ResultDocument> {
  const prepared = compileRunWorkload(options);
  const emit = (event: BenchmarkEvent) => hooks.onEvent?.(event);
  const signal = hooks.signal;
  const startedAt = new Date();
  const maxClients = Math.max(...options.clients);
  const { client, target } = await connectTarget(options.uri, {
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
    maxClients,
    testDouble: options.testDouble,
  });
  emit({ type: 'connected', target });
  const result = initialResult(options, target, startedAt);
  const resultsPath = options.outDir ? join(options.outDir, RESULTS_FILE) : undefined;
  const save = async () => {
    if (!resultsPath) return;
    await writeResultFile(resultsPath, result);
    emit({ type: 'results-written', path: resultsPath });
  };

  try {
    if (options.load) {
      const ns = parseNamespace(options.ns, false)!;
      emit({ type: 'load-start', ns: options.ns, docs: options.docs, docSize: options.docSize, batchSize: options.batchSize });
      const load = options.keepCollection ? loadKeepingCollection : loadData;
      const loaded = await load(
        client,
        { ns, docs: options.docs, docSize: options.docSize, batchSize: options.batchSize, writeConcern: toDriverWriteConcern(options.writeConcern), randomSeed: options.randomSeed },
        { onProgress: (p) => emit({ type: 'load-progress', ...p }), signal },
      );
      emit({ type: 'load-done', docs: loaded.docs, seconds: loaded.seconds });
      if (!loaded.complete) return await finish(result, save, `interrupted while loading (${loaded.docs} of ${options.docs} documents)`);
    }

    const ops = bindWorkload(prepared, client);
    for (const clients of options.clients) {
      if (signal?.aborted) break;
      const measurements: StepMeasurement[] = [];
      let failure: string | undefined;
      for (let trial = 1; trial <= options.trials && !signal?.aborted; trial++) {
        emit({ type: 'step-start', clients, trial, trials: options.trials, seconds: options.seconds, warmupSeconds: options.warmupSeconds });
        try {
          await warmConnections(client, clients);
          const m = await runStep(
            ops,
            prepared.scope,
            { clients, seconds: options.seconds, warmupSeconds: options.warmupSeconds, rate: options.rate, randomSeed: options.randomSeed },
            { signal, onTick: (tick) => emit({ type: 'tick', clients, trial, tick }) },
          );
          if (m.interrupted && m.elapsedSeconds <= 0) break; // stopped before measuring anything
          measurements.push(m);
        } catch (err) {
          failure = (err as Error).message;
          break;
        }
      }
      if (measurements.length === 0 && !failure) break; // interrupted before this step measured anything
      const step = measurements.length > 0
        ? summarizeStep(measurements, failure ? { status: 'failed', error: failure } : {})
        : failedStep(clients, options, failure as string);
      result.steps.push(step);
      emit({ type: 'step-done', step });
      await save();
      await hooks.onStepComplete?.(result);
      if (failure) {
        result.incompleteReason = `step with ${clients} clients failed: ${failure}`;
        result.finishedAt = new Date().toISOString();
        await save();
        throw new RunError(`the step with ${clients} clients failed: ${failure} (partial results${resultsPath ? ` in ${resultsPath}` : ''})`);
      }
    }
    if (signal?.aborted) return await finish(result, save, `interrupted (${abortReason(signal)})`);
    result.complete = true;
    result.finishedAt = new Date().toISOString();
    await save();
    return result;
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function finish(result: ResultDocument, save: () => Promise<void>, reason: string): Promise<ResultDocument> {
  result.complete = false;
  result.incompleteReason = reason;
  result.finishedAt = new Date().toISOString();
  await save();
  return result;
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'aborted';
}

function failedStep(clients: number, options: RunOptions, error: string): StepResult {
  const empty = { avg: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, count: 0 };
  return {
    clients,
    seconds: options.seconds,
    trials: 0,
    status: 'failed',
    error,
    ops: { reads: 0, writes: 0, errors: 0 },
    opsPerSec: { total: 0, reads: 0, writes: 0 },
    peakOpsPerSec: { total: 0, reads: 0, writes: 0 },
    latencyMicros: { reads: empty, writes: { ...empty } },
    perSecond: [],
    benchRun: {},
  };
}


/**
 * loadData without the drop: empties the collection with deleteMany and inserts into it, so a
 * collection the setup plan sharded and pre-split keeps its shard key and chunk distribution.
 * (Candidate for a `keepCollection` option of loader.ts, which drops unconditionally.)
 */
async function loadKeepingCollection(
  client: MongoClient,
  plan: LoadPlan,
  hooks: { onProgress?: (p: LoadProgress) => void; signal?: AbortSignal } = {},
): Promise<LoadResult> {
  const started = performance.now();
  const coll = client.db(plan.ns.db).collection<{ _id: number }>(plan.ns.coll);
  await coll.deleteMany({}, plan.writeConcern ? { writeConcern: plan.writeConcern } : {});
  await coll.createIndexes(INDEXED_FIELDS.map((field) => ({ key: { [field]: 1 }, name: `${field}_1` })));
  const factory = documentFactory(plan.docs, plan.docSize, plan.randomSeed);
  const options = plan.writeConcern ? { ordered: false, writeConcern: plan.writeConcern } : { ordered: false };
  let loaded = 0;
  hooks.onProgress?.({ loaded, total: plan.docs });
  while (loaded < plan.docs) {
    if (hooks.signal?.aborted) return { docs: loaded, seconds: (performance.now() - started) / 1000, complete: false };
    const end = Math.min(plan.docs, loaded + plan.batchSize);
    const batch = [];
    for (let id = loaded; id < end; id++) batch.push(factory.make(id));
    await coll.insertMany(batch, options);
    loaded = end;
    hooks.onProgress?.({ loaded, total: plan.docs });
  }
  return { docs: loaded, seconds: (performance.now() - started) / 1000, complete: true };
}
