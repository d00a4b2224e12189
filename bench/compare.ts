/**
 * npm run bench:compare -- [--pairs 20] [--trials 5] [--seconds 1] [--warmup 0] [--clients 4]
 *                          [--delay-ms 9] [--slow-delay-ms 10] [--uri URI] [--interleaved-pairs N]
 *
 * Two designs, in one run, their pairs alternated so both see the same machine:
 * - sequential (below): whole runs one after another, each with its trials;
 * - interleaved (compareRuns, `compare --run`): per pair, A's and B's trials in randomized complete
 *   blocks (each round runs each once in a seeded random order), --interleaved-pairs A/A and as many
 *   A/B comparisons (default: --pairs). Judged with the per-round ratio's trend, not each side's.
 *
 * How often does `compare` cry wolf, and how often does it catch a real slowdown? It runs one
 * configuration P+1 times (A) and a known-slower one P times (B), interleaved A0 B0 A1 B1 ... AP so
 * both see the same drift of the machine, and judges P A/A pairs (A_i against A_i+1: the same
 * configuration twice) and P A/B pairs (A_i against B_i). Both go through a proxy that holds every
 * find back: --delay-ms for A, --slow-delay-ms for B (9 and 10 ms: B's finds take about 10% longer;
 * the slowdown actually reached is measured and printed). The workload is findOne by random _id.
 *
 * Printed, for each verdict rule: the false-alarm rate (A/A pairs judged a regression, exit 1, and
 * judged different at all) and the detection rate (A/B pairs judged a regression):
 *   - "trials" (compare today): Mann-Whitney U on the trials' ops/s, trials as the replicates;
 *   - "seconds" (compare before issue 22): Mann-Whitney U on every trial's per-second rates pooled.
 * Targets: false alarms at most alpha (5%); a 10% slowdown detected at least 80% of the time.
 *
 * The default (5 trials of 1 s, no warm-up, 20 + 20 pairs) takes about 4 minutes on 2 cores; the
 * full size of issue 22 is --trials 5 --seconds 5 --warmup 1 (about 21 minutes).
 * Server: --uri, else $MONGO_BENCH_URI, else the CRUD test server (test/support/crud-server.ts) is
 * started and stopped here. Its numbers are a test double's, never MongoDB's.
 */
import { MongoClient } from 'mongodb';
import { benchmark, BenchmarkInput } from '../lib/api/benchmark';
import { compareRuns } from '../lib/api/compare-runs';
import { compareResults, COMPARE_DEFAULTS, perSecondRates } from '../lib/compare/compare';
import { mannWhitneyU } from '../lib/compare/mann-whitney';
import { intArg } from '../lib/config/validate';
import { ResultDocument, StepResult } from '../lib/result';
import { CrudServer, startCrudServer } from '../test/support/crud-server';
import { startStallProxy, StallProxy } from '../test/reliability/support/stall-proxy';

interface Args {
  uri?: string;
  pairs: number;
  trials: number;
  seconds: number;
  warmup: number;
  clients: number;
  delayMs: number;
  slowDelayMs: number;
  interleavedPairs?: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    pairs: 20,
    trials: 5,
    seconds: 1,
    warmup: 0,
    clients: 4,
    delayMs: 9,
    slowDelayMs: 10,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    switch (flag) {
      case '--uri':
        args.uri = value;
        break;
      case '--pairs':
        args.pairs = intArg('--pairs')(value);
        break;
      case '--trials':
        args.trials = intArg('--trials')(value);
        break;
      case '--seconds':
        args.seconds = intArg('--seconds')(value);
        break;
      case '--warmup':
        args.warmup = intArg('--warmup')(value);
        break;
      case '--clients':
        args.clients = intArg('--clients')(value);
        break;
      case '--delay-ms':
        args.delayMs = intArg('--delay-ms')(value);
        break;
      case '--slow-delay-ms':
        args.slowDelayMs = intArg('--slow-delay-ms')(value);
        break;
      case '--interleaved-pairs':
        args.interleavedPairs = intArg('--interleaved-pairs')(value);
        break;
      default:
        throw new Error(
          `unknown option ${flag} (--pairs, --trials, --seconds, --warmup, --clients, --delay-ms, --slow-delay-ms, --uri)`,
        );
    }
  }
  if (args.pairs < 1 || args.trials < 1 || args.seconds < 1 || args.clients < 1)
    throw new Error('--pairs, --trials, --seconds and --clients must be at least 1');
  return args;
}

const NS = 'mongo_bench_compare_bench.docs';
const DOCS = 1000;

/** The verdict compare gave before issue 22: Mann-Whitney U on the pooled per-second rates, same thresholds. */
function secondsVerdict(a: StepResult, b: StepResult): { different: boolean; regression: boolean } {
  const x = perSecondRates(a);
  const y = perSecondRates(b);
  if (x.length < 2 || y.length < 2) return { different: false, regression: false };
  const change = b.opsPerSec.total / a.opsPerSec.total - 1;
  const significant = mannWhitneyU(x, y).pValue < COMPARE_DEFAULTS.alpha;
  const different = significant && Math.abs(change) * 100 >= COMPARE_DEFAULTS.noise;
  return { different, regression: different && -change * 100 > COMPARE_DEFAULTS.threshold };
}

/** The verdict compare gives now: trials as the replicates (and no verdict on trials that trend). */
function trialsVerdict(a: ResultDocument, b: ResultDocument, interleaved = false): Verdict {
  const c = compareResults(a, b, { interleaved });
  const s = c.steps[0];
  return {
    different: s.verdict === 'faster' || s.verdict === 'slower',
    regression: c.regression,
    notCompared: s.verdict === 'not compared',
    detectable: s.minDetectablePercent ?? null,
  };
}

interface Verdict {
  different: boolean;
  regression: boolean;
  notCompared?: boolean;
  detectable?: number | null;
}

interface Tally {
  pairs: number;
  different: number;
  regression: number;
  notCompared: number;
  detectable: number[];
}

const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(0)}% (${n}/${of})`;

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let server: CrudServer | undefined;
  let uri = args.uri ?? process.env.MONGO_BENCH_URI;
  if (!uri) {
    const choice = await startCrudServer();
    if (!choice.server.ok)
      throw new Error(
        `no --uri, no MONGO_BENCH_URI, and no CRUD test server: ${choice.server.reason}`,
      );
    server = choice.server.value;
    uri = server.uri;
    process.stderr.write(`server: ${server.description}\n`);
  }
  const proxies: StallProxy[] = [];
  try {
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
    try {
      const coll = client.db(NS.split('.')[0]).collection(NS.split('.')[1]);
      await coll.drop().catch(() => undefined);
      await coll.insertMany(
        Array.from({ length: DOCS }, (_, i) => ({ _id: i, v: 'x'.repeat(200) })) as never,
      );
    } finally {
      await client.close();
    }
    const url = new URL(uri);
    const target = { host: url.hostname, port: Number(url.port) };
    const fast = await startStallProxy(target, { command: 'find', delayMs: args.delayMs });
    proxies.push(fast);
    const slow = await startStallProxy(target, { command: 'find', delayMs: args.slowDelayMs });
    proxies.push(slow);

    const input = (proxyUri: string, label: string): BenchmarkInput => ({
      uri: proxyUri,
      ops: [{ op: 'findOne', ns: NS, query: { _id: { '#RAND_INT': [0, DOCS] } } }],
      workloadName: 'findOne-by-id',
      ns: NS,
      load: false,
      docs: DOCS,
      clients: [args.clients],
      seconds: args.seconds,
      warmup: args.warmup,
      trials: args.trials,
      label,
    });
    const runOnce = async (proxyUri: string, label: string): Promise<ResultDocument> => {
      const r = await benchmark(input(proxyUri, label));
      if (!r.complete || r.steps[0]?.status !== 'ok')
        throw new Error(
          `run ${label} did not complete: ${r.incompleteReason ?? r.steps[0]?.error ?? '?'}`,
        );
      return r;
    };

    const interleavedPairs = args.interleavedPairs ?? args.pairs;
    const inter = { aa: blank(), ab: blank() };
    const interA: number[] = [];
    const interRatio: number[] = [];
    const runInterleavedPair = async (i: number, kind: 'aa' | 'ab') => {
      const { results } = await compareRuns(
        input(fast.uri, `iA${i}`),
        input(kind === 'aa' ? fast.uri : slow.uri, `i${kind === 'aa' ? 'A' : 'B'}${i}`),
        { seed: 1000 + i },
      );
      add(inter[kind], trialsVerdict(results[0], results[1], true));
      interA.push(results[0].steps[0].opsPerSec.total);
      if (kind === 'ab')
        interRatio.push(results[1].steps[0].opsPerSec.total / results[0].steps[0].opsPerSec.total);
    };

    const started = Date.now();
    const as: ResultDocument[] = [];
    const bs: ResultDocument[] = [];
    const total = 2 * args.pairs + 1 + 2 * interleavedPairs;
    let done = 0;
    const tick = () =>
      process.stderr.write(
        `\r${++done}/${total} runs and interleaved pairs, ${Math.round((Date.now() - started) / 1000)} s`,
      );
    for (let i = 0; i <= Math.max(args.pairs, interleavedPairs); i++) {
      if (i <= args.pairs) {
        as.push(await runOnce(fast.uri, `A${i}`));
        tick();
      }
      if (i < args.pairs) {
        bs.push(await runOnce(slow.uri, `B${i}`));
        tick();
      }
      if (i < interleavedPairs) {
        await runInterleavedPair(i, 'aa');
        tick();
        await runInterleavedPair(i, 'ab');
        tick();
      }
    }
    process.stderr.write('\n');

    const tallies = { trials: { aa: blank(), ab: blank() }, seconds: { aa: blank(), ab: blank() } };
    for (let i = 0; i < args.pairs; i++) {
      const pairs: Array<['aa' | 'ab', ResultDocument, ResultDocument]> = [
        ['aa', as[i], as[i + 1]],
        ['ab', as[i], bs[i]],
      ];
      for (const [kind, a, b] of pairs) {
        add(tallies.trials[kind], trialsVerdict(a, b));
        add(tallies.seconds[kind], secondsVerdict(a.steps[0], b.steps[0]));
      }
    }
    const meanOps = (rs: ResultDocument[]) =>
      rs.reduce((s, r) => s + r.steps[0].opsPerSec.total, 0) / rs.length;
    const runSpread = (rs: ResultDocument[]) => {
      const v = rs.map((r) => r.steps[0].opsPerSec.total);
      const m = v.reduce((s, x) => s + x, 0) / v.length;
      return Math.sqrt(v.reduce((s, x) => s + (x - m) ** 2, 0) / (v.length - 1)) / m;
    };
    const slowdown = 1 - meanOps(bs) / meanOps(as);

    console.log(
      `compare bench: ${args.pairs} A/A and ${args.pairs} A/B pairs; ${args.clients} clients, ${args.trials} trials of ${args.seconds} s (warm-up ${args.warmup} s) per run`,
    );
    console.log(
      `server: ${server ? `${server.description} (a test double: not MongoDB numbers)` : uri}, finds held ${args.delayMs} ms (A) / ${args.slowDelayMs} ms (B) by a proxy`,
    );
    console.log(
      `A: ${meanOps(as).toFixed(1)} ops/s mean over ${as.length} runs (run-to-run CV ${(100 * runSpread(as)).toFixed(1)}%); B: ${meanOps(bs).toFixed(1)} ops/s; slowdown reached: ${(100 * slowdown).toFixed(1)}%`,
    );
    console.log(
      `thresholds: alpha ${COMPARE_DEFAULTS.alpha}, noise ${COMPARE_DEFAULTS.noise}%, regression ${COMPARE_DEFAULTS.threshold}%; ${Math.round((Date.now() - started) / 1000)} s`,
    );
    console.log('');
    if (interA.length > 1) {
      const m = interA.reduce((s, x) => s + x, 0) / interA.length;
      const cv = Math.sqrt(interA.reduce((s, x) => s + (x - m) ** 2, 0) / (interA.length - 1)) / m;
      const ratio = interRatio.reduce((s, x) => s + x, 0) / Math.max(1, interRatio.length);
      console.log(
        `interleaved: A ${m.toFixed(1)} ops/s mean over ${interA.length} sides (CV ${(100 * cv).toFixed(1)}%); slowdown reached in the A/B pairs: ${(100 * (1 - ratio)).toFixed(1)}%`,
      );
    }
    console.log('');
    console.log(
      'design / verdict rule                          A/A false alarms (exit 1)   A/A "faster"/"slower"   A/A not compared   A/B detected (exit 1)   A/B not compared   median detectable',
    );
    for (const [name, t] of [
      ['sequential, trials (compare)', tallies.trials],
      ['sequential, per-second rates pooled (old)', tallies.seconds],
      ['interleaved, trials (compare --run)', inter],
    ] as const) {
      const det = [...t.ab.detectable].sort((x, y) => x - y);
      const median = det.length > 0 ? `${det[det.length >> 1].toFixed(1)}%` : '-';
      console.log(
        `${name.padEnd(46)} ${pct(t.aa.regression, t.aa.pairs).padEnd(27)} ${pct(t.aa.different, t.aa.pairs).padEnd(23)} ${pct(t.aa.notCompared, t.aa.pairs).padEnd(18)} ${pct(t.ab.regression, t.ab.pairs).padEnd(23)} ${pct(t.ab.notCompared, t.ab.pairs).padEnd(18)} ${median}`,
      );
    }
    console.log('');
    console.log(
      `targets: false alarms at most ${100 * COMPARE_DEFAULTS.alpha}%, a 10% slowdown detected at least 80% of the time`,
    );
  } finally {
    for (const p of proxies) await p.stop();
    await server?.stop();
  }
}

function blank(): Tally {
  return { pairs: 0, different: 0, regression: 0, notCompared: 0, detectable: [] };
}

function add(t: Tally, v: Verdict): void {
  t.pairs++;
  if (v.different) t.different++;
  if (v.regression) t.regression++;
  if (v.notCompared) t.notCompared++;
  if (v.detectable !== undefined && v.detectable !== null) t.detectable.push(v.detectable);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
