/**
 * A run's lifecycle, one object: `start` connects, refuses what the write plan refuses, begins the
 * result document and starts the server-stats sampler; `save` writes the result so far (after every
 * step); `end` is the one way a run ends: the sampler stopped, the result stamped (complete, or
 * incomplete with its reason, or failed), finishedAt set and the result written; `close` gives back
 * what the run holds (on every path, a thrown error's included). runBenchmark (./benchmark.ts) is the
 * sweep between start and end.
 */
import { checkWriteConcernMode } from '../server/write-concern-mode';
import type { MongoClient } from 'mongodb';
import type { RunOptions } from './options/run-options';
import { RunError } from '../config/errors';
import { ResultDocument, writeResultFile } from '../result';
import { annotateResult } from '../metrics/warnings';
import { sweepAdvice } from '../metrics/client-load';
import { readProcessFactsAnew } from '../server/server-facts';
import { GuardPolicy, guardPolicy } from '../server/data-guard';
import { runWritePlan, RunWritePlan } from './options/run-write-plan';
import { checkRunWrites } from './write-check';
import { connectTarget } from '../server/connect';
import { Target, uriTarget } from '../server/target';
import type { StepExecutor } from '../workload/engine/step-executor';
import { workloadWrites, WriteScope } from '../workload/engine/write-handles';
import type { BenchmarkEvent } from './events';
import { ConnectProcess, driverProcessConnector } from '../server-stats/processes';
import { ServerStatsRecorder, startServerStats, unsampledSection } from '../server-stats/recorder';
import { emptySloSection } from '../slo/check';

/** How a run ends (RunLifecycle.end). */
export type RunEnding =
  /** Every step ran (failed steps under --on-error continue end as `failed`). */
  | { complete: true }
  /** Stopped short (interrupted, the set-up or load stopped, a scenario failed, --slo-abort): the reason, before any a failed step gave. */
  | { incomplete: string }
  /** A RunError with `error` once the result is written; `reason`, when given, replaces the result's incompleteReason. */
  | { failed: string; reason?: string };

/** What start needs from runBenchmark's hooks. */
export interface LifecycleHooks {
  target?: Target;
  connectProcess?: ConnectProcess;
  stepExecutor?: StepExecutor;
  /** The run's write plan, when its caller made it (the run command's, with --store and agents); default: from the options. */
  writePlan?: RunWritePlan;
  /** Namespaces (`db.coll`) the caller created or replaced after the plan passed (--drop, --setup before the sweep). */
  createdByRun?: ReadonlySet<string>;
  /** Once the server answered and was identified, before anything is checked or written: a throw refuses it. */
  connected?: (target: ResultDocument['target']) => Promise<void>;
}

/**
 * What start gives the sweep: the lifecycle, the client, the server measured, the data guard (its consent
 * given once the plan passed) and what the workload's ops may write (the checked plan's, enforced where
 * they are bound: lib/workload/engine/write-handles.ts).
 */
export interface StartedRun {
  run: RunLifecycle;
  client: MongoClient;
  server: Target;
  guard: GuardPolicy;
  writes: WriteScope;
}

export class RunLifecycle {
  /** The sampler's stop, once: by end(), else by close(). */
  private stopping: Promise<unknown> | undefined;
  /** Work for the run's end, before the result is stamped (the owner markers' last record). */
  private readonly endTasks: (() => Promise<void>)[] = [];

  constructor(
    readonly result: ResultDocument,
    readonly emit: (event: BenchmarkEvent) => void,
    private readonly closeClient: () => Promise<void>,
    /** Where results.json goes (undefined: the result is not written, only returned). */
    readonly resultsPath: string | undefined,
    /** The server-stats sampler; undefined with --no-server-stats or when nothing could be sampled. */
    readonly serverStats?: ServerStatsRecorder,
  ) {}

  /**
   * Connects, checks the write plan (every write the loader, the set-up and the workload make, refused
   * before anything is done on the server), begins the result (`begin`: the result document before any
   * step) and starts the sampler. Whatever fails here closes what was opened before the error
   * reaches the caller.
   */
  static async start(
    options: RunOptions,
    hooks: LifecycleHooks,
    emit: (event: BenchmarkEvent) => void,
    resultsPath: string | undefined,
    begin: (target: ResultDocument['target'], startedAt: Date) => ResultDocument,
  ): Promise<StartedRun> {
    const startedAt = new Date();
    const maxClients = Math.max(...options.clients);
    const server = hooks.target ?? uriTarget(options.uri);
    const { client, target } = await connectTarget(server.uri, {
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
      maxClients,
      testDouble: options.testDouble,
      clientOptions: server.clientOptions,
      opTimeoutMS: options.opTimeoutMS,
    });
    emit({ type: 'connected', target });
    const closeClient = () => client.close().catch(() => undefined);
    // Every write the run will make, checked against what the server holds before the first (./write-check).
    const plan = hooks.writePlan ?? runWritePlan(options, server.origin);
    try {
      await hooks.connected?.(target);
      // A custom write mode the server does not define would fail every write: refused before the first.
      const unchecked = await checkWriteConcernMode(
        options.writeConcern,
        target.topology,
        (command) => client.db('admin').command(command),
      );
      if (unchecked) emit({ type: 'guard', text: `warning: ${unchecked}` });
      await checkRunWrites(client, plan, {
        ...(hooks.createdByRun ? { createdByRun: hooks.createdByRun } : {}),
        ...(options.docsLike ? { docsLike: options.docsLike } : {}),
      });
    } catch (err) {
      await closeClient();
      throw err;
    }
    // The plan passed: the loader's and the set-up's drops are consented to (lib/server/data-guard).
    const guard = guardPolicy(server.origin, true, 'the write plan');
    // The plan passed: the workload's ops are bound to write only what it allows (lib/workload/engine/write-handles).
    const writes = workloadWrites(plan);
    const result = begin(target, startedAt);
    if (options.slo && options.slo.length > 0)
      result.slo = emptySloSection(options.slo, options.sloAbort === true);
    hooks.stepExecutor?.describeRun?.(result);
    let serverStats: ServerStatsRecorder | undefined;
    try {
      if (options.serverStats !== false) {
        // Started before the load, so the servers' side of the load is sampled too; its own clients, not the benchmark's.
        const started = await startServerStats(
          (command) => client.db('admin').command(command),
          client.options.hosts.map((h) => h.toString()),
          {
            intervalMs: options.serverStatsIntervalMs,
            connect:
              hooks.connectProcess ??
              driverProcessConnector(options.serverStatsIntervalMs ?? 1000, server.clientOptions),
          },
        );
        serverStats = started.recorder;
        // What each sampled process says about itself (version, engine, cache, options, host), before the load.
        if (serverStats)
          result.target.processes = await serverStats.eachProcess((run, p) =>
            readProcessFactsAnew(run, p.id),
          );
        // Not sampled at all: the result still says why (the report shows it instead of server charts).
        if (!serverStats) result.server = unsampledSection(started.warnings);
        for (const text of started.warnings) emit({ type: 'server-stats', text });
      }
    } catch (err) {
      await new RunLifecycle(result, emit, closeClient, resultsPath, serverStats).close();
      throw err;
    }
    return {
      run: new RunLifecycle(result, emit, closeClient, resultsPath, serverStats),
      client,
      server,
      guard,
      writes,
    };
  }

  /** Writes the result so far: the sampler's section and every step's warnings, computed before it is written. */
  readonly save = async (): Promise<void> => {
    if (this.serverStats) this.result.server = this.serverStats.section();
    // The result's invariants: every step's warnings, computed from the result before it is written.
    annotateResult(this.result);
    if (!this.resultsPath) return;
    await writeResultFile(this.resultsPath, this.result);
    this.emit({ type: 'results-written', path: this.resultsPath });
  };

  /**
   * The one way a run ends: stops the sampler (its last readings go into the result), stamps the
   * result and writes it. Returns it, or throws the failure's RunError once it is written.
   */
  async end(ending: RunEnding): Promise<ResultDocument> {
    await this.stopSampler();
    for (const task of this.endTasks.splice(0)) await task();
    const result = this.result;
    if ('failed' in ending) {
      if (ending.reason !== undefined) result.incompleteReason = ending.reason;
    } else {
      result.complete = 'complete' in ending;
      // Keep what a failed step (--on-error continue) already said.
      if ('incomplete' in ending)
        result.incompleteReason = result.incompleteReason
          ? `${ending.incomplete}; ${result.incompleteReason}`
          : ending.incomplete;
    }
    result.finishedAt = new Date().toISOString();
    await this.save();
    if ('failed' in ending) throw new RunError(ending.failed);
    return result;
  }

  /** Adds work for end() (not for close(): a run that throws leaves its markers as they were). */
  atEnd(task: () => Promise<void>): void {
    this.endTasks.push(task);
  }

  /** On every path (failure, interrupt): the client-bound advice, then the sampler and the connections ended. */
  async close(): Promise<void> {
    const advice = sweepAdvice(this.result.steps);
    if (advice) this.emit({ type: 'client-bound', advice });
    // Already stopped when end() was reached; here for a thrown error.
    await this.stopSampler().catch(() => undefined);
    await this.closeClient();
  }

  private stopSampler(): Promise<unknown> {
    this.stopping ??= this.serverStats?.stop() ?? Promise.resolve();
    return this.stopping;
  }
}
