/**
 * What runBenchmark's phases share (./start.ts, ./prepare.ts, ./executor.ts, ./probe.ts, ./step.ts,
 * ./scenarios.ts, ./end.ts): the run's hooks, and one SweepState made once the run has started.
 * Each phase is a function of it and of plain data; the few facts a phase learns for a later one
 * (the notes told, the empty-namespace warning given, --docs-like's template, the failed steps) are
 * its fields, not closures.
 */
import type { MetricsServer } from '../metrics-server';
import { randomBytes } from 'node:crypto';
import type { MongoClient } from 'mongodb';
import { FaultKeeper } from '../scenarios/faults';
import { Toxiproxy } from '../scenarios/toxiproxy';
import type { RunOptions } from '../options/run-options';
import type { ResultDocument } from '../../result';
import type { Target } from '../../server/target';
import type { GuardPolicy } from '../../server/data-guard';
import type { RunWritePlan } from '../options/run-write-plan';
import type { ConnectProcess } from '../../server-stats/processes';
import type { WorkloadCounting } from '../../server-stats/consistency';
import type { StepExecutor } from '../../workload/engine/step-executor';
import type { PreparedWorkload } from '../../workload/engine/compile-ops';
import type { WriteScope } from '../../workload/engine/write-handles';
import type { ScheduledRate } from '../../workload/language/rate-spec';
import type { DocumentTemplate } from '../../prepare/docs-like';
import { workloadCounting } from '../../workload/engine/op-figures';
import type { BenchmarkEvent } from '../events';
import type { RunLifecycle, StartedRun } from '../run-lifecycle';

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
  /** The run's write plan, when the caller made it (the run command's); default: made from the options at the start. */
  writePlan?: RunWritePlan;
  /** Namespaces (`db.coll`) the caller created or replaced once the plan passed (--drop, --setup before the sweep). */
  createdByRun?: ReadonlySet<string>;
  /**
   * Called once the server answered and was identified (its target, as the result will record it),
   * before the write plan is checked and before anything is written: a throw ends the run there, its
   * connection closed. lib/run/interleave.ts waits here until every configuration has connected.
   */
  connected?: (target: ResultDocument['target']) => Promise<void>;
  /**
   * Before the first step's measured trials: one trial (trial 0, in its turn, on prepared data) whose
   * figures are dropped, so that no measured trial takes the server's cold start (lib/run/interleave.ts).
   */
  unmeasuredRound?: boolean;
  /**
   * The metrics endpoint, already listening (the run command starts it before anything else, so a taken
   * port stops the run before it starts); absent: runBenchmark starts one when options.metrics asks,
   * and closes it when the run ends.
   */
  metrics?: MetricsServer;
}

/** The sweep's shared state, from the run's start to its end. */
export interface SweepState {
  readonly options: RunOptions;
  readonly hooks: BenchmarkHooks;
  /** The workload compiled from the options (its ops, their scope). */
  readonly prepared: PreparedWorkload;
  /** The run's start, saves and end (result, emit, save, serverStats, resultsPath). */
  readonly run: RunLifecycle;
  readonly client: MongoClient;
  readonly server: Target;
  /** The loader's and the set-up's drops, consented to once the write plan passed at the start. */
  readonly guard: GuardPolicy;
  /** What the workload's ops may write, from the write plan checked at the start: every bind of them gets it. */
  readonly writes: WriteScope;
  /** The opcounters the workload moves, for each step's check against the servers' counts. */
  readonly counting: WorkloadCounting;
  /** The sampler's notes already told: those known at the start were said then, the rest once each. */
  readonly toldNotes: Set<string>;
  /** Whether the empty-namespace warning (--no-load) was looked for: once a run. */
  warnedEmpty: boolean;
  /** --docs-like's template: sampled once, before the loader drops anything. */
  docsLike: DocumentTemplate | undefined;
  /** Each failed step's line, in order: the result's incompleteReason and the run's failure. */
  readonly failedSteps: string[];
  /** The faults in force (the run's and its scenarios' events), undone on every way the run ends. */
  readonly faults: FaultKeeper;
  /** The run's Toxiproxy (--toxiproxy), when it has one. */
  readonly toxiproxy: Toxiproxy | undefined;
}

/** Where every step's clients run and at what arrival rate: chosen once, before the first step. */
export interface SweepPlan {
  executor: StepExecutor;
  /** The open model: stages as given, or a share of the maximum once the probe measured it. */
  arrival: ScheduledRate | undefined;
}

/** The state of a run just started. */
export function sweepState(
  options: RunOptions,
  hooks: BenchmarkHooks,
  prepared: PreparedWorkload,
  { run, client, server, guard, writes }: StartedRun,
): SweepState {
  return {
    options,
    hooks,
    prepared,
    run,
    client,
    server,
    guard,
    writes,
    counting: {
      ...workloadCounting(options.workload.ops, server.uri, run.result.target.serverVersion),
      ...(options.driver === 'wire' ? { wireClient: true } : {}),
    },
    // The notes known at the start were just said (as "server stats: ..."): not again after the first step.
    toldNotes: new Set<string>(run.serverStats?.section().notes ?? []),
    warnedEmpty: false,
    docsLike: undefined,
    failedSteps: [],
    faults: new FaultKeeper(runId()),
    toxiproxy: options.toxiproxy !== undefined ? new Toxiproxy(options.toxiproxy) : undefined,
  };
}

/** A run's id: when it started and a random part (`20250101T120000-a1b2c3`): it names the run's toxics. */
function runId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}
