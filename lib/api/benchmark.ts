/**
 * Benchmarking from code: options (the run command's flags, camelCase) or a config file in, the
 * result document out. Nothing is written unless `out` is given, and the run is stopped by an
 * AbortSignal (the result comes back with complete: false). Progress leaves as events.
 */
import { MongoClientOptions } from 'mongodb';
import { z } from 'zod';
import { placeInFile, readConfigFile } from '../config/config-file';
import { apiNamer, checkApiKeys, withOptionPlaces } from '../config/error-place';
import { UsageError } from '../config/errors';
import {
  BenchmarkFlags,
  benchmarkShape,
  resolveRunOptions,
  RunOptions,
} from '../run/options/run-options';
import { ResultDocument } from '../result';
import { runBenchmark } from '../run/benchmark';
import { BenchmarkEvent } from '../run/events';
import { Target, uriTarget } from '../server/target';
import { keepClusterState } from '../run/cluster-restore';
import { runWritePlan } from '../run/options/run-write-plan';

/** What to benchmark: the deployment, and the same options as `mongo-bench run` (camelCase). */
export interface BenchmarkInput extends BenchmarkFlags {
  /** The deployment, e.g. mongodb://127.0.0.1:27017 or a MongoMemoryServer's getUri(). */
  uri: string;
  /** Your own ops (benchRun format) instead of a preset `workload`; validated before anything connects. */
  ops?: unknown[];
  /** Name of `ops` in the result (default "custom"). */
  workloadName?: string;
}

export interface BenchmarkControl {
  /** Abort to stop: clients finish their in-flight op; the result has complete: false. */
  signal?: AbortSignal;
  /** connected, load-start/-progress/-done, step-start, tick (each second), step-done, results-written. */
  onEvent?: (event: BenchmarkEvent) => void;
  /** After every step, with the result so far. */
  onStepComplete?: (resultSoFar: ResultDocument) => void | Promise<void>;
  /** Credentials and TLS for the benchmark's connections (never put a password in the URI you log). */
  clientOptions?: MongoClientOptions;
  /** The server as a Target (uriTarget(uri, clientOptions)); when given, its uri and client options are used. */
  target?: Target;
}

/** Resolves and validates the options (defaults applied) without connecting: what benchmark() will run. */
export function benchmarkOptions(input: BenchmarkInput): RunOptions {
  checkApiKeys(input, INPUT_KEYS);
  // The checks are shared with the CLI and name its flags (option --max-clients): here, the API's keys.
  return withOptionPlaces(() => resolveInput(input), apiNamer);
}

/** Every key a BenchmarkInput may have. */
const INPUT_KEYS: readonly string[] = [
  'uri',
  'ops',
  'workloadName',
  'out',
  ...Object.keys(benchmarkShape),
];

function resolveInput(input: BenchmarkInput): RunOptions {
  const { ops, workloadName, out, ...flags } = input;
  if (ops !== undefined && (flags.workload !== undefined || flags.workloadFile !== undefined)) {
    throw new UsageError(
      'option ops: cannot be combined with workload or workloadFile: give your ops, a preset, or a file',
    );
  }
  if (ops !== undefined && !Array.isArray(ops))
    throw new UsageError('option ops: expected an array of benchRun ops');
  if (ops !== undefined && flags.scenarios !== undefined)
    throw new UsageError(
      'option ops: cannot be combined with scenarios: each scenario gives its own ops',
    );
  const options = resolveRunOptions(flags);
  const name = workloadName ?? 'custom';
  return {
    ...options,
    ...(ops !== undefined ? { workload: { name, ops }, label: flags.label ?? name } : {}),
    outDir: out,
  };
}

/** Runs the sweep and returns the result document (mongo-bench/result@1). */
export async function benchmark(
  input: BenchmarkInput,
  control: BenchmarkControl = {},
): Promise<ResultDocument> {
  const { clientOptions, target, ...hooks } = control;
  const options = benchmarkOptions(input);
  const server = target ?? uriTarget(options.uri, clientOptions);
  // What its scenarios' events change on a cluster mongo-bench did not start (the balancer): read
  // first, set back at the end, also when it fails or is stopped (lib/run/cluster-restore.ts).
  const cluster = await keepClusterState(
    server,
    runWritePlan(options, server.origin),
    { note: (text) => hooks.onEvent?.({ type: 'cluster', text }) },
    { serverSelectionTimeoutMS: options.serverSelectionTimeoutMS },
  );
  try {
    return await runBenchmark({ ...options, uri: server.uri }, { ...hooks, target: server });
  } finally {
    await cluster?.restore();
  }
}

const configShape = { ...benchmarkShape, uri: z.string().min(1, 'must not be empty').optional() };

/** Reads a JSON or YAML config file (the keys of `mongo-bench run --config`, benchmark part) as a BenchmarkInput. */
export function readBenchmarkConfig(
  file: string,
  overrides: Partial<BenchmarkInput> = {},
): BenchmarkInput {
  const read = readConfigFile(file, configShape);
  const merged: Partial<BenchmarkInput> = { ...read.values, ...overrides };
  if (merged.uri === undefined)
    throw new UsageError(
      `config ${file}: uri: required (the deployment to benchmark), in the file or as an override`,
    );
  // Checked now, while the file's lines are known: an error names the file and line (or the override's key).
  checkApiKeys(overrides, INPUT_KEYS);
  withOptionPlaces(
    () => resolveInput(merged as BenchmarkInput),
    (key, path) => (key in overrides ? undefined : placeInFile(read, key, path)) ?? apiNamer(key),
  );
  return merged as BenchmarkInput;
}
