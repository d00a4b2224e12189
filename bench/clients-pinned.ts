/**
 * npm run bench:clients-pinned -- [--clients 16] [--seconds 5] [--warmup 1] [--rounds 3]
 *
 * The two clients side by side, pinned: the null server (its own process) moved to CPU 0 with
 * `taskset -a -p`, this process (run it under `taskset -c 1`) driving the 6:1 preset through the plain
 * driver loop, the engine on the Node driver (--driver node) and the engine on the wire client (--driver
 * wire), one event loop each, interleaved over `--rounds` rounds. Prints per run: ops/s, the client's CPU
 * µs per op and ops per CPU-second, the null server's CPU µs per op; then the medians and the per-core
 * ratios. Needs Linux's taskset; without it the server is left where it runs (said once).
 *
 *   taskset -c 1 npm run bench:clients-pinned
 */
import { execFileSync } from 'node:child_process';
import { MongoClient } from 'mongodb';
import { spawnNullServer } from '../lib/calibrate/null-server-process';
import { runPlainLoop } from '../lib/calibrate/plain-loop';
import { UsageError } from '../lib/config/errors';
import { intArg } from '../lib/config/validate';
import { median } from '../lib/metrics/trial-stats';
import { warmConnections } from '../lib/server/connect';
import { runParallelStep } from '../lib/workload/engine/parallel-step';
import { OURS } from '../lib/workload/engine/write-handles';
import { presetOps } from '../lib/workload/language/presets';

const NS = { db: 'mongo_bench_calibrate', coll: 'null' };
const DOCS = 10_000;
const KINDS = ['plain', 'node', 'wire'] as const;
type Kind = (typeof KINDS)[number];

interface Args {
  clients: number;
  seconds: number;
  warmup: number;
  rounds: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { clients: 16, seconds: 5, warmup: 1, rounds: 3 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '') as keyof Args;
    if (!(key in args)) throw new UsageError(`unknown option ${argv[i]}`);
    args[key] = intArg(argv[i])(argv[i + 1] ?? '');
  }
  return args;
}

interface Figures {
  opsPerSec: number;
  cpuMicrosPerOp: number;
  serverCpuMicrosPerOp: number;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const server = await spawnNullServer({ docBytes: 1024 });
  try {
    execFileSync('taskset', ['-a', '-pc', '0', String(server.pid)], { stdio: 'ignore' });
  } catch {
    console.log('taskset failed: the null server is not pinned');
  }
  const ops = presetOps('6to1', { ns: `${NS.db}.${NS.coll}`, docs: DOCS, docSize: 1024 });
  const plain = await new MongoClient(server.uri, { maxPoolSize: args.clients + 2 }).connect();
  const runs: Record<Kind, Figures[]> = { plain: [], node: [], wire: [] };
  try {
    await warmConnections(plain, args.clients);
    for (let round = 1; round <= args.rounds; round++) {
      for (const kind of KINDS) {
        const before = await server.usage();
        let done: number;
        let seconds: number;
        let cpuMicros: number;
        if (kind === 'plain') {
          await runPlainLoop(plain, NS, args.clients, args.warmup, DOCS);
          const p = await runPlainLoop(plain, NS, args.clients, args.seconds, DOCS);
          [done, seconds, cpuMicros] = [p.ops, p.seconds, p.cpuMicros];
        } else {
          const m = await runParallelStep({
            uri: server.uri,
            driver: kind,
            workload: { ops, ns: `${NS.db}.${NS.coll}`, writes: OURS },
            plan: {
              clients: args.clients,
              seconds: args.seconds,
              warmupSeconds: args.warmup,
              randomSeed: 1,
            },
            workers: 1,
          });
          done = m.reads + m.writes;
          seconds = m.elapsedSeconds;
          cpuMicros = (m.client.cpuPercent / 100) * m.elapsedSeconds * 1e6;
        }
        const after = await server.usage();
        const f: Figures = {
          opsPerSec: done / seconds,
          cpuMicrosPerOp: cpuMicros / done,
          serverCpuMicrosPerOp: (after.cpuMicros - before.cpuMicros) / done,
        };
        runs[kind].push(f);
        console.log(
          `round ${round} ${kind.padEnd(5)} ops/s ${f.opsPerSec.toFixed(0).padStart(7)}  client cpu µs/op ${f.cpuMicrosPerOp.toFixed(1).padStart(6)}  ops/cpu-s ${(1e6 / f.cpuMicrosPerOp).toFixed(0).padStart(6)}  server cpu µs/op ${f.serverCpuMicrosPerOp.toFixed(1)}`,
        );
      }
    }
  } finally {
    await plain.close();
    await server.stop();
  }
  const med = (kind: Kind) => median(runs[kind].map((f) => f.cpuMicrosPerOp));
  for (const kind of KINDS)
    console.log(
      `median ${kind.padEnd(5)} cpu µs/op ${med(kind).toFixed(1)}  ops/s ${median(runs[kind].map((f) => f.opsPerSec)).toFixed(0)}`,
    );
  console.log(
    `per core (ops per CPU-second): wire/plain ${(med('plain') / med('wire')).toFixed(2)}x, wire/engine on the driver ${(med('node') / med('wire')).toFixed(2)}x, engine/plain ${(med('plain') / med('node')).toFixed(2)}x`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof UsageError ? `bench:clients-pinned: ${err.message}` : err);
  process.exitCode = err instanceof UsageError ? 2 : 1;
});
