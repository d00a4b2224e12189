/**
 * The presplit-import result document: versioned JSON, the only input of its report, so any old
 * result can be re-rendered. Raw readings are kept next to the rates derived from them.
 */
import type { StepStorage } from '../../result';
import { ChunkDistribution } from './chunks';
import { PresplitImportSettings, WayName } from './options';
import { CounterReading, RatePoint, Spread } from './rates';

export const PRESPLIT_IMPORT_SCHEMA = 'mongo-bench/presplit-import@1' as const;

export interface SetupStepRecord {
  step: number;
  description: string;
  db: string;
  command: Record<string, unknown>;
  /** applied; skipped (its check found it done); not run (an earlier step failed). */
  status: 'applied' | 'skipped' | 'not run';
}

/** A command the experiment sends around a way's setup (drop the collection, restart the balancer, ...). */
export interface HousekeepingRecord {
  description: string;
  db: string;
  command: Record<string, unknown>;
  ok: boolean;
  error?: string;
}

export interface WayResult {
  way: WayName;
  letter: 'a' | 'b' | 'c';
  title: string;
  description: string;
  /** `mongo-bench scripts <args>` writes the mongosh scripts of this way's setup. */
  scriptsArgs: string[];
  /** Sent before the setup so each way starts from the same state. */
  housekeeping: HousekeepingRecord[];
  setup: SetupStepRecord[];
  setupWarnings: string[];
  complete: boolean;
  incompleteReason?: string;
  /** Set when the way failed (setup or import); the experiment stops there. */
  error?: string;
  import: {
    targetDocs: number;
    /** Acknowledged by the cluster. */
    insertedDocs: number;
    batches: number;
    seconds: number;
    /** insertedDocs / seconds, as the client saw it. */
    docsPerSec: number;
  };
  chunks: { before: ChunkDistribution | null; after: ChunkDistribution | null };
  /** What the imported collection cost on disk after the import, per shard too (lib/server/storage-stats.ts). */
  storage?: StepStorage;
  /** Shard ids in listShards order. */
  shards: string[];
  /** Raw serverStatus readings; t = seconds since sampling began (just before the import). */
  readings: { mongos: CounterReading[]; shards: Record<string, CounterReading[]> };
  /** Inserts per second over each sampling interval (t = the interval's end). */
  perSecond: { shards: Record<string, RatePoint[]>; mongos: RatePoint[]; client: RatePoint[] };
  totals: {
    /** How much each shard's opcounters.insert grew while sampled. */
    perShard: Record<string, number>;
    shardsSum: number;
    /** The mongos counter's growth; null when it never answered twice. */
    mongos: number | null;
    /** Documents the client had acknowledged. */
    client: number;
  };
  /** Readings that failed, per source ("mongos" or a shard id). */
  gaps: Record<string, number>;
  spread: Spread | null;
  peakPerSec: { shards: Record<string, number>; mongos: number; client: number };
}

export interface PresplitImportResult {
  schema: typeof PRESPLIT_IMPORT_SCHEMA;
  tool: { name: string; version: string };
  startedAt: string;
  finishedAt: string;
  /** False when a way was cut short (interrupted, time limit, failure) or not run. */
  complete: boolean;
  incompleteReason?: string;
  target: {
    /** Credentials removed. */
    uri: string;
    serverVersion: string;
    shards: Array<{ id: string; host: string }>;
    /** What the experiment found and put back afterwards. */
    baseline: { balancerMode: string | null; chunkSizeMb: number | null };
    /** Set when the figures come from a test double, never a MongoDB deployment. */
    testDouble?: string;
  };
  settings: Omit<PresplitImportSettings, 'uri'>;
  ways: WayResult[];
  /** Things worth saying that are not failures (a shard that missed readings, restore problems). */
  warnings: string[];
}
