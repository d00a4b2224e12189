/**
 * npm run bench:rate -- [--clients 4] [--seconds 10] [--probe-seconds 3] [--share 80] [--workers 1]
 *
 * The open model against the built-in null server (lib/calibrate/null-server.ts, in its own process, as
 * bench:ceiling uses it), through runBenchmark as `run --rate` does:
 * 1. `--rate 80%`: a closed probe measures the maximum ops/s, then the step holds 80% of it; prints the
 *    target, the achieved ops/s and achieved / maximum (the promise: within 5% of 0.8);
 * 2. `--rate <2 x maximum>`: far above capacity; prints the ops dropped and late, and the latency
 *    percentiles, which stay bounded (an op is dropped rather than started more than 500 ms late).
 * 3. (alone with --low-only true) At 1 client: the closed loop's reads p50 and min against the open model's at `--low-rate` (1000) ops/s,
 *    far below capacity: an op of the open model is timed from its due time and never starts before it, so
 *    its p50 cannot fall below the closed loop's (before that rule, early timers made it several times lower).
 * The null server's figures are the load generator's own ceiling, never MongoDB's.
 */
import { cpus, loadavg } from 'node:os';
import { spawnNullServer } from '../lib/calibrate/null-server-process';
import { NULL_SERVER_NS } from '../lib/calibrate/null-server';
import { intArg } from '../lib/config/validate';
import { availableCores } from '../lib/metrics/client-load';
import { runBenchmark } from '../lib/run/benchmark';
import { resolveRunOptions } from '../lib/run/options/run-options';
import type { ResultDocument, StepResult } from '../lib/result';

interface Args {
  clients: number;
  seconds: number;
  probeSeconds: number;
  share: number;
  workers: number;
  lowRate: number;
  /** Only the 1-client comparison (part 3). */
  lowOnly: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    clients: 4,
    seconds: 10,
    probeSeconds: 3,
    share: 80,
    workers: 1,
    lowRate: 1000,
    lowOnly: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    switch (flag) {
      case '--clients':
        args.clients = intArg('--clients')(value);
        break;
      case '--seconds':
        args.seconds = intArg('--seconds')(value);
        break;
      case '--probe-seconds':
        args.probeSeconds = intArg('--probe-seconds')(value);
        break;
      case '--share':
        args.share = intArg('--share')(value);
        break;
      case '--workers':
        args.workers = intArg('--workers')(value);
        break;
      case '--low-rate':
        args.lowRate = intArg('--low-rate')(value);
        break;
      case '--low-only':
        args.lowOnly = value === 'true' || value === '1';
        break;
      default:
        throw new Error(
          `unknown option ${flag} (--clients, --seconds, --probe-seconds, --share, --workers, --low-rate, --low-only true)`,
        );
    }
  }
  return args;
}

const ms = (micros: number) => `${(micros / 1000).toFixed(1)} ms`;

function latencyLine(step: StepResult): string {
  const r = step.latencyMicros.reads;
  return `reads p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, p99.9 ${ms(r.p999)}, max ${ms(r.max)}`;
}

type Run = (rate: string | number | undefined, clients?: number) => Promise<ResultDocument>;

async function shareAndOver(run: Run, args: Args): Promise<void> {
  const share = await run(`${args.share}%`);
  const probe = share.rateProbe!;
  const [held] = share.steps;
  const target = (held.arrival!.target as { opsPerSecond: number }).opsPerSecond;
  const ratio = held.opsPerSec.total / probe.maxOpsPerSec;
  console.log(
    `\n--rate ${args.share}%: probe ${probe.clients.join(',')} clients x ${probe.seconds} s closed: maximum ${probe.maxOpsPerSec} ops/s`,
  );
  console.log(
    `  target ${target.toFixed(1)} ops/s, achieved ${held.opsPerSec.total} ops/s, achieved / maximum ${ratio.toFixed(3)} (promise: ${(args.share / 100).toFixed(2)} +-5%: ${Math.abs(ratio / (args.share / 100) - 1) <= 0.05 ? 'held' : 'MISSED'})`,
  );
  console.log(
    `  scheduled ${held.arrival!.scheduled}, dropped ${held.arrival!.dropped}, late ${held.arrival!.late}; ${latencyLine(held)}`,
  );

  const twice = Math.round(2 * probe.maxOpsPerSec);
  const over = await run(twice);
  const [step] = over.steps;
  const a = step.arrival!;
  console.log(`\n--rate ${twice} (2 x maximum):`);
  console.log(
    `  target ${twice} ops/s, achieved ${step.opsPerSec.total} ops/s; scheduled ${a.scheduled}, dropped ${a.dropped} (${((100 * a.dropped) / Math.max(1, a.scheduled)).toFixed(1)}%), late ${a.late} (>${a.lateAfterMs} ms; dropped after ${a.dropAfterMs} ms)`,
  );
  console.log(`  ${latencyLine(step)}`);
}

/** Part 3: the closed loop against the open model far below capacity, at 1 client. */
async function oneClient(run: Run, args: Args): Promise<void> {
  const closed = (await run(undefined, 1)).steps[0];
  const open = (await run(args.lowRate, 1)).steps[0];
  const us = (micros: number | undefined) => (micros === undefined ? 'n/a' : `${micros} µs`);
  // `min` is read where the result has it (results written before it was kept do not).
  const reads = (s: StepResult) =>
    s.latencyMicros.reads as StepResult['latencyMicros']['reads'] & { min?: number };
  console.log(
    `\n1 client, closed loop (${closed.opsPerSec.total} ops/s): reads p50 ${us(reads(closed).p50)}, min ${us(reads(closed).min)}`,
  );
  console.log(
    `1 client, --rate ${args.lowRate} (achieved ${open.opsPerSec.total} ops/s): reads p50 ${us(reads(open).p50)}, min ${us(reads(open).min)}; open p50 / closed p50 ${(reads(open).p50 / Math.max(1, reads(closed).p50)).toFixed(2)}`,
  );
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  console.log(
    `machine: ${availableCores()} cores available (${cpus()[0]?.model ?? 'unknown cpu'}), load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const server = await spawnNullServer();
  try {
    const run: Run = (rate, clients = args.clients) => {
      const options = resolveRunOptions({
        uri: server.uri,
        ...(rate === undefined ? {} : { rate }),
        clients: [clients],
        seconds: args.seconds,
        warmup: 1,
        ...(typeof rate === 'string' ? { rateProbeSeconds: args.probeSeconds } : {}),
        load: false,
        serverStats: false,
        workers: args.workers,
        testDouble: true,
        ns: NULL_SERVER_NS,
        workload: '6to1',
      });
      options.outDir = undefined;
      return runBenchmark(options);
    };
    console.log(
      `null server (test double: these are the load generator's figures, not MongoDB's); 6to1, ${args.clients} clients (part 3: 1), ${args.workers} worker(s), ${args.seconds} s measured`,
    );
    if (!args.lowOnly) await shareAndOver(run, args);
    await oneClient(run, args);
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
