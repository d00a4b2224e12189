/**
 * The Server Density write-concern script (David Mytton, 2013): single inserts of {a: 1, b: 'hat'},
 * one at a time, each timed from the call to its return. The batch runs `rounds` times (the seed: twice)
 * and only the last round is kept, so collection creation and connection set-up stay out of the figures.
 */
import { Collection, MongoClient, WriteConcernSettings } from 'mongodb';
import { LatencyRecorder } from '../../metrics/latency';
import { messageOf } from '../../common/values';

export interface WriteConcernLatencyParams {
  /** Inserts per round. The seed: 200. */
  inserts: number;
  /** Rounds run; the last is kept. The seed: 2. */
  rounds: number;
}

export interface LatencyStatsMs {
  count: number;
  avg: number;
  min: number;
  max: number;
  p50: number;
  p99: number;
}

export interface WriteConcernLatencyMeasurement {
  /** Every kept insert's latency in ms, in the order they ran. */
  samplesMs: number[];
  stats: LatencyStatsMs;
  /** The discarded rounds' averages (ms), to show the warm-up effect. */
  discardedAvgMs: number[];
  errors: number;
  firstError?: string;
  /** Wall-clock seconds of the kept round. */
  elapsedSeconds: number;
  /** Inserts completed per second of the kept round. */
  perSecond: number[];
  recorder: LatencyRecorder;
  interrupted: boolean;
}

/** Nearest-rank percentile of sorted values (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Exact statistics of a few hundred samples (no histogram rounding). */
export function latencyStats(samplesMs: readonly number[]): LatencyStatsMs {
  if (samplesMs.length === 0) return { count: 0, avg: 0, min: 0, max: 0, p50: 0, p99: 0 };
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return {
    count: sorted.length,
    avg: sorted.reduce((s, v) => s + v, 0) / sorted.length,
    min: sorted[0],
    max: sorted[sorted.length - 1],
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

interface Round {
  samplesMs: number[];
  errors: number;
  firstError?: string;
  seconds: number;
  perSecond: number[];
}

async function insertRound(
  coll: Collection,
  inserts: number,
  writeConcern: WriteConcernSettings | undefined,
  signal?: AbortSignal,
): Promise<Round> {
  const samplesMs: number[] = [];
  const perSecond: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const options = writeConcern ? { writeConcern } : {};
  const started = performance.now();
  for (let i = 0; i < inserts && !signal?.aborted; i++) {
    // A fresh object each time: the driver adds _id to the document it is given.
    const doc = { a: 1, b: 'hat' };
    const t0 = performance.now();
    try {
      await coll.insertOne(doc, options);
      const t1 = performance.now();
      samplesMs.push(t1 - t0);
      const second = Math.floor((t1 - started) / 1000);
      while (perSecond.length <= second) perSecond.push(0);
      perSecond[second] += 1;
    } catch (err) {
      errors += 1;
      firstError ??= messageOf(err);
    }
  }
  return {
    samplesMs,
    errors,
    firstError,
    seconds: (performance.now() - started) / 1000,
    perSecond,
  };
}

export async function runWriteConcernLatency(
  client: MongoClient,
  db: string,
  coll: string,
  params: WriteConcernLatencyParams,
  writeConcern: WriteConcernSettings | undefined,
  hooks: { signal?: AbortSignal } = {},
): Promise<WriteConcernLatencyMeasurement> {
  const collection = client.db(db).collection(coll);
  const rounds: Round[] = [];
  for (let r = 0; r < Math.max(1, params.rounds) && !hooks.signal?.aborted; r++) {
    rounds.push(await insertRound(collection, params.inserts, writeConcern, hooks.signal));
  }
  const kept = rounds[rounds.length - 1] ?? { samplesMs: [], errors: 0, seconds: 0, perSecond: [] };
  const recorder = new LatencyRecorder();
  for (const ms of kept.samplesMs) recorder.record(ms * 1000);
  return {
    samplesMs: kept.samplesMs,
    stats: latencyStats(kept.samplesMs),
    discardedAvgMs: rounds.slice(0, -1).map((r) => latencyStats(r.samplesMs).avg),
    errors: kept.errors,
    firstError: kept.firstError,
    elapsedSeconds: kept.seconds,
    perSecond: kept.perSecond,
    recorder,
    interrupted: hooks.signal?.aborted === true,
  };
}
