/**
 * The engine's ceiling: the 6to1 preset against the null server (in its own process, so its CPU is
 * not the client's) at 1, 2, 4, ... workers with `clientsPerWorker` clients each, through both clients
 * (--driver node, the Node driver; --driver wire, mongo-bench's own OP_MSG connections), next to the
 * plain driver loop at the same concurrency on one event loop. Per row and client: ops/s, the client's
 * CPU µs per op (process CPU over the measured window / ops) and ops per CPU-second, scaling against
 * one worker, and ops per CPU-second against the plain loop's (the per-core ratio). Figures only:
 * nothing here is MongoDB's.
 */
import { arch, cpus, loadavg } from 'node:os';
import { MongoClient } from 'mongodb';
import { UsageError } from '../config/errors';
import { availableCores } from '../metrics/client-load';
import { runParallelStep } from '../workload/engine/parallel-step';
import { OURS } from '../workload/engine/write-handles';
import type { Driver } from '../workload/engine/op-client';
import { presetOps } from '../workload/language/presets';
import { warmConnections } from '../server/connect';
import { spawnNullServer } from './null-server-process';
import { runPlainLoop } from './plain-loop';
import { clientTimeouts } from '../common/client-timeouts';

export interface CalibrateSettings {
  /** Last worker count of the doubling 1, 2, 4, ... (itself included). */
  workersMax: number;
  clientsPerWorker: number;
  /** Measured seconds per run. */
  seconds: number;
  /** Seconds run before each measured engine window, and before each plain loop, not counted. */
  warmupSeconds: number;
  /** BSON size of the document the null server returns for find (the preset's --doc-size). */
  docBytes: number;
  /** Also run the plain driver loop at each row's concurrency. */
  plain: boolean;
  /** Also run the engine through the wire client (--driver wire) at each row's workers. */
  wire: boolean;
}

export const CALIBRATE_DEFAULTS: CalibrateSettings = {
  workersMax: Math.max(1, availableCores() - 1),
  clientsPerWorker: 8,
  seconds: 5,
  warmupSeconds: 1,
  docBytes: 1024,
  plain: true,
  wire: true,
};

export interface Run {
  opsPerSec: number;
  cpuMicrosPerOp: number;
  /** Ops per CPU-second of the client (1e6 / cpuMicrosPerOp): what one core drives. */
  opsPerCpuSecond?: number;
}

export type EngineRun = Run & { clientBound: boolean; eventLoopUtilization: number[] };

export interface CalibrateRow {
  workers: number;
  clients: number;
  /** The engine through the Node driver (--driver node). */
  engine: EngineRun;
  /** Engine ops/s over the one-worker row's. */
  scaling: number;
  plain?: Run;
  /** Engine ops per client CPU-second over the plain loop's: > 1 = the engine is cheaper per core. */
  perCoreRatio?: number;
  /** The engine through the wire client (--driver wire). */
  wire?: EngineRun;
  /** Wire ops/s over the one-worker row's. */
  wireScaling?: number;
  /** Wire ops per client CPU-second over the plain loop's. */
  wirePerCoreRatio?: number;
  /** Wire ops per client CPU-second over the engine on the driver's. */
  wireOverEngine?: number;
  /** The null server's CPU per op over the engine run (its own process): how little it added. */
  serverCpuMicrosPerOp: number;
}

export interface CalibrateResult {
  schema: 'mongo-bench/calibrate@1';
  note: string;
  machine: { cores: number; cpuModel: string; arch: string; loadAverage: number[] };
  settings: CalibrateSettings;
  rows: CalibrateRow[];
  startedAt: string;
  finishedAt: string;
}

export type CalibrateEvent =
  | { type: 'server'; uri: string; pid: number }
  | {
      type: 'run-start';
      what: 'engine' | 'wire' | 'plain';
      workers: number;
      clients: number;
      seconds: number;
    }
  | { type: 'row'; row: CalibrateRow };

const NS = { db: 'mongo_bench_calibrate', coll: 'null' };
/** The preset draws _id in [0, DOCS); the null server ignores it. */
const DOCS = 10_000;

export function workerCounts(max: number): number[] {
  const counts: number[] = [];
  for (let w = 1; w < max; w *= 2) counts.push(w);
  counts.push(max);
  return counts;
}

export function validateCalibrateSettings(s: CalibrateSettings): CalibrateSettings {
  const positive = (flag: string, v: number, max: number) => {
    if (!Number.isInteger(v) || v < 1 || v > max)
      throw new UsageError(`option ${flag}: expected an integer from 1 to ${max}, got ${v}`);
  };
  positive('--workers-max', s.workersMax, 256);
  positive('--clients', s.clientsPerWorker, 1024);
  positive('--seconds', s.seconds, 3600);
  if (!Number.isInteger(s.warmupSeconds) || s.warmupSeconds < 0)
    throw new UsageError(`option --warmup: expected an integer >= 0, got ${s.warmupSeconds}`);
  if (!Number.isInteger(s.docBytes) || s.docBytes < 64 || s.docBytes > 16 * 1024 * 1024) {
    throw new UsageError(
      `option --doc-size: expected bytes from 64 to 16777216, got ${s.docBytes}`,
    );
  }
  return s;
}

const perOp = (cpuMicros: number, ops: number): number => (ops > 0 ? cpuMicros / ops : 0);
const perCpuSecond = (cpuMicrosPerOp: number): number =>
  cpuMicrosPerOp > 0 ? 1e6 / cpuMicrosPerOp : 0;

/** One engine run of the 6to1 preset against `uri` through `driver`: ops/s and the client's CPU per op. */
async function engineRun(
  uri: string,
  driver: Driver,
  workers: number,
  clients: number,
  settings: CalibrateSettings,
  ops: Record<string, unknown>[],
  signal?: AbortSignal,
): Promise<EngineRun & { ops: number }> {
  const m = await runParallelStep(
    {
      uri,
      driver,
      // The null server this calibration spawned: its own.
      workload: { ops, ns: `${NS.db}.${NS.coll}`, writes: OURS },
      plan: {
        clients,
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        randomSeed: 1,
      },
      workers,
    },
    { signal },
  );
  const done = m.reads + m.writes;
  // cpuPercent: process CPU (every thread) over the measured window, as a share of one core.
  const cpuMicros = (m.client.cpuPercent / 100) * m.elapsedSeconds * 1e6;
  const cpuMicrosPerOp = perOp(cpuMicros, done);
  return {
    ops: done,
    opsPerSec: m.elapsedSeconds > 0 ? done / m.elapsedSeconds : 0,
    cpuMicrosPerOp,
    opsPerCpuSecond: perCpuSecond(cpuMicrosPerOp),
    clientBound: m.client.eventLoopUtilization.some((u) => u > 0.9),
    eventLoopUtilization: m.client.eventLoopUtilization,
  };
}

export async function runCalibration(
  settings: CalibrateSettings,
  onEvent: (e: CalibrateEvent) => void = () => undefined,
  signal?: AbortSignal,
): Promise<CalibrateResult> {
  validateCalibrateSettings(settings);
  const startedAt = new Date().toISOString();
  const server = await spawnNullServer({ docBytes: settings.docBytes });
  onEvent({ type: 'server', uri: server.uri, pid: server.pid });
  const rows: CalibrateRow[] = [];
  const ops = presetOps('6to1', {
    ns: `${NS.db}.${NS.coll}`,
    docs: DOCS,
    docSize: settings.docBytes,
  });
  let plainClient: MongoClient | undefined;
  try {
    for (const workers of workerCounts(settings.workersMax)) {
      if (signal?.aborted) break;
      const clients = workers * settings.clientsPerWorker;
      onEvent({ type: 'run-start', what: 'engine', workers, clients, seconds: settings.seconds });
      const before = await server.usage();
      const { ops: engineOps, ...engine } = await engineRun(
        server.uri,
        'node',
        workers,
        clients,
        settings,
        ops,
        signal,
      );
      const after = await server.usage();
      const row: CalibrateRow = {
        workers,
        clients,
        engine,
        scaling:
          rows.length > 0 && rows[0].engine.opsPerSec > 0
            ? engine.opsPerSec / rows[0].engine.opsPerSec
            : 1,
        // Over the whole step (warm-up included): an upper bound of the server's share per op.
        serverCpuMicrosPerOp: perOp(after.cpuMicros - before.cpuMicros, engineOps),
      };
      if (settings.wire && !signal?.aborted) {
        onEvent({ type: 'run-start', what: 'wire', workers, clients, seconds: settings.seconds });
        const { ops: _wireOps, ...wire } = await engineRun(
          server.uri,
          'wire',
          workers,
          clients,
          settings,
          ops,
          signal,
        );
        row.wire = wire;
        const first = rows[0]?.wire;
        row.wireScaling = first && first.opsPerSec > 0 ? wire.opsPerSec / first.opsPerSec : 1;
        if (wire.cpuMicrosPerOp > 0)
          row.wireOverEngine = engine.cpuMicrosPerOp / wire.cpuMicrosPerOp;
      }
      if (settings.plain && !signal?.aborted) {
        onEvent({
          type: 'run-start',
          what: 'plain',
          workers: 1,
          clients,
          seconds: settings.seconds,
        });
        plainClient ??= await new MongoClient(server.uri, {
          maxPoolSize: clients + 2,
          ...clientTimeouts(),
        }).connect();
        await warmConnections(plainClient, clients);
        if (settings.warmupSeconds > 0)
          await runPlainLoop(plainClient, NS, clients, settings.warmupSeconds, DOCS);
        const p = await runPlainLoop(plainClient, NS, clients, settings.seconds, DOCS);
        const plainPerOp = perOp(p.cpuMicros, p.ops);
        row.plain = {
          opsPerSec: p.ops / p.seconds,
          cpuMicrosPerOp: plainPerOp,
          opsPerCpuSecond: perCpuSecond(plainPerOp),
        };
        if (engine.cpuMicrosPerOp > 0) row.perCoreRatio = plainPerOp / engine.cpuMicrosPerOp;
        if (row.wire && row.wire.cpuMicrosPerOp > 0)
          row.wirePerCoreRatio = plainPerOp / row.wire.cpuMicrosPerOp;
      }
      rows.push(row);
      onEvent({ type: 'row', row });
    }
  } finally {
    await plainClient?.close().catch(() => undefined);
    await server.stop();
  }
  const cpu = cpus();
  return {
    schema: 'mongo-bench/calibrate@1',
    note: 'Against the mongo-bench null server (answers at once, stores nothing): these figures measure the load generator, never a MongoDB server.',
    machine: {
      cores: availableCores(),
      cpuModel: cpu[0]?.model ?? 'unknown',
      arch: arch(),
      loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    },
    settings,
    rows,
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}

export const CALIBRATE_HEADER = [
  'workers',
  'clients',
  'ops/s',
  'cpu µs/op',
  'ops/cpu-s',
  'scaling',
  'wire ops/s',
  'wire cpu µs/op',
  'wire ops/cpu-s',
  'wire scaling',
  'plain ops/s',
  'plain cpu µs/op',
  'plain ops/cpu-s',
  'engine/plain per core',
  'wire/plain per core',
  'wire/engine per core',
  'server cpu µs/op',
];

const ratio = (r: number | undefined) => (r !== undefined ? `${r.toFixed(2)}x` : '-');
const fixed = (v: number | undefined, digits: number) =>
  v !== undefined ? v.toFixed(digits) : '-';

export function calibrateRowCells(row: CalibrateRow): string[] {
  return [
    String(row.workers),
    String(row.clients),
    row.engine.opsPerSec.toFixed(0),
    row.engine.cpuMicrosPerOp.toFixed(1),
    fixed(row.engine.opsPerCpuSecond, 0),
    `${row.scaling.toFixed(2)}x`,
    fixed(row.wire?.opsPerSec, 0),
    fixed(row.wire?.cpuMicrosPerOp, 1),
    fixed(row.wire?.opsPerCpuSecond, 0),
    ratio(row.wireScaling),
    fixed(row.plain?.opsPerSec, 0),
    fixed(row.plain?.cpuMicrosPerOp, 1),
    fixed(row.plain?.opsPerCpuSecond, 0),
    ratio(row.perCoreRatio),
    ratio(row.wirePerCoreRatio),
    ratio(row.wireOverEngine),
    row.serverCpuMicrosPerOp.toFixed(1),
  ];
}

export function formatCalibrateTable(rows: CalibrateRow[]): string {
  const cells = rows.map(calibrateRowCells);
  const widths = CALIBRATE_HEADER.map((h, i) =>
    Math.max(h.length, ...cells.map((r) => r[i].length)),
  );
  const line = (r: string[]) => r.map((c, i) => c.padStart(widths[i])).join('  ');
  const marks = rows.flatMap((r) => [
    ...(r.engine.clientBound
      ? [`${r.workers} worker(s), driver: a worker's event loop was busier than 90% (client-bound)`]
      : []),
    ...(r.wire?.clientBound
      ? [`${r.workers} worker(s), wire: a worker's event loop was busier than 90% (client-bound)`]
      : []),
  ]);
  return [line(CALIBRATE_HEADER), ...cells.map(line), ...marks].join('\n');
}
