/**
 * compareResults: result documents in (A the baseline, B the candidate; one or several files per
 * side), a plain comparison out. Per client count: the ratios B/A of ops/s and of the p50/p99
 * latencies, and a verdict on throughput from the Mann-Whitney U test on the replicates' ops/s: each
 * trial of each file is one replicate (it has its own warm-up). The seconds of one run are not
 * replicates: they are autocorrelated, and two runs of one configuration differ by more than their
 * seconds suggest, so one run per side gives a ratio and no verdict ("not compared").
 * Latency ratios are shown, not tested.
 */
import { UsageError } from '../config/errors';
import { LatencySummary, ResultDocument, StepResult, perSecondRate } from '../result';
import { mannWhitneyU } from './mann-whitney';
import {
  markedServerLabel,
  notMongoDBWarning,
  serverLabel,
  ServerFacts,
  targetIsNotMongoDB,
  TEST_DOUBLE_WARNING,
} from '../report/describe';
import { serverDifferences } from './server-differences';
import { minDetectableChange } from './power';
import { roundRatioTrend, sideTrend } from './trend-check';
import { wilcoxonSignedRank } from './wilcoxon';
import { counted } from '../common/values';

/** Rounds a paired test needs: with 5 pairs the smallest two-sided p is 0.0625. */
export const PAIRED_MIN_ROUNDS = 6;

export const COMPARE_DEFAULTS = {
  /** Percent: a significant slowdown larger than this is a regression (exit 1). */
  threshold: 5,
  /** Significance level of the two-sided test. */
  alpha: 0.05,
  /** Percent: significant changes smaller than this are reported as noise (Criterion.rs's noise_threshold). */
  noise: 2,
} as const;

export interface CompareOptions {
  threshold?: number;
  alpha?: number;
  noise?: number;
  /**
   * The sides' trials were interleaved in rounds (compare --run): the i-th trial of A and of B ran in
   * one round. A drift shared by both is cancelled; the per-round ratio is tested for a trend instead
   * of each side's trials.
   */
  interleaved?: boolean;
  /**
   * Interleaved results only, 6 rounds or more: the Wilcoxon signed-rank test on the per-round log
   * ratios ln(B/A) instead of Mann-Whitney on the trials (5 pairs cannot reach p < 0.0625).
   */
  paired?: boolean;
}

export type Verdict = 'faster' | 'slower' | 'no difference beyond noise' | 'not compared';

/** What a comparison as a whole says: the CLI's exit code follows it (0, 1, 3). */
export type Outcome = 'no regression' | 'regression' | 'not compared';

export interface LatencyRatios {
  p50: number | null;
  p99: number | null;
}

export interface StepComparison {
  clients: number;
  /** ops/s (total) of A and B; null where that result has no such step. */
  opsPerSecA: number | null;
  opsPerSecB: number | null;
  /** B / A of ops/s: above 1 is faster. */
  opsRatio: number | null;
  /** B / A of the latency percentiles: above 1 is slower. Null where either has no such ops. */
  latencyRatio: { reads: LatencyRatios; writes: LatencyRatios };
  /** Replicates (trials, over all files) each side contributed to the test. */
  samples: { a: number; b: number };
  /** The replicates' ops/s, A's and B's (what was tested). */
  replicates: { a: number[]; b: number[] };
  /** Two-sided p-value of the test; null when not compared. */
  pValue: number | null;
  method: string | null;
  verdict: Verdict;
  /** A significant slowdown beyond the threshold. */
  regression: boolean;
  /**
   * Percent: the slowdown the test would detect with 80% power for these numbers of replicates, from
   * the pooled observed spread (simulated), floored at --noise; null when no change is detectable.
   */
  minDetectablePercent?: number | null;
  /** minDetectablePercent in words ("changes smaller than 12% would be missed more than 1 time in 5 with 5+5 trials"). */
  detectable?: string;
  /** Why it was not compared, or a qualification of the verdict. */
  note?: string;
}

export interface Comparison {
  schema: 'mongo-bench/compare@1';
  a: { label: string; file?: string; server: string; complete: boolean };
  b: { label: string; file?: string; server: string; complete: boolean };
  /** Some side ran on a test double (a.server and b.server name each). */
  testDouble: boolean;
  threshold: number;
  alpha: number;
  noise: number;
  /** The statistical method, in words. */
  method: string;
  steps: StepComparison[];
  /** Some client count regressed: the CI gate. */
  regression: boolean;
  /** 'not compared' when no client count could be tested (e.g. one run each): never a silent pass. */
  outcome: Outcome;
  /** Differences in what was run (workload, document size), worth knowing when reading the ratios. */
  notes: string[];
  /** compare --run: how the trials were interleaved (per client count, each round's order, e.g. "BA"). */
  design?: {
    kind: string;
    seed: number;
    rounds: number;
    /** The unmeasured first round (the server's cold start), before the measured ones: e.g. "BA". */
    unmeasured?: { clients: number; order: string };
    order: { clients: number; rounds: string[] }[];
  };
  /** The red lines its chart carries: a side measured on another product than MongoDB, or on a test double (lib/report/describe.ts). */
  warnings: string[];
}

export const METHOD_DESCRIPTION =
  'Mann-Whitney U test (Mann & Whitney 1947), two-sided, on the ops/s of each replicate: every trial of every result file (each with its own warm-up) is one; exact p when there are no ties and few samples, else the normal approximation with tie and continuity corrections. Seconds of one run are not replicates';

/** Replicates a side needs so that the test can reach p < 0.05 against as many on the other: 4 + 4 (smallest p 0.029). */
export const REPLICATES_NEEDED = 4;

/** Each trial's ops/s of a step (trialStats when it ran several, else the step's own figure). */
export function replicateRates(step: StepResult): number[] {
  return step.trialStats?.opsPerSec.values ?? [step.opsPerSec.total];
}

/** The per-second total rates of a step (each trial's seconds). */
export function perSecondRates(step: StepResult): number[] {
  return step.perSecond.map((s) => perSecondRate(s, s.reads + s.writes));
}

function ratio(b: number | undefined, a: number | undefined): number | null {
  if (a === undefined || b === undefined || !(a > 0) || !Number.isFinite(b)) return null;
  return b / a;
}

function latencyRatios(
  a: LatencySummary | undefined,
  b: LatencySummary | undefined,
): LatencyRatios {
  if (!a || !b || a.count === 0 || b.count === 0) return { p50: null, p99: null };
  return { p50: ratio(b.p50, a.p50), p99: ratio(b.p99, a.p99) };
}

function checkOption(name: string, value: number, min: number, max: number): void {
  if (!Number.isFinite(value) || value < min || value > max)
    throw new UsageError(`option --${name}: must be a number from ${min} to ${max}, got ${value}`);
}

/**
 * Refuses a test double against MongoDB: the double's numbers say nothing about MongoDB, so their ratio
 * would mean nothing. Two servers that are both not MongoDB (a test double, FerretDB, the null server, an
 * unidentified server) are compared, each named. Takes the targets, so that compare --run can decide at
 * connect, before the first trial.
 */
export function assertComparableTargets(
  a: ServerFacts,
  b: ServerFacts,
  names: { a: string; b: string; verb?: string },
): void {
  const verb = names.verb ?? 'was measured on';
  const aDouble = a.testDouble === true;
  const bDouble = b.testDouble === true;
  if (aDouble === bDouble) return;
  const [double, real, realTarget] = aDouble ? [names.a, names.b, b] : [names.b, names.a, a];
  if (targetIsNotMongoDB(realTarget)) return;
  // The other side named as every summary names it: "MongoDB Community 7.0.14".
  throw new UsageError(
    `cannot compare ${double} with ${real}: ${double} ${verb} a test double (target.testDouble: true, not MongoDB) and ${real} ${verb} ${markedServerLabel(realTarget)}; ` +
      "a test double's numbers say nothing about MongoDB, so their ratio would be meaningless. Compare results from the same kind of server",
  );
}

/** The smallest two-sided p the test can give for these sample sizes: 2 / C(m+n, m) (complete separation). */
export function smallestPossibleP(m: number, n: number): number {
  let combinations = 1;
  for (let i = 1; i <= m; i++) combinations = (combinations * (n + i)) / i;
  return Math.min(1, 2 / combinations);
}

/** ops/s over several files' steps: total ops over total elapsed seconds (one file: its own figure). */
function pooledOpsPerSec(steps: StepResult[]): number | undefined {
  if (steps.length === 0) return undefined;
  if (steps.length === 1) return steps[0].opsPerSec.total;
  const elapsed = steps.reduce((s, x) => s + (x.elapsedSeconds ?? x.seconds * x.trials), 0);
  return elapsed > 0
    ? steps.reduce((s, x) => s + x.ops.reads + x.ops.writes, 0) / elapsed
    : undefined;
}

function pooledLatency(steps: StepResult[], kind: 'reads' | 'writes'): LatencySummary | undefined {
  // Percentiles cannot be merged from summaries: with several files, the first file's stand for the side.
  return steps[0]?.latencyMicros[kind];
}

function compareStep(
  clients: number,
  aSteps: StepResult[],
  bSteps: StepResult[],
  o: Required<CompareOptions>,
): StepComparison {
  const opsA = pooledOpsPerSec(aSteps);
  const opsB = pooledOpsPerSec(bSteps);
  const x = aSteps.flatMap(replicateRates);
  const y = bSteps.flatMap(replicateRates);
  const base: StepComparison = {
    clients,
    opsPerSecA: opsA ?? null,
    opsPerSecB: opsB ?? null,
    opsRatio: ratio(opsB, opsA),
    latencyRatio: {
      reads: latencyRatios(pooledLatency(aSteps, 'reads'), pooledLatency(bSteps, 'reads')),
      writes: latencyRatios(pooledLatency(aSteps, 'writes'), pooledLatency(bSteps, 'writes')),
    },
    samples: { a: x.length, b: y.length },
    replicates: { a: x, b: y },
    pValue: null,
    method: null,
    verdict: 'not compared',
    regression: false,
  };
  if (aSteps.length === 0 || bSteps.length === 0)
    return {
      ...base,
      note: `no step with ${counted(clients, 'client')} in ${aSteps.length > 0 ? 'B' : 'A'}`,
    };
  const failed = [
    aSteps.some((a) => a.status && a.status !== 'ok')
      ? `A's step ${aSteps.find((a) => a.status && a.status !== 'ok')?.status}`
      : '',
    bSteps.some((b) => b.status && b.status !== 'ok')
      ? `B's step ${bSteps.find((b) => b.status && b.status !== 'ok')?.status}`
      : '',
  ].filter(Boolean);
  if (failed.length > 0) return { ...base, note: failed.join(', ') };
  const detectable = minDetectableChange(x, y, { alpha: o.alpha, noise: o.noise });
  Object.assign(base, { minDetectablePercent: detectable.percent, detectable: detectable.text });
  if (x.length < 2 || y.length < 2) {
    const what =
      x.length === 1 && y.length === 1 ? 'one run each' : `${x.length} and ${y.length} runs`;
    return {
      ...base,
      note: `${what}: cannot tell this from run-to-run variation; run ${REPLICATES_NEEDED} or more trials per side (--trials ${REPLICATES_NEEDED + 1}) or give several result files per side`,
    };
  }
  const floor = smallestPossibleP(x.length, y.length);
  if (floor >= o.alpha) {
    return {
      ...base,
      note: `${x.length} and ${y.length} runs cannot reach p < ${o.alpha} (the smallest possible p is ${floor.toPrecision(2)}): run ${REPLICATES_NEEDED} or more trials per side`,
    };
  }
  const trend = o.interleaved
    ? roundRatioTrend(x, y)
    : (sideTrend('A', aSteps) ?? sideTrend('B', bSteps));
  // Interleaved, a drifting ratio that stays beyond the threshold on one side in every round says the
  // same at every moment measured: the drift changes the size, not the verdict.
  const everyRoundBeyond =
    o.interleaved &&
    x.length === y.length &&
    x.every((v) => v > 0) &&
    (y.every((v, i) => (1 - v / x[i]) * 100 > o.threshold) ||
      y.every((v, i) => (v / x[i] - 1) * 100 > o.threshold));
  if (trend && !everyRoundBeyond)
    return {
      ...base,
      note: `not steady: ${trend}; a verdict would compare moments, not configurations`,
    };
  const trendNote = trend
    ? `${trend}, but every round is beyond the ${o.threshold}% threshold on the same side`
    : undefined;
  const pairedOk =
    o.paired &&
    o.interleaved &&
    x.length === y.length &&
    x.length >= PAIRED_MIN_ROUNDS &&
    [...x, ...y].every((v) => v > 0);
  if (o.paired && !pairedOk) {
    return {
      ...base,
      note: `a paired test needs ${PAIRED_MIN_ROUNDS} or more interleaved rounds with ops on both sides (${x.length} and ${y.length} here; 5 pairs cannot reach p < 0.0625)`,
    };
  }
  const test = pairedOk
    ? {
        ...wilcoxonSignedRank(y.map((v, i) => Math.log(v / x[i]))),
        label: 'Wilcoxon signed-rank on the per-round ln(B/A)',
      }
    : { ...mannWhitneyU(x, y), label: 'Mann-Whitney U' };
  const change = base.opsRatio === null ? 0 : base.opsRatio - 1;
  const significant = test.pValue < o.alpha;
  let verdict: Verdict = 'no difference beyond noise';
  let note: string | undefined;
  if (significant && Math.abs(change) * 100 >= o.noise) verdict = change < 0 ? 'slower' : 'faster';
  else if (significant) note = `significant, but within the ${o.noise}% noise threshold`;
  const regression = verdict === 'slower' && -change * 100 > o.threshold;
  if (verdict === 'slower' && !regression) note = `within the ${o.threshold}% regression threshold`;
  const notes = [trendNote, note].filter((n): n is string => n !== undefined);
  return {
    ...base,
    pValue: test.pValue,
    method: `${test.label}, ${test.method}`,
    verdict,
    regression,
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}

/**
 * Compares B against A per client count. `files` only names the inputs in messages. Throws a
 * UsageError (exit 2) for a test double against MongoDB, or for options out of range.
 */
export function compareResults(
  aSide: ResultDocument | ResultDocument[],
  bSide: ResultDocument | ResultDocument[],
  options: CompareOptions = {},
  files: { a?: string; b?: string } = {},
): Comparison {
  const as = Array.isArray(aSide) ? aSide : [aSide];
  const bs = Array.isArray(bSide) ? bSide : [bSide];
  if (as.length === 0 || bs.length === 0)
    throw new UsageError('compare needs at least one result file on each side');
  const [a, b] = [as[0], bs[0]];
  const o: Required<CompareOptions> = {
    threshold: options.threshold ?? COMPARE_DEFAULTS.threshold,
    alpha: options.alpha ?? COMPARE_DEFAULTS.alpha,
    noise: options.noise ?? COMPARE_DEFAULTS.noise,
    interleaved: options.interleaved ?? false,
    paired: options.paired ?? false,
  };
  checkOption('threshold', o.threshold, 0, 100);
  checkOption('alpha', o.alpha, 1e-6, 0.5);
  checkOption('noise', o.noise, 0, 100);
  for (const x of as)
    for (const y of bs)
      assertComparableTargets(x.target, y.target, {
        a: files.a ? `A (${files.a})` : 'A',
        b: files.b ? `B (${files.b})` : 'B',
      });

  const all = [...as, ...bs];
  const counts = [...new Set(all.flatMap((r) => r.steps.map((s) => s.clients)))].sort(
    (p, q) => p - q,
  );
  const at = (side: ResultDocument[], c: number) =>
    side.flatMap((r) => r.steps.filter((s) => s.clients === c));
  const steps = counts.map((c) => compareStep(c, at(as, c), at(bs, c), o));
  const notes: string[] = [];
  if (a.workload.name !== b.workload.name)
    notes.push(`different workloads: A ran "${a.workload.name}", B ran "${b.workload.name}"`);
  else if (JSON.stringify(a.workload.ops) !== JSON.stringify(b.workload.ops))
    notes.push(`the workloads share the name "${a.workload.name}" but not the same ops`);
  if (a.workload.docSize !== b.workload.docSize)
    notes.push(
      `different document sizes: A ${a.workload.docSize ?? '?'} bytes, B ${b.workload.docSize ?? '?'} bytes`,
    );
  const incomplete = (side: ResultDocument[]) => side.find((r) => !r.complete);
  const incompleteA = incomplete(as);
  const incompleteB = incomplete(bs);
  if (incompleteA)
    notes.push(
      `A is incomplete${incompleteA.incompleteReason ? `: ${incompleteA.incompleteReason}` : ''}`,
    );
  if (incompleteB)
    notes.push(
      `B is incomplete${incompleteB.incompleteReason ? `: ${incompleteB.incompleteReason}` : ''}`,
    );
  if (as.length > 1 || bs.length > 1)
    notes.push(
      `${as.length} result file(s) for A, ${bs.length} for B: each trial of each file is one replicate`,
    );
  // The open model (a fixed arrival rate) times ops from their due time; the closed loop from their start.
  const openModel = (side: ResultDocument[]) =>
    side.some((r) => r.steps.some((s) => s.arrival !== undefined));
  if (openModel(as) !== openModel(bs)) {
    const [open, closed] = openModel(as) ? ['A', 'B'] : ['B', 'A'];
    notes.push(
      `${open} was measured in the open model (a fixed arrival rate: latency from each op's due time, queueing included) and ${closed} in the closed loop (clients wait for each reply): their latencies measure different things, and ${open}'s ops/s is set by its rate, so the ratios compare the models as much as the servers`,
    );
  }
  for (const difference of serverDifferences(a, b))
    notes.push(`A and B ran on different servers: ${difference}`);
  const doubleA = a.target.testDouble === true;
  const doubleB = b.target.testDouble === true;
  const testDouble = doubleA || doubleB;
  const regression = steps.some((s) => s.regression);
  // One side on a test double, the other on another server that is not MongoDB either: both named.
  const lonelyDouble =
    doubleA !== doubleB
      ? doubleA
        ? { side: 'A', other: 'B', on: a, otherOn: b }
        : { side: 'B', other: 'A', on: b, otherOn: a }
      : undefined;
  if (doubleA && doubleB)
    notes.push('both results come from a TEST DOUBLE server: these are not MongoDB numbers');
  else if (lonelyDouble)
    notes.push(
      `${lonelyDouble.side} ran on ${serverLabel(lonelyDouble.on)} and ${lonelyDouble.other} on ${markedServerLabel(lonelyDouble.otherOn.target)}: neither is MongoDB, so the ratios compare these two servers, never MongoDB`,
    );
  // Both sides on the one product: one line for both.
  const sameServer = serverLabel(a) === serverLabel(b);
  const sides = (
    sameServer ? [notMongoDBWarning(a)] : [notMongoDBWarning(a, 'A'), notMongoDBWarning(b, 'B')]
  ).filter((w): w is string => w !== undefined);
  notes.push(...sides);
  const warnings = [
    ...sides,
    ...(lonelyDouble
      ? [`TEST DOUBLE server: ${lonelyDouble.side}'s numbers are not MongoDB numbers`]
      : testDouble
        ? [TEST_DOUBLE_WARNING]
        : []),
  ];
  return {
    schema: 'mongo-bench/compare@1',
    a: {
      label: a.label,
      ...(files.a ? { file: files.a } : {}),
      server: serverLabel(a),
      complete: !incompleteA,
    },
    b: {
      label: b.label,
      ...(files.b ? { file: files.b } : {}),
      server: serverLabel(b),
      complete: !incompleteB,
    },
    testDouble,
    threshold: o.threshold,
    alpha: o.alpha,
    noise: o.noise,
    method: METHOD_DESCRIPTION,
    steps,
    regression,
    outcome: regression
      ? 'regression'
      : steps.some((s) => s.verdict !== 'not compared')
        ? 'no regression'
        : 'not compared',
    notes,
    warnings,
  };
}
