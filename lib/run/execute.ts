/**
 * One `mongo-bench run`, end to end, as its phases: check the output folder (and the store, and an
 * existing server that refuses connections), open the run's record (command-log.txt, setup.js:
 * ./execute-state.ts), acquire the target and prepare its database (./execute-target.ts), write
 * setup.js, run the sweep (./benchmark.ts) with the report written after every step, write the
 * report and say how the run went, set back what the run changed on a cluster it did not start (the
 * balancer, the chunk size: ./cluster-restore.ts), release the target. Whatever was started is
 * stopped, and what was changed set back, on a normal end, on failure and on interrupt. Plain data in
 * (the RunPlan), plain data out; the CLI draws the events and maps the outcome to an exit code.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { EXIT, RunError, UsageError } from '../config/errors';
import { ResultDocument } from '../result';
import { INDEX_FILE, loadResult, writeReport } from '../report';
import { reportFileNames } from '../report/write-report';
import { COMMAND_LOG_FILE, SETUP_FILE } from '../deployment/command-log';
import { fileEntries, FileWrites } from '../common/file-plan';
import { checkJunitFile, runJunitSuite, writeJunit } from '../report/junit';
import { RESULTS_FILE, runBenchmark, startMetricsServer } from './benchmark';
import type { MetricsServer } from './metrics-server';
import { abortError } from '../deployment/acquire';
import { dropUndefined, isAbortError, messageOf } from '../common/values';
import type { Target } from '../server/target';
import { assertWritableDir } from '../common/dir-check';
import { assertStoreWritable } from '../store/check';
import { assertNotRefused } from '../server/connect';
import { holdPhase } from '../common/phase-hold';
import { RunPlan, ServeOptions } from './options/run-plan';
import { ServedPage } from './served-page';
import { counted } from '../common/values';
import { ExecuteHooks, ExecuteState, openRunRecord } from './execute-state';
import {
  acquireRunTarget,
  keepRunClusterState,
  prepareRunDatabase,
  releaseRunTarget,
  restoreRunClusterState,
} from './execute-target';

export type { ExecuteHooks } from './execute-state';

export interface RunOutcome {
  exitCode: number;
  outDir: string;
  result?: ResultDocument;
  /** Why it did not end well, for the CLI's last line. */
  message?: string;
}

export async function executeRun(plan: RunPlan, given: ExecuteHooks): Promise<RunOutcome> {
  const files = await checkBeforeStart(plan, given);
  // --serve: listening before the run starts (a port taken is a usage error now), fed the run's events.
  const served = plan.serve
    ? await startServing(plan.serve, plan.benchmark.label, given)
    : undefined;
  const hooks = served ? feeding(served, given) : given;
  // --metrics-port: listening before anything starts too (a taken port stops the run here), closed on every way out.
  let metrics: MetricsServer | undefined;
  let state: ExecuteState;
  try {
    if (plan.benchmark.metrics)
      metrics = await startMetricsServer(plan.benchmark.metrics, hooks.emit);
    state = openRunRecord(plan, hooks, files);
  } catch (err) {
    await metrics?.close();
    await served?.close(0, hooks.signal);
    throw err;
  }
  state.served = served;
  let target: Target | undefined;
  try {
    try {
      target = await acquireRunTarget(state);
      if (hooks.signal.aborted) throw abortError();
      // What the run changes on a cluster it did not start (the balancer, the chunk size): read first, set back at the end.
      await keepRunClusterState(state, target);
      await prepareRunDatabase(state, target);
    } finally {
      state.setupJs.write();
    }
    if (hooks.signal.aborted) throw abortError();
    const result = await runSweep(state, target, metrics);
    return await reportOutcome(state, result);
  } catch (err) {
    return interruptedOutcome(state, err);
  } finally {
    try {
      // Also when interrupted (the first Ctrl-C or SIGTERM) or failed; bounded, so the run still ends.
      await restoreRunClusterState(state);
      await releaseRunTarget(state, target);
      await writeRunJunit(state);
      state.log.note('run finished');
      await files.record();
    } finally {
      // After the report: a scraper still reads the final figures while it is written.
      await metrics?.close();
    }
    if (served && plan.serve) await endServing(state, served, plan.serve.lingerSeconds);
  }
}

/** --serve's server, listening; its address (and a warning when off loopback) told. */
async function startServing(
  options: ServeOptions,
  label: string,
  hooks: ExecuteHooks,
): Promise<ServedPage> {
  const served = await ServedPage.start(options, `mongo-bench run: ${label}`);
  hooks.emit({ type: 'serving', url: served.url, ...dropUndefined({ warning: served.warning }) });
  return served;
}

/** The run's hooks, its events also told to the served page. */
function feeding(served: ServedPage, hooks: ExecuteHooks): ExecuteHooks {
  return {
    ...hooks,
    emit: (event) => {
      served.handle(event);
      hooks.emit(event);
    },
  };
}

/** The end sent to the open pages (if the report did not already), then the server closed: after --serve-linger, or at Ctrl-C. */
async function endServing(
  state: ExecuteState,
  served: ServedPage,
  lingerSeconds: number,
): Promise<void> {
  const { hooks, result, outDir } = state;
  served.finish(result, servedEnd(result, outDir), !hooks.signal.aborted);
  if (lingerSeconds > 0 && !hooks.signal.aborted)
    hooks.emit({
      type: 'note',
      text: `served page: ${served.url} stays ${lingerSeconds} s (--serve-linger); Ctrl-C ends it sooner`,
    });
  await served.close(lingerSeconds, hooks.signal);
}

/** Where the served page links the written report: index.html, when a step was measured. */
function servedEnd(result: ResultDocument | undefined, outDir: string): { indexHtml?: string } {
  return result && result.steps.length > 0 ? { indexHtml: path.resolve(outDir, INDEX_FILE) } : {};
}

/**
 * --junit, from what was measured (a failed or interrupted run's steps too); nothing when nothing was.
 * Its path was checked before the run: a write that fails now is said, and the exit code stays the run's.
 */
async function writeRunJunit(state: ExecuteState): Promise<void> {
  const { plan, hooks, log, result, secrets } = state;
  if (plan.junit === undefined || result === undefined) return;
  try {
    await writeJunit(plan.junit, runJunitSuite(result), secrets);
    log.note(`junit: wrote ${plan.junit}`);
  } catch (err) {
    const text = `junit: cannot write ${plan.junit}: ${messageOf(err)}`;
    log.note(text);
    hooks.emit({ type: 'note', text });
  }
}

/** Every file a run may write in its folder: results.json, its record, and every report file it could draw. */
export const RUN_FILE_NAMES: readonly string[] = [
  RESULTS_FILE,
  COMMAND_LOG_FILE,
  SETUP_FILE,
  ...reportFileNames(),
];

/**
 * Before anything starts: a run that cannot write its results, would replace a file of the user's, or
 * cannot reach an existing server, must not begin. Returns the run's files, to record once written.
 */
async function checkBeforeStart(plan: RunPlan, hooks: ExecuteHooks): Promise<FileWrites> {
  assertWritableDir(plan.benchmark.outDir, 'option --out');
  // --junit, the write plan's file entry: its folder writable, a file of the user's there refused.
  if (plan.junit !== undefined) {
    if (RUN_FILE_NAMES.some((name) => path.resolve(plan.benchmark.outDir, name) === plan.junit))
      throw new UsageError(
        `option --junit: ${plan.junit} is one of the run's own files in --out: name another file`,
      );
    checkJunitFile(plan.junit, 'run', plan.force);
  }
  // Before command-log.txt, setup.js or anything else: every file the run could write, judged now.
  const files = FileWrites.check(fileEntries(plan.benchmark.outDir, RUN_FILE_NAMES, 'run'), {
    force: plan.force,
  });
  // The results store too (--store): a folder that cannot be made, or a store that takes no write, is refused now, not after the run.
  if (plan.store !== undefined)
    await assertStoreWritable(plan.store, {
      serverSelectionTimeoutMS: plan.benchmark.serverSelectionTimeoutMS,
    });
  // An existing single host that refuses connections fails now, before --drop or --setup would wait out the server-selection timeout.
  if (plan.target.kind === 'uri') await assertNotRefused(plan.target.uri, hooks.clientOptions);
  return files;
}

/** The sweep on the target: its news logged and shown, the report written after every step (and for a failed run's steps). */
async function runSweep(
  state: ExecuteState,
  target: Target,
  metrics: MetricsServer | undefined,
): Promise<ResultDocument> {
  const { plan, hooks, log, setupJs, outDir } = state;
  const sharded =
    (plan.target.kind === 'launched' && plan.target.plan.topology.kind === 'sharded') ||
    (plan.target.kind === 'uri' && plan.target.setup !== undefined);
  log.note(`benchmark: connecting to ${target.uri}`);
  try {
    return await runBenchmark(
      { ...plan.benchmark, uri: target.uri, keepCollection: sharded, drop: plan.drop },
      {
        signal: hooks.signal,
        target,
        writePlan: plan.writePlan,
        createdByRun: state.createdByRun,
        ...(hooks.stepExecutor ? { stepExecutor: hooks.stepExecutor } : {}),
        ...(metrics ? { metrics } : {}),
        onEvent: (e) => {
          if (e.type === 'connected') {
            log.open();
            if (!setupJs.hasWritten) setupJs.write();
          }
          if (e.type === 'load-start')
            log.note(
              `load: ${e.docs} documents of ~${e.docSize} bytes into ${e.ns}${sharded ? ' (emptied with deleteMany, keeping its sharding)' : ' (collection dropped first)'}`,
            );
          if (e.type === 'fault') log.note(`faults: ${e.text.replace(/^faults: /, '')}`);
          if (e.type === 'step-start')
            log.note(`sweep: ${counted(e.clients, 'client')}, trial ${e.trial}/${e.trials}`);
          hooks.emit(e);
        },
        onStepComplete: async (soFar) => {
          state.result = soFar;
          await writeReport([soFar], outDir);
          state.served?.stepDone(soFar);
          // Recorded as the run goes: a run killed later still leaves its charts known as its own.
          await state.files.record();
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
}

/** The report of what was measured, then how the run went. */
async function reportOutcome(state: ExecuteState, result: ResultDocument): Promise<RunOutcome> {
  const { hooks, log, outDir } = state;
  state.result = result;
  hooks.emit({ type: 'phase', phase: 'report', detail: `writing the report to ${outDir}` });
  await holdPhase('report', hooks.signal);
  // Even when interrupted now: results.json is written; the report of what was measured is quick and worth finishing.
  if (result.steps.length > 0) await writeReport([result], outDir);
  // The served page's end as soon as the report is written (the release of the target may take a while).
  state.served?.finish(result, servedEnd(result, outDir), !hooks.signal.aborted);
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
}

/** An interrupt (or an error while interrupted) is an outcome, with what was measured said; any other error is thrown on. */
function interruptedOutcome(state: ExecuteState, err: unknown): RunOutcome {
  const { hooks, log, outDir } = state;
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
}

function interruptCode(signal: AbortSignal): number {
  return signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
}
