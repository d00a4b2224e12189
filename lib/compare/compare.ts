/**
 * compareResults: two result documents in (A the baseline, B the candidate), a plain comparison out.
 * Per client count: the ratios B/A of ops/s and of the p50/p99 latencies, and a verdict on
 * throughput from the Mann-Whitney U test on the per-second rates of both steps (every trial's
 * seconds pooled). Latency ratios are shown, not tested: result@1 keeps latency histograms'
 * percentiles, not per-second latency samples to test them with.
 */
import { UsageError } from '../config/errors';
import { LatencySummary, ResultDocument, StepResult } from '../metrics/result';
import { mannWhitneyU } from './mann-whitney';

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
}

export type Verdict = 'faster' | 'slower' | 'no difference beyond noise' | 'not compared';

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
  /** Per-second samples each side contributed to the test. */
  samples: { a: number; b: number };
  /** Two-sided p-value of the test; null when not compared. */
  pValue: number | null;
  method: string | null;
  verdict: Verdict;
  /** A significant slowdown beyond the threshold. */
  regression: boolean;
  /** Why it was not compared, or a qualification of the verdict. */
  note?: string;
}

export interface Comparison {
  schema: 'mongo-bench/compare@1';
  a: { label: string; file?: string; server: string; complete: boolean };
  b: { label: string; file?: string; server: string; complete: boolean };
  testDouble: boolean;
  threshold: number;
  alpha: number;
  noise: number;
  /** The statistical method, in words. */
  method: string;
  steps: StepComparison[];
  /** Some client count regressed: the CI gate. */
  regression: boolean;
  /** Differences in what was run (workload, document size), worth knowing when reading the ratios. */
  notes: string[];
}

export const METHOD_DESCRIPTION =
  'Mann-Whitney U test on the per-second rates (reads + writes) of each step, trials pooled, two-sided; exact p when there are no ties and few samples, else the normal approximation with tie and continuity corrections';

function server(result: ResultDocument): string {
  const version = result.target.serverVersion ?? 'version unknown';
  return result.target.testDouble ? `test double (reports ${version}), not MongoDB` : `MongoDB ${version}`;
}

/** The per-second total rates of a step (each trial's seconds). */
export function perSecondRates(step: StepResult): number[] {
  return step.perSecond.map((s) => s.reads + s.writes);
}

function ratio(b: number | undefined, a: number | undefined): number | null {
  if (a === undefined || b === undefined || !(a > 0) || !Number.isFinite(b)) return null;
  return b / a;
}

function latencyRatios(a: LatencySummary | undefined, b: LatencySummary | undefined): LatencyRatios {
  if (!a || !b || a.count === 0 || b.count === 0) return { p50: null, p99: null };
  return { p50: ratio(b.p50, a.p50), p99: ratio(b.p99, a.p99) };
}

function checkOption(name: string, value: number, min: number, max: number): void {
  if (!Number.isFinite(value) || value < min || value > max) throw new UsageError(`option --${name}: must be a number from ${min} to ${max}, got ${value}`);
}

/** Refuses a test-double result against a MongoDB one: their ratio would mean nothing. */
function assertComparable(a: ResultDocument, b: ResultDocument, names: { a: string; b: string }): void {
  const aDouble = a.target.testDouble === true;
  const bDouble = b.target.testDouble === true;
  if (aDouble !== bDouble) {
    const [double, real] = aDouble ? [names.a, names.b] : [names.b, names.a];
    throw new UsageError(
      `cannot compare ${double} with ${real}: ${double} was measured on a test double (target.testDouble: true, not MongoDB) and ${real} on MongoDB; ` +
        'a test double\'s numbers say nothing about MongoDB, so their ratio would be meaningless. Compare results from the same kind of server',
    );
  }
}

/** The smallest two-sided p the test can give for these sample sizes: 2 / C(m+n, m) (complete separation). */
export function smallestPossibleP(m: number, n: number): number {
  let combinations = 1;
  for (let i = 1; i <= m; i++) combinations = (combinations * (n + i)) / i;
  return Math.min(1, 2 / combinations);
}

function compareStep(clients: number, a: StepResult | undefined, b: StepResult | undefined, o: Required<CompareOptions>): StepComparison {
  const base: StepComparison = {
    clients,
    opsPerSecA: a?.opsPerSec.total ?? null,
    opsPerSecB: b?.opsPerSec.total ?? null,
    opsRatio: ratio(b?.opsPerSec.total, a?.opsPerSec.total),
    latencyRatio: {
      reads: latencyRatios(a?.latencyMicros.reads, b?.latencyMicros.reads),
      writes: latencyRatios(a?.latencyMicros.writes, b?.latencyMicros.writes),
    },
    samples: { a: a?.perSecond.length ?? 0, b: b?.perSecond.length ?? 0 },
    pValue: null,
    method: null,
    verdict: 'not compared',
    regression: false,
  };
  if (!a || !b) return { ...base, note: `no step with ${clients} clients in ${a ? 'B' : 'A'}` };
  const failed = [a.status && a.status !== 'ok' ? `A's step ${a.status}` : '', b.status && b.status !== 'ok' ? `B's step ${b.status}` : ''].filter(Boolean);
  if (failed.length > 0) return { ...base, note: failed.join(', ') };
  const x = perSecondRates(a);
  const y = perSecondRates(b);
  if (x.length < 2 || y.length < 2) return { ...base, note: 'too few per-second samples to test (at least 2 on each side; run longer steps)' };
  const floor = smallestPossibleP(x.length, y.length);
  if (floor >= o.alpha) {
    return { ...base, note: `${x.length} and ${y.length} per-second samples cannot reach p < ${o.alpha} (the smallest possible p is ${floor.toPrecision(2)}): measure more seconds per step (5 or more)` };
  }
  const test = mannWhitneyU(x, y);
  const change = base.opsRatio === null ? 0 : base.opsRatio - 1;
  const significant = test.pValue < o.alpha;
  let verdict: Verdict = 'no difference beyond noise';
  let note: string | undefined;
  if (significant && Math.abs(change) * 100 >= o.noise) verdict = change < 0 ? 'slower' : 'faster';
  else if (significant) note = `significant, but within the ${o.noise}% noise threshold`;
  const regression = verdict === 'slower' && -change * 100 > o.threshold;
  if (verdict === 'slower' && !regression) note = `within the ${o.threshold}% regression threshold`;
  return { ...base, pValue: test.pValue, method: `Mann-Whitney U, ${test.method}`, verdict, regression, ...(note ? { note } : {}) };
}

/**
 * Compares B against A per client count. `files` only names the inputs in messages. Throws a
 * UsageError (exit 2) for a test double against MongoDB, or for options out of range.
 */
export function compareResults(a: ResultDocument, b: ResultDocument, options: CompareOptions = {}, files: { a?: string; b?: string } = {}): Comparison {
  const o: Required<CompareOptions> = {
    threshold: options.threshold ?? COMPARE_DEFAULTS.threshold,
    alpha: options.alpha ?? COMPARE_DEFAULTS.alpha,
    noise: options.noise ?? COMPARE_DEFAULTS.noise,
  };
  checkOption('threshold', o.threshold, 0, 100);
  checkOption('alpha', o.alpha, 1e-6, 0.5);
  checkOption('noise', o.noise, 0, 100);
  assertComparable(a, b, { a: files.a ? `A (${files.a})` : 'A', b: files.b ? `B (${files.b})` : 'B' });

  const counts = [...new Set([...a.steps, ...b.steps].map((s) => s.clients))].sort((p, q) => p - q);
  const steps = counts.map((c) => compareStep(c, a.steps.find((s) => s.clients === c), b.steps.find((s) => s.clients === c), o));
  const notes: string[] = [];
  if (a.workload.name !== b.workload.name) notes.push(`different workloads: A ran "${a.workload.name}", B ran "${b.workload.name}"`);
  else if (JSON.stringify(a.workload.ops) !== JSON.stringify(b.workload.ops)) notes.push(`the workloads share the name "${a.workload.name}" but not the same ops`);
  if (a.workload.docSize !== b.workload.docSize) notes.push(`different document sizes: A ${a.workload.docSize ?? '?'} bytes, B ${b.workload.docSize ?? '?'} bytes`);
  if (!a.complete) notes.push(`A is incomplete${a.incompleteReason ? `: ${a.incompleteReason}` : ''}`);
  if (!b.complete) notes.push(`B is incomplete${b.incompleteReason ? `: ${b.incompleteReason}` : ''}`);
  const testDouble = a.target.testDouble === true;
  if (testDouble) notes.push('both results come from a TEST DOUBLE server: these are not MongoDB numbers');
  return {
    schema: 'mongo-bench/compare@1',
    a: { label: a.label, ...(files.a ? { file: files.a } : {}), server: server(a), complete: a.complete },
    b: { label: b.label, ...(files.b ? { file: files.b } : {}), server: server(b), complete: b.complete },
    testDouble,
    threshold: o.threshold,
    alpha: o.alpha,
    noise: o.noise,
    method: METHOD_DESCRIPTION,
    steps,
    regression: steps.some((s) => s.regression),
    notes,
  };
}
