/**
 * npm run bench:rate -- [--clients 4] [--seconds 10] [--probe-seconds 3] [--share 80] [--workers 1]
 *
 * The open model against the built-in null server (lib/calibrate/null-server.ts, in its own process, as
 * bench:ceiling uses it), through runBenchmark as `run --rate` does:
 * 1. `--rate 80%`: a closed probe measures the maximum ops/s, then the step holds 80% of it; prints the
 *    target, the achieved ops/s and achieved / maximum (the promise: within 5% of 0.8);
 * 2. `--rate <2 x maximum>`: far above capacity; prints the ops dropped and late, and the latency
 *    percentiles, which stay bounded (an op is dropped rather than started more than 500 ms late).
 * The null server's figures are the load generator's own ceiling, never MongoDB's.
 */
import { cpus, loadavg } from 'node:os';
import { spawnNullServer } from '../lib/calibrate/null-server-process';
import { NULL_SERVER_NS } from '../lib/calibrate/null-server';
import { intArg } from '../lib/config/validate';
import { availableCores } from '../lib/metrics/client-load';
import { runBenchmark } from '../lib/run/benchmark';
import { resolveRunOptions } from '../lib/run/run-options';
import type { ResultDocument, StepResult } from '../lib/result';

interface Args {
  clients: number;
  seconds: number;
  probeSeconds: number;
  share: number;
  workers: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { clients: 4, seconds: 10, probeSeconds: 3, share: 80, workers: 1 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    switch (flag) {
      case '--clients': args.clients = intArg('--clients')(value); break;
      case '--seconds': args.seconds = intArg('--seconds')(value); break;
      case '--probe-seconds': args.probeSeconds = intArg('--probe-seconds')(value); break;
      case '--share': args.share = intArg('--share')(value); break;
      case '--workers': args.workers = intArg('--workers')(value); break;
      default: throw new Error(`unknown option ${flag} (--clients, --seconds, --probe-seconds, --share, --workers)`);
    }
  }
  return args;
}

const ms = (micros: number) => `${(micros / 1000).toFixed(1)} ms`;

function latencyLine(step: StepResult): string {
  const r = step.latencyMicros.reads;
  return `reads p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, p99.9 ${ms(r.p999)}, max ${ms(r.max)}`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  console.log(`machine: ${availableCores()} cores available (${cpus()[0]?.model ?? 'unknown cpu'}), load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const server = await spawnNullServer();
  try {
    const run = (rate: string | number): Promise<ResultDocument> => {
      const options = resolveRunOptions({
        uri: server.uri, rate, clients: [args.clients], seconds: args.seconds, warmup: 1, ...(typeof rate === 'string' ? { rateProbeSeconds: args.probeSeconds } : {}),
        load: false, serverStats: false, workers: args.workers, testDouble: true, ns: NULL_SERVER_NS, workload: '6to1',
      });
      options.outDir = undefined;
      return runBenchmark(options);
    };
    console.log(`null server (test double: these are the load generator's figures, not MongoDB's); 6to1, ${args.clients} clients, ${args.workers} worker(s), ${args.seconds} s measured`);

    const share = await run(`${args.share}%`);
    const probe = share.rateProbe!;
    const [held] = share.steps;
    const target = (held.arrival!.target as { opsPerSecond: number }).opsPerSecond;
    const ratio = held.opsPerSec.total / probe.maxOpsPerSec;
    console.log(`\n--rate ${args.share}%: probe ${probe.clients.join(',')} clients x ${probe.seconds} s closed: maximum ${probe.maxOpsPerSec} ops/s`);
    console.log(`  target ${target.toFixed(1)} ops/s, achieved ${held.opsPerSec.total} ops/s, achieved / maximum ${ratio.toFixed(3)} (promise: ${(args.share / 100).toFixed(2)} +-5%: ${Math.abs(ratio / (args.share / 100) - 1) <= 0.05 ? 'held' : 'MISSED'})`);
    console.log(`  scheduled ${held.arrival!.scheduled}, dropped ${held.arrival!.dropped}, late ${held.arrival!.late}; ${latencyLine(held)}`);

    const twice = Math.round(2 * probe.maxOpsPerSec);
    const over = await run(twice);
    const [step] = over.steps;
    const a = step.arrival!;
    console.log(`\n--rate ${twice} (2 x maximum):`);
    console.log(`  target ${twice} ops/s, achieved ${step.opsPerSec.total} ops/s; scheduled ${a.scheduled}, dropped ${a.dropped} (${((100 * a.dropped) / Math.max(1, a.scheduled)).toFixed(1)}%), late ${a.late} (>${a.lateAfterMs} ms; dropped after ${a.dropAfterMs} ms)`);
    console.log(`  ${latencyLine(step)}`);
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
