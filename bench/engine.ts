/**
 * npm run bench:engine -- [--uri URI] [--clients 1,2,4,8,16] [--seconds 2] [--warmup 1] [--reps 5] [--docs 10000]
 *
 * Does the engine measure the server, not itself? For each client count, against the same server in
 * one run, it compares the engine's ops/sec on the 6:1 preset with a plain driver loop doing the same
 * operations (six findOne by random _id, one update $set + $inc), and prints the ratio (target >= 90%).
 * With --reps N the two alternate N times per client count (engine first, then plain first, ...); the
 * table shows the median ops/s of each and the median of the per-repetition ratios, which damps the
 * noise of a shared machine.
 *
 * Server: --uri, else $MONGO_BENCH_URI, else the CRUD test server (test/support/crud-server.ts) is
 * started and stopped here. Its numbers are a test double's, never MongoDB's.
 */
import os from 'node:os';
import { MongoClient } from 'mongodb';
import { runPlainLoop } from '../lib/calibrate/plain-loop';
import { intArg, intListArg } from '../lib/config/validate';
import { loadData } from '../lib/prepare/loader';
import { parseOps } from '../lib/workload/language/op-spec';
import { bindWorkload, prepareWorkload } from '../lib/workload/engine/compile-ops';
import { OURS, unplannedWrites } from '../lib/workload/engine/write-handles';
import { runStep } from '../lib/workload/engine/engine';
import { presetOps } from '../lib/workload/language/presets';
import { describeTarget, warmConnections } from '../lib/server/connect';
import { median } from '../lib/metrics/trial-stats';
import { CrudServer, startCrudServer } from '../test/support/crud-server';

interface Args {
  uri?: string;
  clients: number[];
  seconds: number;
  warmup: number;
  reps: number;
  docs: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { clients: [1, 2, 4, 8, 16], seconds: 2, warmup: 1, reps: 5, docs: 10_000 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    switch (flag) {
      case '--uri':
        args.uri = value;
        break;
      case '--clients':
        args.clients = intListArg('--clients')(value);
        break;
      case '--seconds':
        args.seconds = intArg('--seconds')(value);
        break;
      case '--warmup':
        args.warmup = intArg('--warmup')(value);
        break;
      case '--reps':
        args.reps = intArg('--reps')(value);
        break;
      case '--docs':
        args.docs = intArg('--docs')(value);
        break;
      default:
        throw new Error(
          `unknown option ${flag} (--uri, --clients, --seconds, --warmup, --reps, --docs)`,
        );
    }
  }
  return args;
}

const NS = { db: 'mongo_bench_engine', coll: 'docs' };

interface Measured {
  opsPerSec: number;
  /** This process's CPU time (user + system) per op: the client's cost, much less sensitive to the machine's load than throughput. */
  cpuMicrosPerOp: number;
}

/** Runs `fn` and returns its ops/sec with this process's CPU microseconds per op. */
async function measured(fn: () => Promise<{ ops: number; seconds: number }>): Promise<Measured> {
  const cpu = process.cpuUsage();
  const { ops, seconds } = await fn();
  const used = process.cpuUsage(cpu);
  return { opsPerSec: ops / seconds, cpuMicrosPerOp: (used.user + used.system) / ops };
}

/** The same 6:1 operations as the preset, written as the loop anyone would write with the driver (lib/calibrate). */
function plainLoop(
  client: MongoClient,
  clients: number,
  seconds: number,
  docs: number,
): Promise<{ ops: number; seconds: number }> {
  return runPlainLoop(client, NS, clients, seconds, docs);
}

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
    console.log(`started ${server.description}`);
  }
  const maxClients = Math.max(...args.clients);
  const client = new MongoClient(uri, {
    maxPoolSize: maxClients + 2,
    serverSelectionTimeoutMS: 5000,
  });
  try {
    await client.connect();
    const target = await describeTarget(client, uri, false);
    console.log(
      `server ${target.serverVersion ?? '?'} ${target.topology}${target.testDouble ? ' (TEST DOUBLE: not MongoDB numbers)' : ''} at ${target.uri}`,
    );
    console.log(
      `machine: ${os.cpus().length} cores (shared with whatever else runs), load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(
      `each measurement: ${args.warmup} s warm-up + ${args.seconds} s; ${args.reps} interleaved repetition(s) per client count; ratio = median of per-repetition engine/plain; ${args.docs} documents\n`,
    );

    await loadData(client, {
      ns: NS,
      docs: args.docs,
      docSize: 1024,
      batchSize: 500,
      randomSeed: 1,
    });
    const specs = parseOps(
      presetOps('6to1', { ns: `${NS.db}.${NS.coll}`, docs: args.docs, docSize: 1024 }),
      { defaultNs: `${NS.db}.${NS.coll}` },
    );
    const prepared = prepareWorkload(specs);
    // The CRUD test server this script started is its own; a server given by --uri is bound without a
    // write plan (the script loads and writes its namespace there as it always did).
    const ops = bindWorkload(prepared, client, {
      writes: server ? OURS : unplannedWrites('bench/engine.ts --uri'),
    });
    const engineRun = async (clients: number, seconds: number, rep: number) => {
      const m = await runStep(ops, prepared.scope, {
        clients,
        seconds,
        warmupSeconds: 0,
        randomSeed: 1000 * rep,
      });
      return { ops: m.reads + m.writes, seconds: m.elapsedSeconds };
    };
    // Each measurement follows its own un-measured warm-up run, so CPU time covers the measured run only.
    const engine = async (clients: number, rep: number): Promise<Measured> => {
      if (args.warmup > 0) await engineRun(clients, args.warmup, rep);
      return measured(() => engineRun(clients, args.seconds, rep));
    };
    const plain = async (clients: number): Promise<Measured> => {
      if (args.warmup > 0) await plainLoop(client, clients, args.warmup, args.docs);
      return measured(() => plainLoop(client, clients, args.seconds, args.docs));
    };

    // Warm both the server (a JVM's JIT, caches) and this process's JIT before anything is measured:
    // otherwise whichever side runs first pays for it.
    await warmConnections(client, maxClients);
    await engineRun(maxClients, 2, 99);
    await plainLoop(client, maxClients, 2, args.docs);

    const header = [
      'clients',
      'engine ops/s',
      'plain ops/s',
      'ratio (paired)',
      'engine cpu µs/op',
      'plain cpu µs/op',
      ...(args.reps > 1 ? ['engine runs', 'plain runs'] : []),
    ];
    const rows: string[][] = [];
    const ratios: number[] = [];
    for (const clients of args.clients) {
      await warmConnections(client, clients);
      const engineRuns: Measured[] = [];
      const plainRuns: Measured[] = [];
      for (let rep = 0; rep < args.reps; rep++) {
        // Alternate which goes first, so drift in the machine's load hits both alike.
        if (rep % 2 === 0) {
          engineRuns.push(await engine(clients, rep));
          plainRuns.push(await plain(clients));
        } else {
          plainRuns.push(await plain(clients));
          engineRuns.push(await engine(clients, rep));
        }
      }
      const e = median(engineRuns.map((r) => r.opsPerSec));
      const p = median(plainRuns.map((r) => r.opsPerSec));
      // Each repetition's two runs are neighbours in time and share the machine's load of the moment:
      // the median of the per-pair ratios is steadier than the ratio of the medians.
      const ratio = median(engineRuns.map((r, i) => r.opsPerSec / plainRuns[i].opsPerSec));
      const eCpu = median(engineRuns.map((r) => r.cpuMicrosPerOp));
      const pCpu = median(plainRuns.map((r) => r.cpuMicrosPerOp));
      ratios.push(ratio);
      const row = [
        String(clients),
        e.toFixed(0),
        p.toFixed(0),
        `${(ratio * 100).toFixed(1)}%`,
        eCpu.toFixed(1),
        pCpu.toFixed(1),
      ];
      if (args.reps > 1)
        row.push(
          engineRuns.map((x) => x.opsPerSec.toFixed(0)).join(' '),
          plainRuns.map((x) => x.opsPerSec.toFixed(0)).join(' '),
        );
      rows.push(row);
      console.log(
        `  clients ${clients}: engine ${e.toFixed(0)} ops/s (${eCpu.toFixed(1)} cpu µs/op), plain ${p.toFixed(0)} ops/s (${pCpu.toFixed(1)} cpu µs/op), ratio ${(ratio * 100).toFixed(1)}%`,
      );
    }
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    console.log(`\n${header.map((h, i) => h.padStart(widths[i])).join('  ')}`);
    for (const r of rows) console.log(r.map((c, i) => c.padStart(widths[i])).join('  '));
    const worst = Math.min(...ratios);
    console.log(
      `\nlowest ratio ${(worst * 100).toFixed(1)}% (target >= 90%): ${worst >= 0.9 ? 'PASS' : 'BELOW TARGET'}`,
    );
    await client.db(NS.db).dropDatabase();
  } finally {
    await client.close();
    await server?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
