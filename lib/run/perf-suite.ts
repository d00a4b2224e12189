/**
 * Runs mongo-perf test files unchanged: each selected test is swept over the client counts as its
 * own benchmark (one results.json per test, mongo-perf's tags kept), its pre() as the set-up
 * (before every step by default, as mongo-perf does). A test that cannot run says why: a set-up the
 * shell stand-in cannot record, ops benchRun would take but mongo-bench refuses, or what the server
 * answered (a feature a test double lacks). suite.json lists every test's outcome.
 */
import { redactUri } from '../security/redact';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RunOptions } from './options/run-options';
import { UsageError } from '../config/errors';
import { writeJsonAtomically } from '../common/atomic-write';
import { ResultDocument } from '../result';
import { RESULTS_FILE, runBenchmark } from './benchmark';
import { compileRunWorkload } from './options/run-workload';
import { BenchmarkEvent } from './events';
import { ResetMode } from '../workload/language/setup-spec';
import {
  collectionName,
  loadMongoPerfFile,
  MONGO_PERF_DB,
  MongoPerfTest,
  mongoPerfOps,
  mongoPerfSetup,
} from '../workload/language/mongo-perf/load-suite';
import { UnsupportedShellCall } from '../workload/language/mongo-perf/shell-recorder';
import { Target, uriTarget } from '../server/target';
import { dropUndefined, messageOf } from '../common/values';
import type { Driver } from '../workload/engine/op-client';

export interface SuiteOptions {
  files: string[];
  uri: string;
  /** Only tests whose name this matches (a regular expression). */
  tests?: RegExp;
  /** Only tests with at least one of these tags. */
  tags?: string[];
  clients: number[];
  seconds: number;
  warmupSeconds: number;
  trials: number;
  reset: ResetMode;
  outDir: string;
  randomSeed: number;
  serverSelectionTimeoutMS: number;
  opTimeoutMS?: number;
  workers?: number | 'auto';
  /** The client the tests' ops go through (--driver); default node. */
  driver?: Driver;
  testDouble?: boolean;
}

export interface TestOutcome {
  file: string;
  test: string;
  tags: string[];
  /** ran: every step measured with no error; errors: it ran, and some ops failed (reason: the first); unsupported / failed: it did not run. */
  status: 'ran' | 'errors' | 'unsupported' | 'failed';
  reason?: string;
  /** benchRun's figures per client count, as mongo-perf prints them. */
  steps?: { clients: number; 'totalOps/s': number; errCount: number }[];
  /** The test's results.json: present only when that file was written. */
  results?: string;
  /** Why there is no results.json (the test did not run, or failed before its first step was measured). */
  noResults?: string;
}

export interface SuiteReport {
  schema: 'mongo-bench/perf-suite@1';
  uri: string;
  testDouble?: boolean;
  outcomes: TestOutcome[];
}

export interface SuiteHooks {
  onTest?: (outcome: TestOutcome) => void;
  onEvent?: (test: string, event: BenchmarkEvent) => void;
  signal?: AbortSignal;
  /** The server (lib/server), with its client options (credentials, TLS); default: options.uri as it is. */
  target?: Target;
}

export function selectTests(
  tests: MongoPerfTest[],
  filter: Pick<SuiteOptions, 'tests' | 'tags'>,
): MongoPerfTest[] {
  return tests.filter(
    (t) =>
      (!filter.tests || filter.tests.test(t.name)) &&
      (!filter.tags || filter.tags.some((tag) => t.tags.includes(tag))),
  );
}

function safeDir(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, '_');
}

function testRunOptions(
  options: SuiteOptions,
  test: MongoPerfTest,
  ops: unknown[],
  setup: RunOptions['setup'],
): RunOptions {
  return {
    uri: options.uri,
    workload: { name: test.name, ops, tags: test.tags },
    setup,
    reset: options.reset,
    ns: `${MONGO_PERF_DB}.${collectionName(test.name)}`,
    clients: options.clients,
    seconds: options.seconds,
    warmupSeconds: options.warmupSeconds,
    trials: options.trials,
    load: false,
    docs: 0,
    docSize: 0,
    batchSize: 1000,
    label: test.name,
    outDir: join(options.outDir, safeDir(test.name)),
    randomSeed: options.randomSeed,
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
    opTimeoutMS: options.opTimeoutMS,
    onError: 'continue',
    ...dropUndefined({ workers: options.workers, driver: options.driver }),
    ...dropUndefined({ testDouble: options.testDouble }),
  };
}

function summarize(result: ResultDocument): Pick<TestOutcome, 'status' | 'reason' | 'steps'> {
  const steps = result.steps.map((s) => ({
    clients: s.clients,
    'totalOps/s': s.benchRun['totalOps/s'] ?? 0,
    errCount: s.benchRun.errCount ?? 0,
  }));
  const sample = result.steps.flatMap((s) => s.errorSamples ?? [])[0];
  if (!result.complete)
    return { status: 'failed', reason: result.incompleteReason ?? 'incomplete', steps };
  if (sample) return { status: 'errors', reason: `${sample.error}: ${sample.example}`, steps };
  return { status: 'ran', steps };
}

/** Prepares one test (no connection): its ops and set-up, or why it cannot run. */
export function prepareMongoPerfTest(
  file: ReturnType<typeof loadMongoPerfFile>,
  test: MongoPerfTest,
  options: SuiteOptions,
): RunOptions | { unsupported: string } {
  let setup: RunOptions['setup'];
  try {
    setup = mongoPerfSetup(file, test, options.clients);
  } catch (err) {
    if (err instanceof UnsupportedShellCall) return { unsupported: err.message };
    return { unsupported: `its set-up failed in the shell stand-in: ${messageOf(err)}` };
  }
  let runOptions: RunOptions;
  try {
    runOptions = testRunOptions(options, test, mongoPerfOps(test), setup);
    compileRunWorkload(runOptions);
  } catch (err) {
    if (err instanceof UsageError) return { unsupported: `its ops are refused: ${err.message}` };
    throw err;
  }
  return runOptions;
}

/** Points at the test's results.json only when it was written (results go out after each measured step). */
function resultsFile(outDir: string, since: number): Pick<TestOutcome, 'results' | 'noResults'> {
  const path = join(outDir, RESULTS_FILE);
  // Written by this run: an --out folder used before may hold an older one.
  const written = existsSync(path) && statSync(path).mtimeMs >= since;
  return written
    ? { results: path }
    : { noResults: 'no results.json: the test stopped before its first step was measured' };
}

/** The suite's own file, beside the tests' folders. */
export const SUITE_FILE = 'suite.json';

/**
 * Every file the suite may write, relative to its folder: suite.json and each selected test's results.json
 * in the test's folder (a test that turns out unsupported writes none). Reads the test files, writes nothing.
 */
export function suiteFileNames(options: Pick<SuiteOptions, 'files' | 'tests' | 'tags'>): string[] {
  const tests = options.files.flatMap((file) =>
    selectTests(loadMongoPerfFile(file).tests, options),
  );
  return [SUITE_FILE, ...tests.map((test) => join(safeDir(test.name), RESULTS_FILE))];
}

export async function runMongoPerfSuite(
  options: SuiteOptions,
  hooks: SuiteHooks = {},
): Promise<SuiteReport> {
  // suite.json is shared with others: never with a password in it.
  const target = hooks.target ?? uriTarget(options.uri);
  const report: SuiteReport = {
    schema: 'mongo-bench/perf-suite@1',
    uri: redactUri(target.uri),
    outcomes: [],
  };
  const reportPath = join(options.outDir, SUITE_FILE);
  for (const path of options.files) {
    const file = loadMongoPerfFile(path);
    for (const test of selectTests(file.tests, options)) {
      if (hooks.signal?.aborted) break;
      const base = { file: path, test: test.name, tags: test.tags };
      const prepared = prepareMongoPerfTest(file, test, options);
      let outcome: TestOutcome;
      if ('unsupported' in prepared) {
        outcome = {
          ...base,
          status: 'unsupported',
          reason: prepared.unsupported,
          noResults: 'not run: unsupported (see reason)',
        };
      } else {
        const started = Date.now();
        try {
          const result = await runBenchmark(prepared, {
            signal: hooks.signal,
            target,
            onEvent: (e) => hooks.onEvent?.(test.name, e),
          });
          if (result.target.testDouble) report.testDouble = true;
          outcome = { ...base, ...summarize(result), ...resultsFile(prepared.outDir!, started) };
        } catch (err) {
          outcome = {
            ...base,
            status: 'failed',
            reason: messageOf(err),
            ...resultsFile(prepared.outDir!, started),
          };
        }
      }
      report.outcomes.push(outcome);
      hooks.onTest?.(outcome);
      await writeJsonAtomically(reportPath, report);
    }
  }
  return report;
}
