/** Synthetic result documents for history tests: one per "night", ops/s around a level with Gaussian noise (seeded). */
import { LatencySummary, RESULT_SCHEMA, ResultDocument, StepResult } from '../../lib/result';
import { Prng } from '../../lib/workload/language/prng';
import { resultStep } from '../support/results';

function gaussian(prng: Prng): number {
  // Box-Muller.
  const u = 1 - prng.nextFloat();
  const v = prng.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function latency(micros: number, count: number): LatencySummary {
  return {
    avg: micros,
    p50: Math.round(micros * 0.9),
    p95: Math.round(micros * 2),
    p99: Math.round(micros * 3),
    p999: Math.round(micros * 6),
    max: Math.round(micros * 15),
    count,
  };
}

function step(clients: number, opsPerSec: number, errors = 0): StepResult {
  const seconds = 10;
  const reads = Math.round((opsPerSec * seconds * 6) / 7);
  const writes = Math.round((opsPerSec * seconds) / 7);
  // Closed loop: latency = clients / throughput.
  const micros = (clients / opsPerSec) * 1e6;
  return resultStep({
    clients,
    seconds,
    status: 'ok',
    ops: { reads, writes, errors },
    opsPerSec: { total: opsPerSec, reads: reads / seconds, writes: writes / seconds },
    peakOpsPerSec: {
      total: opsPerSec * 1.05,
      reads: (reads / seconds) * 1.05,
      writes: (writes / seconds) * 1.05,
    },
    latencyMicros: { reads: latency(micros, reads), writes: latency(micros * 1.4, writes) },
  });
}

export interface SyntheticOptions {
  runs: number;
  /** ops/s at one client; n clients give about 3.5 times as much at 4. */
  level: number;
  /** Relative noise (standard deviation / level). */
  noise: number;
  /** From this run on (0-based), ops/s is multiplied by `factor`. */
  changeAt?: number;
  factor?: number;
  seed: number;
  label: string;
  clients?: number[];
  /** The first run's start; one run a day. */
  start?: string;
  testDouble?: boolean;
}

export function syntheticResults(o: SyntheticOptions): ResultDocument[] {
  const prng = new Prng(o.seed);
  const start = Date.parse(o.start ?? '2026-01-01T02:00:00Z');
  return Array.from({ length: o.runs }, (_, i) => {
    const factor = o.changeAt !== undefined && i >= o.changeAt ? (o.factor ?? 1) : 1;
    const startedAt = new Date(start + i * 86_400_000).toISOString();
    const steps = (o.clients ?? [1, 4]).map((clients) => {
      const base = o.level * (clients === 1 ? 1 : Math.sqrt(clients) * 1.75);
      return step(clients, Math.round(base * factor * (1 + o.noise * gaussian(prng))));
    });
    return {
      schema: RESULT_SCHEMA,
      tool: { name: 'mongo-bench', version: '0.0.0-test' },
      label: o.label,
      complete: true,
      startedAt,
      finishedAt: new Date(Date.parse(startedAt) + 60_000).toISOString(),
      target: {
        uri: 'mongodb://127.0.0.1:27017',
        topology: 'standalone',
        serverVersion: '7.0.14',
        ...(o.testDouble ? { testDouble: true } : {}),
      },
      workload: { name: '6to1', ops: [] },
      config: {},
      steps,
    };
  });
}
