/**
 * runBenchmark: connect, load, sweep the client counts (trials per count), and build the result
 * document, writing results.json atomically after every step. Progress leaves through hooks.onEvent
 * (the CLI draws it); hooks.onStepComplete receives the result so far (the report writer's seam);
 * hooks.signal stops the clients, and the partial result is written with complete: false. The run's
 * start, its saves and its one way out (sampler stopped, result stamped and written) are
 * ./run-lifecycle.ts: this file is the sweep.
 */
import { join } from 'node:path';
import { MongoClient, WriteConcernSettings } from 'mongodb';
import { RUN_DEFAULTS, RunOptions } from './options/run-options';
import { compileRunWorkload } from './options/run-workload';
import { UsageError } from '../config/errors';
import { RESULT_SCHEMA, ResultDocument, StepResult } from '../result';
import { annotateResult } from '../metrics/warnings';
import { errorRateFailure } from '../metrics/error-rate';
import { autoWarmup } from './auto-warmup';
import { StepMeasurement } from '../metrics/measurement';
import { summarizeStep, workloadCounting } from '../workload/engine/op-figures';
import { redactUri } from '../security/redact';
import { toolInfo } from '../common/version';
import { describeLoadMachine } from '../server/load-machine';
import { readDataVsCache } from '../server/data-vs-cache';
import { bindWorkload } from '../workload/engine/compile-ops';
import { StepPlan, TickEvent } from '../workload/engine/engine';
import {
  localStepExecutor,
  singleLoopExecutor,
  workerThreadsExecutor,
} from '../workload/engine/local-executors';
import { workersForStep } from '../workload/engine/parallel-step';
import { loadData } from '../prepare/loader';
import { parseNamespace } from '../workload/language/op-spec';
import { runSetup } from '../prepare/setup';
import { emptyNamespaces, emptyNamespacesAdvice } from '../prepare/empty-namespaces';
import { setupFor } from '../workload/language/setup-spec';
import type { Target } from '../server/target';
import type { StepExecutor } from '../workload/engine/step-executor';
import type { BenchmarkEvent } from './events';
import { DocumentTemplate, resolveDocsLike } from '../prepare/docs-like';
import type { ConnectProcess } from '../server-stats/processes';
import { checkStep, checkWarning } from '../server-stats/consistency';
import { addBestVerdicts, addStepVerdicts, describeVerdict } from '../slo/check';
import { runScenarios } from './scenarios/scenarios';
import { resolveShareOfMax, ScheduledRate } from '../workload/language/rate-spec';
import { probeMaximum, probeSettings } from './rate-probe';
import { addAvailability, awaitAnswer, outageAnnouncer } from './outages';
import { RunEnding, RunLifecycle } from './run-lifecycle';
import { dropUndefined, messageOf } from '../common/values';

export interface BenchmarkHooks {
  onEvent?: (event: BenchmarkEvent) => void;
  /** After every step, with the result so far (already written to results.json when outDir is set). */
  onStepComplete?: (resultSoFar: ResultDocument) => void | Promise<void>;
  /** Abort to stop: clients finish their in-flight op, the result is written with complete: false. */
  signal?: AbortSignal;
  /** The server measured (lib/server): its URI and client options (credentials, TLS). Default: options.uri as it is. */
  target?: Target;
  /** How the server sampler reaches each process (default: the driver, direct, with the target's clientOptions). */
  connectProcess?: ConnectProcess;
  /** Run every step's clients elsewhere (lib/agents: on other machines) instead of in this process. */
  stepExecutor?: StepExecutor;
  /**
   * Waits for this run's turn before it prepares data ('prepare') or runs a trial ('trial', after the
   * trial's own set-up), and returns the release: lib/run/interleave.ts runs two configurations' trials
   * in a randomized interleaved order on one clock this way. Absent: no waiting.
   */
  turn?: (kind: 'prepare' | 'trial', clients: number, trial: number) => Promise<() => void>;
}

export const RESULTS_FILE = 'results.json';

function toDriverWriteConcern(
  wc: Record<string, unknown> | undefined,
): WriteConcernSettings | undefined {
  if (!wc) return undefined;
  const out: WriteConcernSettings = {};
  if (wc.w !== undefined) out.w = wc.w as WriteConcernSettings['w'];
  if (wc.j !== undefined) out.journal = Boolean(wc.j);
  const timeout = wc.wtimeoutMS ?? wc.wtimeout;
  if (timeout !== undefined) out.wtimeoutMS = Number(timeout);
  return out;
}

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
    config: {
      clients: options.clients,
      seconds: options.ops !== undefined ? null : options.seconds,
      ...dropUndefined({ ops: options.ops }),
      warmupSeconds: options.warmupSeconds,
      ...(options.warmup === 'auto'
        ? { warmup: 'auto', warmupMax: options.warmupMax ?? RUN_DEFAULTS.warmupMax }
        : {}),
      trials: options.trials,
      rate: options.rate ?? null,
      ...(options.arrival ? { rateSpec: options.arrival } : {}),
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
      serverStats: options.serverStats !== false,
      reset: options.reset ?? 'once',
    },
    steps: [],
  };
}

export async function runBenchmark(
  options: RunOptions,
  hooks: BenchmarkHooks = {},
): Promise<ResultDocument> {
  const prepared = compileRunWorkload(options);
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
  const emit = (event: BenchmarkEvent) => hooks.onEvent?.(event);
  const signal = hooks.signal;
  // Connected, the data guard passed, the result begun, the servers sampled. Every way out below is
  // `return run.end(...)` (the sampler stopped, the result stamped and written), then run.close().
  const resultsPath = options.outDir ? join(options.outDir, RESULTS_FILE) : undefined;
  const { run, client, server, guard } = await RunLifecycle.start(
    options,
    hooks,
    emit,
    resultsPath,
    (target, startedAt) => initialResult(options, target, startedAt),
  );
  const { result, save, serverStats } = run;
  try {
    const counting = workloadCounting(
      options.workload.ops,
      server.uri,
      result.target.serverVersion,
    );
    // The notes known at the start were just said (as "server stats: ..."): not again after the first step.
    const toldNotes = new Set<string>(serverStats?.section().notes ?? []);
    let docsLike: DocumentTemplate | undefined;
    let warnedEmpty = false;
    // The data a step starts from: the workload's own set-up, else the built-in loader (unless
    // --no-load). Returns why it stopped short, or undefined when done.
    const prepareData = async (clients: number): Promise<string | undefined> => {
      if (options.setup) {
        const done = await runSetup(client, setupFor(options.setup, clients), {
          randomSeed: options.randomSeed,
          writeConcern: options.writeConcern,
          signal,
          guard,
        });
        emit({
          type: 'setup-done',
          clients,
          steps: done.steps,
          docs: done.documents,
          seconds: done.seconds,
        });
        return done.complete
          ? undefined
          : `interrupted during the set-up (${done.steps} steps done)`;
      }
      if (!options.load) {
        if (!warnedEmpty) {
          warnedEmpty = true;
          const empty = await emptyNamespaces(
            client,
            prepared.ops.map((op) => op.spec),
          );
          if (empty.length > 0)
            emit({
              type: 'empty-namespaces',
              namespaces: empty,
              advice: emptyNamespacesAdvice(empty),
            });
        }
        return undefined;
      }
      const ns = parseNamespace(options.ns, false)!;
      // --docs-like: sampled once, before the loader drops anything (the sample may be the load namespace itself).
      if (options.docsLike && !docsLike) docsLike = await resolveDocsLike(options.docsLike, client);
      emit({
        type: 'load-start',
        ns: options.ns,
        docs: options.docs,
        docSize: options.docSize,
        batchSize: options.batchSize,
        ...(docsLike ? { like: docsLike.source } : {}),
      });
      const loaded = await loadData(
        client,
        {
          ns,
          docs: options.docs,
          docSize: options.docSize,
          batchSize: options.batchSize,
          writeConcern: toDriverWriteConcern(options.writeConcern),
          randomSeed: options.randomSeed,
          keepCollection: options.keepCollection,
          guard,
          ...(docsLike ? { documentTemplate: docsLike.template } : {}),
        },
        { onProgress: (p) => emit({ type: 'load-progress', ...p }), signal },
      );
      emit({ type: 'load-done', docs: loaded.docs, seconds: loaded.seconds });
      return loaded.complete
        ? undefined
        : `interrupted while loading (${loaded.docs} of ${options.docs} documents)`;
    };
    // --reset each-step: as mongo-perf re-runs a test's set-up before every thread count and trial (util/utils.js, runTest).
    const resetEachStep = options.reset === 'each-step';
    if (!resetEachStep) {
      const releasePrepare = hooks.turn
        ? await hooks.turn('prepare', options.clients[0], 0)
        : undefined;
      const stopped = await prepareData(options.clients[0]).finally(releasePrepare);
      if (stopped) return await run.end({ incomplete: stopped });
    }

    if (options.scenarios) {
      // Several workloads at once on one clock (a config's `scenarios`): lib/run/scenarios/scenarios.ts runs them.
      const failed = await runScenarios({
        client,
        options: { ...options, scenarios: options.scenarios },
        result,
        signal,
        emit,
        save,
        onStepComplete: hooks.onStepComplete,
        serverStats,
        counting,
      });
      return await run.end(
        signal?.aborted
          ? { incomplete: `interrupted (${abortReason(signal)})` }
          : failed
            ? { incomplete: failed }
            : { complete: true },
      );
    }
    const ops = bindWorkload(prepared, client, { maxTimeMS: options.opTimeoutMS });
    // Where every step's clients run, chosen once: agents when given, else this process.
    const executor: StepExecutor =
      hooks.stepExecutor ??
      localStepExecutor(
        singleLoopExecutor(client, ops, prepared.scope),
        workerThreadsExecutor(
          {
            uri: server.uri,
            clientOptions: server.clientOptions,
            workload: {
              ops: options.workload.ops,
              ns: options.ns,
              writeConcern: options.writeConcern,
            },
            serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
            opTimeoutMS: options.opTimeoutMS,
          },
          (clients) => workersForStep(clients, options.workers ?? 'auto'),
        ),
        options.workers ?? 'auto',
      );
    // The open model: stages as given; a share of the maximum once a closed probe has measured it.
    let arrival: ScheduledRate | undefined =
      options.arrival?.kind === 'stages' ? options.arrival : undefined;
    if (options.arrival?.kind === 'shareOfMax') {
      const probe = await probeMaximum(
        executor,
        probeSettings(options, options.arrival.share, overrunLimit(options)),
        (news) => emit({ type: 'rate-probe', ...news }),
        signal,
      );
      if (!probe) return await run.end({ incomplete: 'interrupted during the --rate probe' });
      result.rateProbe = probe;
      arrival = resolveShareOfMax(options.arrival, probe.maxOpsPerSec);
    }
    const failedSteps: string[] = [];
    for (const clients of options.clients) {
      if (signal?.aborted) break;
      const measurements: StepMeasurement[] = [];
      const trialStarts: string[] = [];
      let failure: string | undefined;
      let warmup: StepResult['warmup'];
      // With hooks.turn, each trial (its set-up included) waits for its turn; a run that ends early is released by its scheduler.
      let release: (() => void) | undefined;
      for (let trial = 1; trial <= options.trials && !signal?.aborted; trial++) {
        release?.();
        release = hooks.turn ? await hooks.turn('trial', clients, trial) : undefined;
        if (resetEachStep) {
          const stopped = await prepareData(clients);
          if (stopped) return await run.end({ incomplete: stopped });
        }
        trialStarts.push(new Date().toISOString());
        emit({
          type: 'step-start',
          clients,
          trial,
          trials: options.trials,
          seconds: options.seconds,
          warmupSeconds: options.warmupSeconds,
          ...dropUndefined({ ops: options.ops }),
        });
        try {
          const plan: StepPlan = {
            clients,
            seconds: options.seconds,
            warmupSeconds: options.warmupSeconds,
            rate: options.rate,
            randomSeed: options.randomSeed,
            overrunLimitMs: overrunLimit(options),
          };
          if (arrival) plan.arrival = arrival;
          if (options.ops !== undefined) plan.ops = options.ops;
          if (options.warmup === 'auto') {
            const warmed = await autoWarmup(
              executor,
              plan,
              options.warmupMax ?? RUN_DEFAULTS.warmupMax,
              trial,
              { signal, onTick: (tick: TickEvent) => emit({ type: 'tick', clients, trial, tick }) },
            );
            if (!warmed) break; // interrupted while warming up
            emit({
              type: 'warmup-done',
              clients,
              trial,
              seconds: warmed.seconds,
              steady: warmed.steady,
            });
            // Over the trials: the longest warm-up, steady only if every one was.
            warmup = {
              seconds: Math.max(warmup?.seconds ?? 0, warmed.seconds),
              steady: (warmup?.steady ?? true) && warmed.steady,
            };
          }
          const onWindowOpen = serverStats
            ? (atMs: number) => serverStats?.windowOpensAt(atMs, clients, trial)
            : undefined;
          const outage = outageAnnouncer(emit, clients, trial);
          const onTick = (tick: TickEvent) => {
            outage.onTick(tick);
            emit({ type: 'tick', clients, trial, tick });
          };
          const outcome = await executor.runStep(plan, trial, {
            signal,
            onTick,
            onNoAnswer: outage.onNoAnswer,
            onWindowOpen,
          });
          const m = outcome.measurement;
          // No answer since the last network error: failed only if none comes by the window's end plus one server-selection timeout.
          const fresh = (timeoutMS: number) =>
            new MongoClient(server.uri, {
              ...server.clientOptions,
              serverSelectionTimeoutMS: timeoutMS,
              connectTimeoutMS: timeoutMS,
            });
          if (
            m.lostServer !== undefined &&
            (await awaitAnswer(m, fresh, options.serverSelectionTimeoutMS))
          )
            delete m.lostServer;
          const closed = m.outages?.at(-1)?.end;
          if (closed !== undefined)
            emit({ type: 'outage', clients, trial, since: m.outages!.at(-1)!.start, end: closed });
          const remoteFailure = outcome.failure;
          if (m.interrupted && m.elapsedSeconds <= 0) {
            serverStats?.cancelOpen();
            break; // stopped before measuring anything
          }
          // The last counted op is done: the window closes now, on the servers' side too.
          await serverStats?.windowClosed();
          measurements.push(m);
          // The server went away (network errors) or an op outlived the window: this step failed.
          failure =
            remoteFailure ??
            m.cut ??
            (m.lostServer !== undefined
              ? `lost the server: ${redactUri(m.lostServer)}`
              : undefined);
          if (failure) break;
        } catch (err) {
          serverStats?.cancelOpen();
          // A driver message may quote a connection string: never store one with its password.
          failure = redactUri(messageOf(err));
          break;
        }
      }
      if (measurements.length === 0 && !failure) break; // interrupted before this step measured anything
      const step =
        measurements.length > 0
          ? summarizeStep(measurements, failure ? { status: 'failed', error: failure } : {})
          : failedStep(clients, options, failure as string);
      addAvailability(step, measurements);
      // Most ops failed: the step measured the failures, not the server (--max-error-rate).
      const tooManyErrors =
        failure === undefined && !signal?.aborted
          ? errorRateFailure(step, options.maxErrorRate ?? RUN_DEFAULTS.maxErrorRate)
          : undefined;
      if (tooManyErrors) {
        failure = tooManyErrors;
        step.status = 'failed';
        step.error = tooManyErrors;
      }
      if (warmup && measurements.length > 0) step.warmup = warmup;
      if (step.trialStats && trialStarts.length === measurements.length)
        step.trialStats.startedAt = trialStarts;
      executor.describeStep?.(step);
      // What the step's data weighed against the cache (the SoftLayer ratio), read once the step is done.
      if (measurements.length > 0)
        step.dataVsCache = await readDataVsCache(
          client,
          options.ns,
          result.target.processes?.find((p) => p.cacheBytes !== undefined)?.cacheBytes,
        );
      result.steps.push(step);
      annotateResult(result);
      if (serverStats && measurements.length > 0) {
        const check = checkStep(step, serverStats.windowsSoFar(), serverStats.processes, counting);
        serverStats.addCheck(check);
        const warning = checkWarning(check);
        if (warning) emit({ type: 'server-stats', text: `warning: ${warning}` });
        // What the servers would not tell (a test double's serverStatus, say): once, as soon as it is known.
        for (const note of serverStats.section().notes) {
          if (!toldNotes.has(note))
            emit({ type: 'server-stats', text: `could not sample: ${note}` });
          toldNotes.add(note);
        }
      }
      // The objectives (--slo), judged on every finished step.
      const sloFailure =
        result.slo && options.slo ? addStepVerdicts(result.slo, options.slo, step) : undefined;
      emit({ type: 'step-done', step });
      if (failure) {
        failedSteps.push(
          `the step with ${clients} client${clients === 1 ? '' : 's'} failed: ${failure}`,
        );
        result.incompleteReason = failedSteps.join('; ');
      }
      await save();
      await hooks.onStepComplete?.(result);
      // The step's summary, checks and file are written inside the last trial's turn: no other run measures meanwhile.
      release?.();
      if (failure && options.onError !== 'continue') {
        return await run.end({
          failed: `${failedSteps.at(-1)} (partial results${resultsPath ? ` in ${resultsPath}` : ''})`,
          reason: `${failedSteps.join('; ')} (--on-error stop: the remaining steps were not run)`,
        });
      }
      if (
        sloFailure &&
        options.sloAbort &&
        result.slo &&
        clients !== options.clients[options.clients.length - 1]
      ) {
        result.slo.aborted = true;
        return await run.end({
          incomplete: `an objective failed (--slo-abort): ${describeVerdict(sloFailure)}; the remaining steps were not run`,
        });
      }
    }
    // Objectives scoped @best: judged on the sweep's best step, once every step is in.
    if (result.slo && options.slo) addBestVerdicts(result.slo, options.slo, result.steps);
    return await run.end(sweepEnding(failedSteps, signal, resultsPath));
  } finally {
    // Every path (failure, interrupt): the sampler and the connections ended.
    await run.close();
  }
}

/** How a sweep that ran to its end (or was interrupted between trials) ends. */
function sweepEnding(
  failedSteps: string[],
  signal: AbortSignal | undefined,
  resultsPath: string | undefined,
): RunEnding {
  if (failedSteps.length > 0 && !signal?.aborted) {
    // --on-error continue: every step ran, but not every step measured what it should have.
    return {
      failed: `${failedSteps.length} step${failedSteps.length === 1 ? '' : 's'} failed (--on-error continue: the others ran): ${failedSteps.join('; ')}${resultsPath ? ` (results in ${resultsPath})` : ''}`,
    };
  }
  if (signal?.aborted) return { incomplete: `interrupted (${abortReason(signal)})` };
  return { complete: true };
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'aborted';
}

/** How long a step may run past its window before it is cut: the op timeout, plus a second of slack. */
function overrunLimit(options: RunOptions): number | undefined {
  // An op count's window has no close to overrun: it ends when its last op does (each op bounded by the op timeout).
  if (options.ops !== undefined) return undefined;
  return options.opTimeoutMS !== undefined ? options.opTimeoutMS + 1000 : undefined;
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
