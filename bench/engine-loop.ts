/**
 * npm run bench:engine-loop -- [--clients 8] [--seconds 3] [--warmup 1] [--runs 3]
 *
 * What the engine's client loop itself costs per op, with no driver and no socket: runStep on the 6:1
 * shape (six reads, one write) whose ops resolve at once, so every CPU µs counted is the loop's
 * (stop checks, clock reads, op choice, per-second buckets, one histogram record, promise hops).
 * Set it beside `npm run bench:ceiling` (CPU µs per op against the null server, driver included):
 * a loop change can save at most this figure per op. Prints each run and the median.
 */
import { cpus } from 'node:os';
import { UsageError } from '../lib/config/errors';
import { intArg } from '../lib/config/validate';
import { median } from '../lib/metrics/trial-stats';
import { BoundOp } from '../lib/workload/engine/compile-ops';
import { runStep } from '../lib/workload/engine/engine';
import { TemplateScope } from '../lib/workload/language/template';

function parseArgs(argv: string[]): {
  clients: number;
  seconds: number;
  warmup: number;
  runs: number;
} {
  const args = { clients: 8, seconds: 3, warmup: 1, runs: 3 };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === '--clients' || flag === '--seconds' || flag === '--warmup' || flag === '--runs') {
      const n = intArg(flag)(value ?? '');
      if (n < (flag === '--warmup' ? 0 : 1))
        throw new UsageError(
          `option ${flag}: must be at least ${flag === '--warmup' ? 0 : 1}, got ${n}`,
        );
      args[flag.slice(2) as keyof typeof args] = n;
    } else
      throw new UsageError(
        `unknown option ${flag} (options: --clients, --seconds, --warmup, --runs)`,
      );
  }
  return args;
}

function instantOp(index: number, opClass: 'read' | 'write'): BoundOp {
  return {
    index,
    type: opClass === 'read' ? 'findOne' : 'update',
    opClass,
    delayMs: 0,
    run: () => Promise.resolve(undefined),
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  console.log(
    `machine: ${cpus().length} cpus (${cpus()[0]?.model ?? 'unknown cpu'}); ${args.clients} clients, ${args.warmup} s warm-up + ${args.seconds} s, ${args.runs} runs`,
  );
  const ops = [0, 1, 2, 3, 4, 5].map((i) => instantOp(i, 'read')).concat(instantOp(6, 'write'));
  const perOp: number[] = [];
  for (let run = 1; run <= args.runs; run++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const m = await runStep(ops, new TemplateScope(), {
      clients: args.clients,
      seconds: args.seconds,
      warmupSeconds: args.warmup,
      randomSeed: run,
    });
    const used = process.cpuUsage(cpu);
    const wallSeconds = (performance.now() - started) / 1000;
    // The CPU covers warm-up and window alike: divide by the ops of both, the window's rate applied to the whole.
    const opsInAll = ((m.reads + m.writes) / args.seconds) * wallSeconds;
    const micros = (used.user + used.system) / opsInAll;
    perOp.push(micros);
    console.log(
      `run ${run}: ${Math.round((m.reads + m.writes) / args.seconds).toLocaleString('en-US')} ops/s, ${micros.toFixed(2)} CPU µs per op`,
    );
  }
  console.log(
    `median: ${median(perOp).toFixed(2)} CPU µs per op of the engine loop alone (no driver, no server)`,
  );
}

main().catch((err: unknown) => {
  if (!(err instanceof UsageError)) throw err;
  console.error(`bench:engine-loop: ${err.message}`);
  process.exitCode = 2;
});
