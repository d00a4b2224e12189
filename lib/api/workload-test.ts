/**
 * Helpers for a performance test in jest (or any runner): load your documents, run your ops for a
 * few seconds, and fail when the result is significantly slower than a committed baseline.
 * They save the code every such test would repeat; nothing in them depends on jest.
 */
import { existsSync } from 'node:fs';
import { Document, IndexSpecification, CreateIndexesOptions, MongoClientOptions } from 'mongodb';
import { UsageError } from '../config/errors';
import { writeJsonAtomically } from '../common/atomic-write';
import { ResultDocument } from '../result';
import { Comparison } from '../compare';
import { resultTrend } from '../compare/trend-check';
import { renderComparisonText } from '../compare/render-text';
import { parseNamespace } from '../workload/language/op-spec';
import { BenchmarkEvent } from '../run/events';
import { benchmarkOptions } from './benchmark';
import { runBenchmark } from '../run/benchmark';
import { runWritePlan, RunWritePlan } from '../run/options/run-write-plan';
import { checkRunWrites } from '../run/write-check';
import type { Consent } from '../server/write-plan';
import { compare, readResult } from './results';
import { serverDifference } from './baseline-server';
import { Target, uriTarget } from '../server/target';
import { dropCollection, guardPolicy } from '../server/data-guard';
import { RUN_DEFAULTS } from '../run/options/run-options';

export interface WorkloadBenchmarkInput {
  /** The deployment: e.g. `(await MongoMemoryServer.create()).getUri()`. */
  uri: string;
  /** Where the documents go, and the namespace of ops without `ns` (default "mongo_bench_test.docs"). */
  ns?: string;
  /**
   * Your documents; the collection is dropped and refilled with them first (only when it is absent, empty
   * or filled by mongo-bench, unless `drop: true`). Omit to keep what is there.
   */
  documents?: Document[];
  /** Replace the collection even when it holds documents mongo-bench did not load (lib/server/data-guard). */
  drop?: boolean;
  /**
   * Let the ops write into a collection that holds documents mongo-bench did not load (the CLI's
   * `--no-load`). Without it such a write op is refused before anything is written: a performance test
   * pointed at a shared server must not change its data by accident.
   */
  writeExisting?: boolean;
  /** Indexes to create after loading, e.g. [{ key: { email: 1 }, options: { unique: true } }]. */
  indexes?: Array<{ key: IndexSpecification; options?: CreateIndexesOptions }>;
  /** Your ops, in benchRun's format (the same as a --workload-file). */
  ops: unknown[];
  /** Name of the workload in the result (default "custom"). */
  name?: string;
  /** Measured seconds per trial and client count (default 2). */
  seconds?: number;
  /** Client counts (default [1, 4]). */
  clients?: number[];
  /**
   * Warm-up before each trial: 'auto' (the default: until the last 10 one-second rates are level, at most
   * `warmupMax` seconds; a cold server is warmed before it is measured) or seconds.
   */
  warmup?: number | 'auto';
  /** With warmup 'auto': the most seconds a trial warms up (default 15); a warm-up that hits it leaves the run not steady. */
  warmupMax?: number;
  /**
   * Trials per client count, each with its own warm-up (default 5): the trials are what a comparison
   * tests (one run each cannot be told from run-to-run variation; 4 or more per side can reach p < 0.05).
   */
  trials?: number;
  seed?: number;
  clientOptions?: MongoClientOptions;
  signal?: AbortSignal;
  onEvent?: (event: BenchmarkEvent) => void;
  /**
   * The baseline file expectNoRegression will compare with. When it exists, the server is checked
   * against the baseline's before anything is loaded or measured: another product, version or a
   * test double instead of MongoDB (or the reverse) throws a UsageError at once.
   */
  baseline?: string;
  /**
   * A missing `baseline` fails at once, before anything is loaded or measured, as expectNoRegression
   * would fail after the run (default: when env CI is set; re-recording, MONGO_BENCH_UPDATE_BASELINE=1, records it).
   */
  ci?: boolean;
}

export const WORKLOAD_TEST_DEFAULTS = {
  ns: 'mongo_bench_test.docs',
  seconds: 2,
  clients: [1, 4],
  warmup: 'auto',
  warmupMax: 15,
  trials: 5,
} as const;

async function loadDocuments(
  target: Target,
  input: WorkloadBenchmarkInput,
  ns: string,
): Promise<void> {
  const parsed = parseNamespace(ns, false);
  if (!parsed) throw new UsageError(`option ns: expected "database.collection", got "${ns}"`);
  await target.withClient(async (client) => {
    await client.connect();
    const collection = client.db(parsed.db).collection(parsed.coll);
    await dropCollection(
      client,
      parsed.db,
      parsed.coll,
      guardPolicy(target.origin, input.drop === true, 'drop: true'),
      { claim: true },
    );
    const docs = input.documents ?? [];
    for (let i = 0; i < docs.length; i += 1000) {
      // Copies: insertMany adds an _id to documents that have none, and the caller's stay untouched.
      await collection.insertMany(
        docs.slice(i, i + 1000).map((d) => ({ ...d })),
        { ordered: true },
      );
    }
    for (const index of input.indexes ?? [])
      await collection.createIndex(index.key, index.options ?? {});
  });
}

function updatingBaseline(option?: boolean): boolean {
  return option ?? process.env.MONGO_BENCH_UPDATE_BASELINE === '1';
}

function refuseOtherServer(baselinePath: string, difference: string): never {
  throw new UsageError(
    `baseline ${baselinePath}: ${difference}. A baseline only means something on the server it was recorded on: ` +
      'run against that server, or re-record the baseline here (MONGO_BENCH_UPDATE_BASELINE=1, or update: true)',
  );
}

/** In CI (option `ci`, else env CI) a missing baseline is an error, not recorded: CI would record it and throw it away. */
function refuseMissingBaseline(baselinePath: string, ci: boolean | undefined): void {
  if (ci ?? Boolean(process.env.CI))
    throw new UsageError(
      `no baseline at ${baselinePath}: record it outside CI (the first run writes it), and commit it`,
    );
}

/** Connects once (no load, no measurement) to compare the server with the baseline's. */
async function assertSameServer(server: Target, baselinePath: string): Promise<void> {
  const baseline = await readResult(baselinePath);
  // The benchmark's own connection step: an unreachable server fails here as it would there (RunError, naming the hosts).
  const target = await server.describe({
    serverSelectionTimeoutMS: RUN_DEFAULTS.serverSelectionTimeout,
  });
  const difference = serverDifference(baseline.target, target);
  if (difference) refuseOtherServer(baselinePath, difference);
}

/** Loads `documents` (when given), then runs `ops` at each client count: the result document. */
export async function benchmarkWorkload(input: WorkloadBenchmarkInput): Promise<ResultDocument> {
  const ns = input.ns ?? WORKLOAD_TEST_DEFAULTS.ns;
  const target = uriTarget(input.uri, input.clientOptions);
  if (input.baseline !== undefined && !updatingBaseline()) {
    // In CI a missing baseline fails the test anyway (expectNoRegression): say so before the whole benchmark runs.
    if (!existsSync(input.baseline)) refuseMissingBaseline(input.baseline, input.ci);
    else await assertSameServer(target, input.baseline);
  }
  const options = benchmarkOptions({
    uri: input.uri,
    ops: input.ops,
    workloadName: input.name,
    ns,
    load: false,
    docs: Math.max(1, input.documents?.length ?? 1),
    clients: input.clients ?? [...WORKLOAD_TEST_DEFAULTS.clients],
    seconds: input.seconds ?? WORKLOAD_TEST_DEFAULTS.seconds,
    warmup: input.warmup ?? WORKLOAD_TEST_DEFAULTS.warmup,
    ...((input.warmup ?? WORKLOAD_TEST_DEFAULTS.warmup) === 'auto'
      ? { warmupMax: input.warmupMax ?? WORKLOAD_TEST_DEFAULTS.warmupMax }
      : {}),
    trials: input.trials ?? WORKLOAD_TEST_DEFAULTS.trials,
    seed: input.seed,
  });
  const loads = input.documents !== undefined || input.indexes !== undefined;
  const writePlan = helperWritePlan(runWritePlan(options, target.origin), input, ns, loads);
  // The whole plan is checked before the helper's own load writes anything.
  await target.withClient(async (client) => {
    await client.connect();
    await checkRunWrites(client, writePlan, {
      consentNames: { '--drop': 'drop: true', '--no-load': 'writeExisting: true' },
    });
  });
  if (loads) await loadDocuments(target, input, ns);
  return runBenchmark(
    { ...options, uri: target.uri },
    {
      signal: input.signal,
      onEvent: input.onEvent,
      target,
      writePlan,
      ...(loads ? { createdByRun: new Set([ns]) } : {}),
    },
  );
}

/**
 * The helper's plan: the run's (its ops' writes), plus its own load of `documents` into `ns`. `load: false`
 * is the helper's doing, not the user's consent: the ops write existing data only with `writeExisting`.
 */
function helperWritePlan(
  plan: RunWritePlan,
  input: WorkloadBenchmarkInput,
  ns: string,
  loads: boolean,
): RunWritePlan {
  const consents = new Set<Consent>(plan.consents);
  if (input.writeExisting !== true) consents.delete('--no-load');
  if (input.drop === true) consents.add('--drop');
  const [db, coll] = [ns.slice(0, ns.indexOf('.')), ns.slice(ns.indexOf('.') + 1)];
  const docs = input.documents?.length ?? 0;
  const load = {
    kind: 'namespace' as const,
    db,
    coll,
    action: 'recreate' as const,
    source: 'helper' as const,
    detail: `${docs} document${docs === 1 ? '' : 's'}${input.indexes ? ' and their indexes' : ''}`,
    consent: '--drop' as const,
  };
  return { ...plan, consents, entries: loads ? [load, ...plan.entries] : plan.entries };
}

export interface NoRegressionOptions {
  /** Percent: a significant ops/s drop beyond this fails (default 5). */
  threshold?: number;
  noise?: number;
  alpha?: number;
  /** Overwrite the baseline with this result (default: env MONGO_BENCH_UPDATE_BASELINE=1). */
  update?: boolean;
  /** A missing baseline fails instead of being recorded (default: when env CI is set, as jest's --ci does for snapshots). */
  ci?: boolean;
  /** Also write compare.md, compare.json and the chart there. */
  out?: string;
  /** Where the line saying a baseline was recorded goes (default console.log, which jest shows). */
  log?: (line: string) => void;
}

export type NoRegressionOutcome =
  { status: 'baseline-written'; path: string } | { status: 'compared'; comparison: Comparison };

/** Thrown by expectNoRegression: the message is the comparison table. */
export class RegressionError extends Error {
  constructor(readonly comparison: Comparison) {
    super(`performance regression against the baseline:\n${renderComparisonText(comparison)}`);
    this.name = 'RegressionError';
  }
}

/** Thrown by expectNoRegression when no client count could be tested (too few trials on a side). */
export class NotComparedError extends Error {
  constructor(readonly comparison: Comparison) {
    super(
      `not compared with the baseline (record both with 5 trials, the default of benchmarkWorkload):\n${renderComparisonText(comparison)}`,
    );
    this.name = 'NotComparedError';
  }
}

/**
 * Thrown by expectNoRegression when the trials of a side trend (a server still warming up, a machine
 * getting busier): a verdict would compare moments, not code. Also thrown instead of recording a
 * baseline from such a run. Not a regression: warm the server up (or run longer) and run again.
 */
export class NotSteadyError extends Error {
  constructor(
    readonly reason: string,
    readonly comparison?: Comparison,
  ) {
    super(`not steady: ${reason}${comparison ? `\n${renderComparisonText(comparison)}` : ''}`);
    this.name = 'NotSteadyError';
  }
}

/** What a NotSteadyError tells to change: benchmarkWorkload's options, by name. */
const STEADY_ADVICE = `give benchmarkWorkload a longer fixed warmup (seconds before each trial, e.g. warmup: 5) or, with warmup: 'auto', a higher warmupMax (default ${WORKLOAD_TEST_DEFAULTS.warmupMax} s), or warm the server up before the test, and run again`;

/** A step whose warm-up hit its cap before steady state, or that carries a not-steady warning. */
function unsteadyStep(result: ResultDocument): string | undefined {
  for (const step of result.steps) {
    const at = `at ${step.clients} client${step.clients === 1 ? '' : 's'}`;
    if (step.warmup?.steady === false)
      return `${at}, the warm-up reached its cap (${step.warmup.seconds} s) before the rate was level`;
    const warning = step.warnings?.find((w) => w.code === 'not-steady');
    if (warning) return `${at}, ${warning.message}`;
  }
  return undefined;
}

function describeSteps(result: ResultDocument): string {
  return (
    result.steps
      .map(
        (s) =>
          `${s.clients} client${s.clients === 1 ? '' : 's'}: ${Math.round(s.opsPerSec.total)} ops/s`,
      )
      .join(', ') || 'no steps'
  );
}

/**
 * Compares `result` with the baseline file (A = baseline, B = result) and throws a RegressionError
 * when some client count is significantly slower by more than the threshold, a NotSteadyError when a
 * side's trials (or a trial's seconds) trend, a NotComparedError
 * when no client count could be tested (a side with too few trials). A missing baseline is
 * recorded from `result` (commit it), unless `ci`; `update` re-records it.
 */
export async function expectNoRegression(
  result: ResultDocument,
  baselinePath: string,
  options: NoRegressionOptions = {},
): Promise<NoRegressionOutcome> {
  const update = updatingBaseline(options.update);
  if (update || !existsSync(baselinePath)) {
    if (!update) refuseMissingBaseline(baselinePath, options.ci);
    if (!result.complete)
      throw new UsageError(
        `not recording an incomplete result as the baseline ${baselinePath}: ${result.incompleteReason ?? 'incomplete'}`,
      );
    // A baseline recorded on a server still warming up makes every later comparison wrong.
    const trend = resultTrend(result.steps) ?? unsteadyStep(result);
    if (trend)
      throw new NotSteadyError(
        `not recording the baseline ${baselinePath} from this run: ${trend}; ${STEADY_ADVICE}`,
      );
    await writeJsonAtomically(baselinePath, result);
    const log = options.log ?? ((line: string) => console.log(line));
    log(
      `mongo-bench: ${update ? 're-recorded' : 'no baseline yet: recorded'} ${baselinePath} from this run (${describeSteps(result)}); commit it. Later runs compare with it.`,
    );
    return { status: 'baseline-written', path: baselinePath };
  }
  const baseline = await readResult(baselinePath);
  const difference = serverDifference(baseline.target, result.target);
  if (difference) refuseOtherServer(baselinePath, difference);
  const comparison = await compare(baselinePath, result, options);
  if (comparison.regression) throw new RegressionError(comparison);
  const unsteady = comparison.steps.find((s) => s.note?.startsWith('not steady: '));
  if (unsteady)
    throw new NotSteadyError(
      `at ${unsteady.clients} client${unsteady.clients === 1 ? '' : 's'}, ${unsteady.note?.slice('not steady: '.length) ?? ''} (A is the baseline, B this run); ${STEADY_ADVICE}`,
      comparison,
    );
  // Nothing could be tested (e.g. a baseline of one trial): that is no pass.
  if (comparison.outcome === 'not compared') throw new NotComparedError(comparison);
  return { status: 'compared', comparison };
}
