/**
 * npm run bench:rate -- [--clients 4] [--seconds 10] [--probe-seconds 3] [--share 80] [--workers 1]
 *   [--low-rate 1000] [--low-only true] [--repeat 1] [--pin CLIENT_CPU,SERVER_CPU]
 *
 * `--pin 1,0` pins this process (every thread) to CPU 1 and the null server to CPU 0 (Linux's taskset), so
 * neither takes the other's core; other processes of the machine may still run on them (say so with figures).
 *
 * The open model against the built-in null server (lib/calibrate/null-server.ts, in its own process, as
 * bench:ceiling uses it), through runBenchmark as `run --rate` does:
 * 1. `--rate 80%`: a closed probe measures the maximum ops/s, then the step holds 80% of it; prints the
 *    target, the achieved ops/s and achieved / maximum (the promise: within 5% of 0.8);
 * 2. `--rate <2 x maximum>`: far above capacity; prints the ops dropped and late, and the latency
 *    percentiles, which stay bounded (an op is dropped rather than started more than 500 ms late).
 * 3. (alone with --low-only true) At 1 client: the closed loop's reads p50 and min against the open model's at `--low-rate` (1000) ops/s,
 *    far below capacity, and at half the closed loop's ops/s, in both `--arrivals` modes (exact, timer), `--repeat`
 *    times interleaved: an op of the open model is timed from its due time and never starts before it, so
 *    its p50 cannot fall below the closed loop's (before that rule, early timers made it several times lower).
 *    Each open run prints its waits' lateness distribution (how late a free client's op started: p50, p95,
 *    p99, max) and its event loop's busy and polling shares; exact arrivals promise p50 <= 50 µs and
 *    p99 <= 0.5 ms on an idle core, and reads p50 within 1.3x the closed loop's at 1,000 ops/s.
 * The null server's figures are the load generator's own ceiling, never MongoDB's.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { spawnNullServer } from '../lib/calibrate/null-server-process';
import { NULL_SERVER_NS } from '../lib/calibrate/null-server';
import { intArg } from '../lib/config/validate';
import { availableCores } from '../lib/metrics/client-load';
import { runBenchmark } from '../lib/run/benchmark';
import { resolveRunOptions } from '../lib/run/options/run-options';
import type { ResultDocument, StepResult } from '../lib/result';
import type { ArrivalsMode } from '../lib/workload/engine/step-plan';

interface Args {
  clients: number;
  seconds: number;
  probeSeconds: number;
  share: number;
  workers: number;
  lowRate: number;
  /** Only the 1-client comparison (part 3). */
  lowOnly: boolean;
  /** Part 3's rounds (closed, then each rate in both modes), interleaved. */
  repeat: number;
  /** CPUs for this process and for the null server (taskset), or none. */
  pin?: { client: number; server: number };
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
    repeat: 1,
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
      case '--repeat':
        args.repeat = intArg('--repeat')(value);
        break;
      case '--pin': {
        const cpus = value.split(',').map((c) => intArg('--pin')(c));
        if (cpus.length !== 2) throw new Error('--pin needs CLIENT_CPU,SERVER_CPU, such as 1,0');
        args.pin = { client: cpus[0], server: cpus[1] };
        break;
      }
      default:
        throw new Error(
          `unknown option ${flag} (--clients, --seconds, --probe-seconds, --share, --workers, --low-rate, --low-only true, --repeat, --pin)`,
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

type Run = (
  rate: string | number | undefined,
  clients?: number,
  arrivals?: ArrivalsMode,
) => Promise<ResultDocument>;

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

/** Part 3: the closed loop against the open model far below capacity, at 1 client, in both arrival modes. */
async function oneClient(run: Run, args: Args): Promise<void> {
  const us = (micros: number | undefined) => (micros === undefined ? 'n/a' : `${micros} µs`);
  // `min` is read where the result has it (results written before it was kept do not).
  const reads = (s: StepResult) =>
    s.latencyMicros.reads as StepResult['latencyMicros']['reads'] & { min?: number };
  const loop = (s: StepResult) => {
    const c = s.client;
    if (!c) return '';
    const polling = c.pollingUtilization ? `, polling ${c.pollingUtilization.join('/')}` : '';
    return `; event loop busy ${c.eventLoopUtilization.join('/')}${polling}`;
  };
  for (let round = 1; round <= args.repeat; round++) {
    const closed = (await run(undefined, 1)).steps[0];
    const half = Math.round(closed.opsPerSec.total / 2);
    console.log(
      `\nround ${round}: 1 client, closed loop (${closed.opsPerSec.total} ops/s): reads p50 ${us(reads(closed).p50)}, p99 ${us(reads(closed).p99)}, min ${us(reads(closed).min)}${loop(closed)}`,
    );
    for (const rate of [args.lowRate, half]) {
      for (const arrivals of ['exact', 'timer'] as const) {
        const open = (await run(rate, 1, arrivals)).steps[0];
        const w = open.arrival?.waitLateMicros;
        const lateness = w
          ? `lateness of ${w.count} waits p50 ${us(w.p50)}, p95 ${us(w.p95)}, p99 ${us(w.p99)}, max ${us(w.max)}`
          : 'no op waited';
        console.log(
          `  --rate ${rate}${rate === half ? ' (half the closed loop)' : ''} --arrivals ${arrivals} (achieved ${open.opsPerSec.total} ops/s): reads p50 ${us(reads(open).p50)}, p99 ${us(reads(open).p99)}; open p50 / closed p50 ${(reads(open).p50 / Math.max(1, reads(closed).p50)).toFixed(2)}`,
        );
        console.log(`    ${lateness}${loop(open)}`);
      }
    }
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  console.log(
    `machine: ${availableCores()} cores available (${cpus()[0]?.model ?? 'unknown cpu'}), load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const server = await spawnNullServer();
  if (args.pin) {
    // -a: every thread of the process (libuv's pool, V8's), not only its main thread.
    execFileSync('taskset', ['-a', '-p', '-c', String(args.pin.client), String(process.pid)]);
    execFileSync('taskset', ['-a', '-p', '-c', String(args.pin.server), String(server.pid)]);
    console.log(
      `pinned: this process to CPU ${args.pin.client}, the null server to CPU ${args.pin.server}`,
    );
  }
  try {
    const run: Run = (rate, clients = args.clients, arrivals) => {
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
        ...(arrivals ? { arrivals } : {}),
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
