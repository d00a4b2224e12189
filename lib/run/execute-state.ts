/**
 * What executeRun's phases share (./execute.ts, ./execute-target.ts): the plan, the hooks, and the
 * record kept on disk from the start: command-log.txt (opened with the run's first lines: the tool,
 * the command, the connection, the plan's notes and warnings), setup.js (what the set-up steps
 * attempted), the secrets both scrub, whether --drop already ran and what it replaced.
 */
import * as path from 'node:path';
import type { MongoClientOptions } from 'mongodb';
import { toolInfo } from '../common/version';
import { CommandLog, SetupJsRecord, setupJsWhy } from '../deployment/command-log';
import type { StepExecutor } from '../workload/engine/step-executor';
import type { RunEvent } from './events';
import type { RunPlan } from './options/run-plan';
import { describeDataRule } from './options/dry-run';
import type { FileWrites } from '../common/file-plan';
import type { ClusterKeeper } from './cluster-restore';
import type { ResultDocument } from '../result';
import type { ServedPage } from './served-page';

export interface ExecuteHooks {
  signal: AbortSignal;
  emit(event: RunEvent): void;
  /** The command line as typed (credentials are removed before it is logged). */
  commandLine?: string;
  /** Credentials and TLS for every connection to the target (lib/security): folded into the run's Target. */
  clientOptions?: MongoClientOptions;
  /** Values to scrub from command-log.txt and setup.js (passwords). */
  secrets?: string[];
  /** --auth: the first admin user of a launched or embedded server (the one the run connects as). */
  credentials?: { username: string; password: string };
  /** How the run authenticates, for the log (never the password), e.g. "user alice (authSource admin), no TLS". */
  connectionNote?: string;
  /** --agents: every step's clients run on the agents (lib/agents' coordinator). */
  stepExecutor?: StepExecutor;
}

export interface ExecuteState {
  readonly plan: RunPlan;
  readonly hooks: ExecuteHooks;
  readonly outDir: string;
  readonly log: CommandLog;
  /** Grows when the launch makes a secret (a keyfile): the log and setup.js read it as they write. */
  readonly secrets: string[];
  /** Steps that ran (applied or found done), plus a failed one: setup.js shows what was attempted. */
  readonly setupJs: SetupJsRecord;
  /** On a launched sharded cluster --drop runs before the data-distribution steps (acquireTarget's hook). */
  dropped: boolean;
  /** The run's files, checked before it began; recorded in the folder's marker as they are written. */
  readonly files: FileWrites;
  /** Namespaces (`db.coll`) --drop and --setup replaced or created once the write plan passed: the run's own. */
  readonly createdByRun: Set<string>;
  /** The cluster state the run changes, read before its first change and set back at its end (./cluster-restore.ts). */
  cluster?: ClusterKeeper;
  /** The result as far as it goes: after each step, then the finished one (--junit is written from it). */
  result?: ResultDocument;
  /** --serve: the served page, told of each step's end and of the run's. */
  served?: ServedPage;
}

/** The run's record begun: command-log.txt's first lines and setup.js's record (both written once the run reaches a server). */
export function openRunRecord(plan: RunPlan, hooks: ExecuteHooks, files: FileWrites): ExecuteState {
  const outDir = plan.benchmark.outDir;
  const secrets = [...(hooks.secrets ?? [])];
  const log = new CommandLog(outDir, secrets);
  const tool = toolInfo();
  log.note(`${tool.name} ${tool.version} run started; output ${path.resolve(outDir)}`);
  if (hooks.commandLine) log.line(`# command: ${hooks.commandLine}`);
  if (hooks.connectionNote) log.note(`connection: ${hooks.connectionNote}`);
  const state: ExecuteState = {
    plan,
    hooks,
    outDir,
    log,
    secrets,
    setupJs: setupJsRecord(plan, outDir, log, secrets),
    dropped: false,
    files,
    createdByRun: new Set(),
  };
  for (const text of plan.notes) note(state, text);
  // What may be dropped or written on a deployment the tool did not start, said before anything connects.
  if (plan.target.kind === 'uri') note(state, `data: ${describeDataRule(plan)}`);
  for (const w of plan.warnings) note(state, `warning: ${w}`);
  return state;
}

/** Only once the run reached a server (the folder exists); a plain --uri run gets it on connecting. */
function setupJsRecord(
  plan: RunPlan,
  outDir: string,
  log: CommandLog,
  secrets: string[],
): SetupJsRecord {
  const t = plan.target;
  const why = setupJsWhy(
    t,
    'run',
    {
      purpose: 'the data-distribution steps of --setup',
      asItIs: t.kind === 'uri' && t.setup ? undefined : '--setup would shard the collection',
    },
    ' cluster',
  );
  return new SetupJsRecord(outDir, log, t, why, secrets);
}

/** A note: in command-log.txt and shown. */
export function note(state: ExecuteState, text: string): void {
  state.log.note(text);
  state.hooks.emit({ type: 'note', text });
}

/** A set-up step's progress: shown, and attempted for setup.js. */
export function setupStep(
  state: ExecuteState,
  e: { step: number; steps: number; description: string; status: string },
): void {
  state.hooks.emit({ type: 'setup-step', ...e });
  state.setupJs.step(e);
}
