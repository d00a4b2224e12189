/**
 * One `mongo-bench run`, end to end: get the target (existing, embedded or launched), set it up,
 * run the benchmark, write the report after every step and at the end, give the target back.
 * Whatever was started is stopped on a normal end, on failure and on interrupt. Plain data in
 * (the RunPlan), plain data out; the CLI draws the events and maps the outcome to an exit code.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { MongoClientOptions } from 'mongodb';
import { EXIT, RunError } from '../config/errors';
import { ResultDocument } from '../result';
import { loadResult, writeReport } from '../report';
import { RESULTS_FILE, runBenchmark } from './benchmark';
import type { StepExecutor } from '../workload/engine/step-executor';
import { toolInfo } from '../common/version';
import { abortError, acquireTarget } from '../deployment/acquire';
import { isAbortError, messageOf } from '../common/values';
import { CommandLog, SetupJsRecord, setupJsWhy } from '../deployment/command-log';
import { Target, uriTarget } from '../server/target';
import { assertWritableDir } from '../common/dir-check';
import { assertStoreWritable } from '../store/check';
import { assertNotRefused } from '../server/connect';
import { holdPhase } from '../common/phase-hold';
import { prepareDatabase } from '../prepare/prepare-database';
import { RunEvent } from './events';
import { RunPlan } from './options/run-plan';
import { describeDataRule } from './options/dry-run';
import { counted } from '../common/values';

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

export interface RunOutcome {
  exitCode: number;
  outDir: string;
  result?: ResultDocument;
  /** Why it did not end well, for the CLI's last line. */
  message?: string;
}

export async function executeRun(plan: RunPlan, hooks: ExecuteHooks): Promise<RunOutcome> {
  const outDir = plan.benchmark.outDir;
  // Before anything starts: a run that cannot write its results must not begin.
  assertWritableDir(outDir, 'option --out');
  // The results store too (--store): a folder that cannot be made, or a store that takes no write, is refused now, not after the run.
  if (plan.store !== undefined)
    await assertStoreWritable(plan.store, {
      serverSelectionTimeoutMS: plan.benchmark.serverSelectionTimeoutMS,
    });
  // An existing single host that refuses connections fails now, before --drop or --setup would wait out the server-selection timeout.
  if (plan.target.kind === 'uri') await assertNotRefused(plan.target.uri, hooks.clientOptions);
  // Grows when the launch makes a secret (a keyfile): the log and setup.js read it as they write.
  const secrets = [...(hooks.secrets ?? [])];
  const log = new CommandLog(outDir, secrets);
  const tool = toolInfo();
  log.note(`${tool.name} ${tool.version} run started; output ${path.resolve(outDir)}`);
  if (hooks.commandLine) log.line(`# command: ${hooks.commandLine}`);
  if (hooks.connectionNote) log.note(`connection: ${hooks.connectionNote}`);
  const note = (text: string) => {
    log.note(text);
    hooks.emit({ type: 'note', text });
  };
  for (const text of plan.notes) note(text);
  // What may be dropped or written on a deployment the tool did not start, said before anything connects.
  if (plan.target.kind === 'uri') note(`data: ${describeDataRule(plan)}`);
  for (const w of plan.warnings) note(`warning: ${w}`);

  // Steps that ran (applied or found done), plus a failed one: setup.js shows what was attempted.
  // Only once the run reached a server (the folder exists); a plain --uri run gets it on connecting.
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
  const setupJs = new SetupJsRecord(outDir, log, t, why, secrets);
  const onStep = (e: { step: number; steps: number; description: string; status: string }) => {
    hooks.emit({ type: 'setup-step', ...e });
    setupJs.step(e);
  };

  let target: Target | undefined;
  let result: ResultDocument | undefined;
  // On a launched sharded cluster --drop runs before the data-distribution steps (acquireTarget's hook).
  let dropped = false;
  const dropDatabaseFirst = async (uri: string): Promise<void> => {
    hooks.emit({
      type: 'phase',
      phase: 'setup',
      detail: `drop database ${plan.db} (before it is sharded)`,
    });
    await prepareDatabase(
      {
        target: uriTarget(uri, hooks.clientOptions),
        db: plan.db,
        drop: true,
        serverSelectionTimeoutMS: plan.benchmark.serverSelectionTimeoutMS,
      },
      { onCommand: (e) => log.command(e), onNote: note },
    );
    dropped = true;
  };
  try {
    try {
      target = await acquireTarget(
        plan.target,
        {
          signal: hooks.signal,
          emit: (e) => {
            if (e.type === 'command-line') log.commandLine(e.line);
            else if (e.type === 'command') log.command(e.entry);
            else if (e.type === 'note') note(e.text);
            else if (e.type === 'secret') secrets.push(e.value);
            else if (e.type === 'setup-step') onStep(e);
            else {
              log.note(`${e.phase}: ${e.detail}`);
              hooks.emit(e);
            }
          },
          credentials: hooks.credentials,
          ...(plan.drop
            ? { beforeDataDistribution: async (uri: string) => dropDatabaseFirst(uri) }
            : {}),
        },
        hooks.clientOptions,
      );
      if (hooks.signal.aborted) throw abortError();

      const uriSetup = plan.target.kind === 'uri' ? plan.target.setup : undefined;
      const drop = plan.drop && !dropped;
      if (drop || uriSetup) {
        hooks.emit({
          type: 'phase',
          phase: 'setup',
          detail: [
            drop ? `drop database ${plan.db}` : '',
            uriSetup ? 'apply the data-distribution steps (--setup)' : '',
          ]
            .filter(Boolean)
            .join(', then '),
        });
        await prepareDatabase(
          {
            target,
            db: plan.db,
            drop,
            setup: uriSetup,
            serverSelectionTimeoutMS: plan.benchmark.serverSelectionTimeoutMS,
          },
          {
            onCommand: (e) => log.command(e),
            onNote: note,
            onPlanned: (applied) => setupJs.planned(applied),
            onStep,
          },
        );
      }
    } finally {
      setupJs.write();
    }
    if (hooks.signal.aborted) throw abortError();

    const sharded =
      (plan.target.kind === 'launched' && plan.target.plan.topology.kind === 'sharded') ||
      (plan.target.kind === 'uri' && plan.target.setup !== undefined);
    log.note(`benchmark: connecting to ${target.uri}`);
    try {
      result = await runBenchmark(
        { ...plan.benchmark, uri: target.uri, keepCollection: sharded, drop: plan.drop },
        {
          signal: hooks.signal,
          target,
          ...(hooks.stepExecutor ? { stepExecutor: hooks.stepExecutor } : {}),
          onEvent: (e) => {
            if (e.type === 'connected') {
              log.open();
              if (!setupJs.hasWritten) setupJs.write();
            }
            if (e.type === 'load-start')
              log.note(
                `load: ${e.docs} documents of ~${e.docSize} bytes into ${e.ns}${sharded ? ' (emptied with deleteMany, keeping its sharding)' : ' (collection dropped first)'}`,
              );
            if (e.type === 'step-start')
              log.note(`sweep: ${counted(e.clients, 'client')}, trial ${e.trial}/${e.trials}`);
            hooks.emit(e);
          },
          onStepComplete: async (soFar) => {
            await writeReport([soFar], outDir);
          },
        },
      );
    } catch (err) {
      // A failed step: the engine wrote the steps before it; give them their report too.
      const partial = await loadResult(path.join(outDir, RESULTS_FILE)).catch(() => undefined);
      if (partial && partial.steps.length > 0)
        await writeReport([partial], outDir).catch(() => undefined);
      throw err;
    }
    hooks.emit({ type: 'phase', phase: 'report', detail: `writing the report to ${outDir}` });
    await holdPhase('report', hooks.signal);
    // Even when interrupted now: results.json is written; the report of what was measured is quick and worth finishing.
    if (result.steps.length > 0) await writeReport([result], outDir);
    log.note(
      `benchmark ${result.complete ? 'complete' : `incomplete: ${result.incompleteReason ?? ''}`}`,
    );
    if (result.complete && hooks.signal.aborted) {
      log.note(
        `interrupted (${String(hooks.signal.reason)}) while writing the report; the results are complete and the report was written`,
      );
      return {
        exitCode: interruptCode(hooks.signal),
        outDir,
        result,
        message: `interrupted (${String(hooks.signal.reason)}) while writing the report; the results are complete, the report was finished`,
      };
    }
    if (!result.complete) {
      return {
        exitCode: interruptCode(hooks.signal),
        outDir,
        result,
        message: `${result.incompleteReason ?? 'incomplete'}; partial results were written`,
      };
    }
    return { exitCode: EXIT.ok, outDir, result };
  } catch (err) {
    if (
      isAbortError(err) ||
      (hooks.signal.aborted && !(err instanceof RunError && err.exitCode === EXIT.usage))
    ) {
      const why = `interrupted (${String(hooks.signal.reason ?? 'abort')})`;
      const measured = existsSync(path.join(outDir, RESULTS_FILE));
      log.note(measured ? why : `${why} before the benchmark started`);
      return {
        exitCode: interruptCode(hooks.signal),
        outDir,
        message: measured
          ? `${why}; partial results were written`
          : `${why} before the benchmark started; nothing was measured`,
      };
    }
    log.note(`failed: ${messageOf(err)}`);
    throw err;
  } finally {
    if (target) {
      if (target.origin !== 'uri')
        hooks.emit({ type: 'phase', phase: 'stop', detail: 'stopping what this run started' });
      await target.release();
    }
    log.note('run finished');
  }
}

function interruptCode(signal: AbortSignal): number {
  return signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
}
