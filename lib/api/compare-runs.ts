/**
 * compareRuns: two run configurations measured in randomized interleaved trials (lib/run/interleave.ts)
 * and compared as `compare` compares two results: the same test (Mann-Whitney on the trials, valid
 * under the randomization), the smallest detectable change, and, instead of each side's trend, a
 * trend of the per-round ratio B/A. The configurations may differ in anything that does not change
 * what is measured (uri, write concern, workload, driver options); different client counts, seconds
 * or trials are refused (exit 2) naming the key, unless `clients` is given for both. A test double
 * against MongoDB is refused at connect, before the first trial (the same rule as compare's).
 */
import { join } from 'node:path';
import { UsageError } from '../config/errors';
import { Comparison, CompareOptions, compareResults, writeComparison } from '../compare';
import { assertComparableTargets } from '../compare/compare';
import { ResultDocument } from '../result';
import { compileRunWorkload } from '../run/options/run-workload';
import { InterleavedDesign, runInterleaved } from '../run/interleave';
import { RunOptions } from '../run/options/run-options';
import { BenchmarkControl, BenchmarkInput, benchmarkOptions } from './benchmark';
import { uriTarget } from '../server/target';

export interface CompareRunsOptions extends CompareOptions {
  /** Seed of the trials' order (default 1): the same seed gives the same order. */
  seed?: number;
  /** The client counts for both (overrides each configuration's own). */
  clients?: number[];
  /** Where A/results.json, B/results.json and the comparison go; nothing is written when absent. */
  out?: string;
  onEvent?: (
    side: 'A' | 'B',
    event: Parameters<NonNullable<BenchmarkControl['onEvent']>>[0],
  ) => void;
  signal?: AbortSignal;
}

export interface CompareRunsOutcome {
  comparison: Comparison;
  results: [ResultDocument, ResultDocument];
  design: InterleavedDesign;
  /** Files written (with `out`). */
  files: string[];
}

/** The keys that change what is measured: they must match (or `clients` is given). */
const MUST_MATCH = ['clients', 'seconds', 'trials'] as const;

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Resolves both configurations and refuses what would make their trials incomparable. */
export function compareRunsOptions(
  a: BenchmarkInput,
  b: BenchmarkInput,
  options: Pick<CompareRunsOptions, 'clients' | 'paired'> = {},
): [RunOptions, RunOptions] {
  const override = options.clients ? { clients: options.clients, maxClients: undefined } : {};
  const [ra, rb] = [
    benchmarkOptions({ ...a, ...override }),
    benchmarkOptions({ ...b, ...override }),
  ].map((o) => ({ ...o, outDir: undefined }));
  for (const key of MUST_MATCH) {
    if (!sameValue(ra[key], rb[key])) {
      throw new UsageError(
        `compare --run: ${key} differs: A has ${JSON.stringify(ra[key])}, B has ${JSON.stringify(rb[key])}; interleaved trials compare like with like` +
          (key === 'clients' ? ' (give --clients to run both at the same counts)' : ''),
      );
    }
  }
  if (options.paired && ra.trials < 6)
    throw new UsageError(
      `compare --run: --paired needs 6 or more rounds (trials), got ${ra.trials}: with 5 pairs the smallest two-sided p is 0.0625`,
    );
  if (ra.trials < 2)
    throw new UsageError(
      `compare --run: trials: ${ra.trials}: the rounds are the trials; give 5 or more (trials: 5)`,
    );
  if (ra.scenarios || rb.scenarios)
    throw new UsageError(
      'compare --run: scenarios: not supported (a scenario run has no trials to interleave)',
    );
  if (ra.arrival?.kind === 'shareOfMax' || rb.arrival?.kind === 'shareOfMax')
    throw new UsageError(
      'compare --run: rate: a share of the maximum probes first, outside the interleaved trials: give a rate in ops/s',
    );
  const sameData = ra.uri === rb.uri && ra.ns === rb.ns;
  if (sameData && (ra.docs !== rb.docs || ra.docSize !== rb.docSize || ra.load !== rb.load)) {
    throw new UsageError(
      `compare --run: A and B load different data into the same namespace ${ra.ns} on the same server: give one of them another ns`,
    );
  }
  // The loader once per side; again before every trial for a workload that writes (each trial starts from the same data).
  const writes = (o: RunOptions) => compileRunWorkload(o).ops.some((op) => op.opClass === 'write');
  return [ra, rb].map((o) => ({
    ...o,
    reset: writes(o) || o.reset === 'each-step' ? 'each-step' : 'once',
  })) as [RunOptions, RunOptions];
}

/** Runs A and B in randomized interleaved trials and compares them (see the module's comment). */
export async function compareRuns(
  a: BenchmarkInput,
  b: BenchmarkInput,
  options: CompareRunsOptions = {},
): Promise<CompareRunsOutcome> {
  const [ra, rb] = compareRunsOptions(a, b, options);
  const seed = options.seed ?? 1;
  const sides = [
    {
      options: { ...ra, ...(options.out ? { outDir: join(options.out, 'A') } : {}) },
      hooks: {
        target: uriTarget(ra.uri),
        signal: options.signal,
        onEvent: (e: Parameters<NonNullable<BenchmarkControl['onEvent']>>[0]) =>
          options.onEvent?.('A', e),
      },
    },
    {
      options: { ...rb, ...(options.out ? { outDir: join(options.out, 'B') } : {}) },
      hooks: {
        target: uriTarget(rb.uri),
        signal: options.signal,
        onEvent: (e: Parameters<NonNullable<BenchmarkControl['onEvent']>>[0]) =>
          options.onEvent?.('B', e),
      },
    },
  ];
  // Both servers are identified at connect: what they alone refuse is refused there, before any trial.
  const { results, design } = await runInterleaved(sides, seed, ([ta, tb]) =>
    assertComparableTargets(ta, tb, { a: 'A', b: 'B', verb: 'connected to' }),
  );
  const [resultA, resultB] = results;
  const comparison = compareResults(
    resultA,
    resultB,
    {
      threshold: options.threshold,
      alpha: options.alpha,
      noise: options.noise,
      interleaved: true,
      paired: options.paired,
    },
    options.out
      ? { a: join(options.out, 'A', 'results.json'), b: join(options.out, 'B', 'results.json') }
      : {},
  );
  comparison.design = {
    kind: design.kind,
    seed: design.seed,
    rounds: design.rounds,
    unmeasured: {
      clients: design.unmeasured.clients,
      order: design.unmeasured.order.map((i) => (i === 0 ? 'A' : 'B')).join(''),
    },
    order: design.order.map((o) => ({
      clients: o.clients,
      rounds: o.rounds.map((perm) => perm.map((i) => (i === 0 ? 'A' : 'B')).join('')),
    })),
  };
  comparison.notes.unshift(
    `A and B ran in ${design.rounds} rounds of randomized interleaved trials (seed ${seed}), after an unmeasured first round of both (${comparison.design.unmeasured?.order}, the server's cold start): each round ran each once, rounds in pairs of reversed order (AB then BA, or BA then AB, drawn per pair${design.rounds % 2 === 1 ? '; the odd last round drawn alone' : ''}), as recorded in design.order`,
  );
  const files = options.out
    ? (await writeComparison(comparison, options.out, [resultA, resultB])).files
    : [];
  return { comparison, results: [resultA, resultB], design, files };
}
