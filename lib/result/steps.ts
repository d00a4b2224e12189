/** The result document's `steps`: one entry per client count of the sweep, with its figures. */
import { z } from 'zod';
import { scenarioEventSchema } from './events';
import { agentStepFiguresSchema } from './agents';
import { clientLoadSchema, latencySummarySchema, opTotalsSchema, ratesSchema } from './latency';

export const perSecondSampleSchema = z.object({
  /** Seconds since the step's measured window began (0, 1, 2, ...). */
  t: z.number(),
  reads: z.number(),
  writes: z.number(),
  errors: z.number(),
  /** Which trial the sample belongs to (1-based), when the step ran several; `t` restarts at 0 per trial. */
  trial: z.number().int().positive().optional(),
  /** With a rate (the open model), by due time: ops due in this second, those never started (dropped), those started late. */
  scheduled: z.number().optional(),
  dropped: z.number().optional(),
  late: z.number().optional(),
  /** The mean latency (µs) of the successful ops completed in this second (the open model's steadiness is judged on it). */
  latencyAvgMicros: z.number().optional(),
  /**
   * The seconds this sample covers when not one whole second: the window's last, partial second (a step of
   * an op count, or one cut short), or 1.x where a tail shorter than 0.2 s was folded into the second
   * before it. Its counts stay counts: divide by `span` for a rate (perSecondRate).
   */
  span: z.number().positive().optional(),
});
export type PerSecondSample = z.infer<typeof perSecondSampleSchema>;

/** The seconds a per-second sample covers: 1, or its `span`. */
export function sampleSpan(sample: PerSecondSample): number {
  return sample.span ?? 1;
}

/** One of a sample's counts as a rate per second of what the sample covers. */
export function perSecondRate(sample: PerSecondSample, count: number): number {
  return count / sampleSpan(sample);
}

/** A rate the engine schedules (lib/workload/language/rate-spec.ts ScheduledRate): constant, or stages that ramp. */
export const requestedRateSchema = z.union([
  z.object({ kind: z.literal('constant'), opsPerSecond: z.number() }),
  z.object({
    kind: z.literal('stages'),
    startRate: z.number(),
    stages: z.array(z.object({ rate: z.number(), seconds: z.number() })),
  }),
]);
export type RequestedRate = z.infer<typeof requestedRateSchema>;

/**
 * The open model's counts for one step (summed over trials): ops due in the measured window
 * (`scheduled`), never started because every client stayed busy past `dropAfterMs` (`dropped`), started
 * more than `lateAfterMs` after their due time (`late`). Per second: the samples' scheduled/dropped/late.
 */
export const stepArrivalSchema = z.object({
  target: requestedRateSchema,
  lateAfterMs: z.number(),
  dropAfterMs: z.number(),
  scheduled: z.number(),
  dropped: z.number(),
  late: z.number(),
  /** Ops whose client was free and waited on a timer for their due time (optional: newer results). */
  timerWaits: z.number().optional(),
  /** How late those timers started them, on average (µs): the load generator's own error, inside every latency. */
  timerLateMicrosAvg: z.number().optional(),
  /**
   * The distribution of that lateness (µs, at least 1: on time to the microsecond reads 1): p50, p99 and
   * the rest, over every trial (optional: newer results).
   */
  waitLateMicros: latencySummarySchema.optional(),
  /**
   * How free clients waited for due times: `exact` (a timer, then the event loop's poller for the last
   * 1.5 ms) or `timer` (millisecond timers alone). Absent in older results, which all waited on timers.
   */
  arrivals: z.enum(['exact', 'timer']).optional(),
});
export type StepArrival = z.infer<typeof stepArrivalSchema>;

export const trialStatsSchema = z.object({
  mean: z.number(),
  median: z.number(),
  stdev: z.number(),
  values: z.array(z.number()),
});
export type TrialStats = z.infer<typeof trialStatsSchema>;

/** Bytes of the benchmarked collection and the cache; `ratio` = (data + indexes) / cache. */
export const stepDataVsCacheSchema = z.object({
  /** Uncompressed data (storageStats.size). */
  dataBytes: z.number().optional(),
  /** On disk (storageStats.storageSize). */
  storageBytes: z.number().optional(),
  indexBytes: z.number().optional(),
  cacheBytes: z.number().optional(),
  ratio: z.number().optional(),
  /**
   * Through a mongos: the shard whose (data + indexes) / its own cache is the largest; `ratio` and
   * `cacheBytes` are then that shard's, while dataBytes, storageBytes and indexBytes stay the collection's
   * sums over shards (absent: one server, or no shard's cache known).
   */
  shard: z.string().optional(),
  /** Through a mongos: each shard's data, indexes, its own cache and ratio. */
  shards: z
    .array(
      z.object({
        shard: z.string(),
        dataBytes: z.number(),
        indexBytes: z.number().optional(),
        cacheBytes: z.number().optional(),
        ratio: z.number().optional(),
      }),
    )
    .optional(),
  /** Why a figure is missing. */
  unavailable: z.string().optional(),
});
export type StepDataVsCache = z.infer<typeof stepDataVsCacheSchema>;

/** A replication timestamp: seconds since the epoch (`t`) and the ordinal within that second (`i`). */
export const oplogTimestampSchema = z.object({ t: z.number(), i: z.number() });

/** One reading of a member's oplog (what mongosh's db.getReplicationInfo() computes). */
export const oplogReadingSchema = z.object({
  /** When it was read (ISO time of the load machine's clock). */
  at: z.string(),
  /** local.oplog.rs storageStats.maxSize: the configured size. */
  configuredBytes: z.number().optional(),
  /** storageStats.size: the bytes of the entries it holds (may pass the configured size while minRetention holds entries). */
  usedBytes: z.number().optional(),
  /** storageStats.count: the entries it holds. */
  entries: z.number().optional(),
  /** The first and last entries' `ts` ($natural order). */
  first: oplogTimestampSchema.optional(),
  last: oplogTimestampSchema.optional(),
});
export type OplogReading = z.infer<typeof oplogReadingSchema>;

/** One replica-set member's oplog over a step, and what the step's writes cost it. */
export const oplogMemberSchema = z.object({
  host: z.string(),
  shard: z.string().optional(),
  set: z.string().optional(),
  /** Before the step's first window opened, and after its last closed. */
  start: oplogReadingSchema.optional(),
  end: oplogReadingSchema.optional(),
  /** Seconds from the start reading to the end reading (the step's trials and warm-ups). */
  seconds: z.number().optional(),
  /** Entries with `ts` after the start reading's last entry, up to the end reading's last. */
  entries: z.number().optional(),
  /** The end reading's usedBytes / entries. */
  averageEntryBytes: z.number().optional(),
  /** entries x averageEntryBytes: the oplog bytes the step wrote. */
  bytes: z.number().optional(),
  bytesPerSecond: z.number().optional(),
  /** configuredBytes / bytesPerSecond: how long the oplog holds at this step's write rate. */
  windowSeconds: z.number().optional(),
  /**
   * True when the oplog wrapped within the step (its first entry at the end is newer than the step's
   * start): `entries` falls short, and `heldSeconds` (the span of the entries it held at the end) is the
   * window, shorter than the step.
   */
  wrapped: z.boolean().optional(),
  /** The end reading's last entry time minus its first: the time span the oplog held. */
  heldSeconds: z.number().optional(),
  /** Each figure that could not be read or computed, with why. */
  missing: z.record(z.string(), z.string()).optional(),
});
export type OplogMember = z.infer<typeof oplogMemberSchema>;

/** The oplog of each replica-set member over the step, and the threshold the `oplog-window` warning uses. */
export const stepOplogSchema = z.object({
  members: z.array(oplogMemberSchema),
  /** The least window the run accepts, in seconds (absent: no warning is given). */
  minWindowSeconds: z.number().optional(),
  /** Where that threshold came from: "--min-oplog-window" or "storage.oplogMinRetentionHours on HOST". */
  minWindowFrom: z.string().optional(),
});
export type StepOplog = z.infer<typeof stepOplogSchema>;

/** One shard's share of `storage` (through a mongos: one `$collStats` document per shard). */
export const shardStorageSchema = z.object({
  /** The shard's name ($collStats `shard`). */
  shard: z.string(),
  /** The member that answered ($collStats `host`), when given. */
  host: z.string().optional(),
  documents: z.number().optional(),
  dataBytes: z.number().optional(),
  storageBytes: z.number().optional(),
  freeStorageBytes: z.number().optional(),
  indexBytes: z.number().optional(),
});
export type ShardStorage = z.infer<typeof shardStorageSchema>;

/**
 * What the benchmarked collection costs on disk, read once the step's measured window closed (lib/server/
 * storage-stats.ts): `$collStats: {storageStats: {}}` (summed over shards), `collStats` where the stage is
 * missing. On WiredTiger `storageBytes` is as of the last checkpoint (storage.syncPeriodSecs, 60 s by
 * default): a shorter step may show the previous checkpoint's figure. A figure the server did not report
 * is absent and `missing` says why; a reported 0 stays 0.
 */
export const stepStorageSchema = z.object({
  /** Where the figures come from: '$collStats' or 'collStats'. */
  source: z.string().optional(),
  /** When the reading was taken (ISO time of the load machine's clock). */
  readAt: z.string(),
  /** Documents in the collection (storageStats.count). */
  documents: z.number().optional(),
  /** Uncompressed BSON of the documents (storageStats.size). */
  dataBytes: z.number().optional(),
  /** Allocated on disk for the documents (storageStats.storageSize), as of the last checkpoint. */
  storageBytes: z.number().optional(),
  /** Of storageBytes, free for reuse (storageStats.freeStorageSize, 4.4+). */
  freeStorageBytes: z.number().optional(),
  /** All the collection's indexes (storageStats.totalIndexSize). */
  indexBytes: z.number().optional(),
  /** Each index by name (storageStats.indexSizes), summed over shards. */
  indexes: z.record(z.string(), z.number()).optional(),
  /** storageBytes / documents: on disk per document. */
  bytesPerDocument: z.number().optional(),
  /** dataBytes / documents: uncompressed per document. */
  logicalBytesPerDocument: z.number().optional(),
  /** indexBytes / documents. */
  indexBytesPerDocument: z.number().optional(),
  /** dataBytes / (storageBytes - freeStorageBytes), only where the engine compresses (a WiredTiger block_compressor). */
  compressionRatio: z.number().optional(),
  /** Through a mongos: each shard's figures. */
  shards: z.array(shardStorageSchema).optional(),
  /**
   * The database's figures from `dbStats` (every collection of the database, the user's too; the data
   * guard's marker collection left out where its own figures could be read): labelled "database".
   */
  database: z
    .object({
      name: z.string(),
      collections: z.number().optional(),
      dataBytes: z.number().optional(),
      storageBytes: z.number().optional(),
      indexBytes: z.number().optional(),
      /** dbStats.fsUsedSize / fsTotalSize: the filesystem the database's files are on. */
      fsUsedBytes: z.number().optional(),
      fsTotalBytes: z.number().optional(),
      missing: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  /** Each figure not reported, by field name, with why (e.g. "the server reports no freeStorageSize"). */
  missing: z.record(z.string(), z.string()).optional(),
});
export type StepStorage = z.infer<typeof stepStorageSchema>;

/**
 * Something that qualifies a step's figures (lib/metrics/warnings.ts computes them from the result; other
 * parts of the run add their own codes): a stable `code`, a sentence, and the figures behind it.
 */
export const stepWarningSchema = z
  .object({
    /** errors, few-samples, mix-not-held, not-steady, timer-late, client-bound, probe-client-bound, nothing-scheduled, nothing-measured, ... */
    code: z.string(),
    message: z.string(),
  })
  .catchall(z.unknown());
export type StepWarning = z.infer<typeof stepWarningSchema>;

/** One trend test (lib/metrics/steadiness.ts) as recorded. */
export const trendRecordSchema = z.object({
  n: z.number(),
  testable: z.boolean(),
  pValue: z.number().nullable(),
  senSlope: z.number().nullable(),
  changePercent: z.number().nullable(),
  trending: z.boolean(),
  /** The trial whose seconds were tested (absent: the step's only trial, or the test across trials). */
  trial: z.number().optional(),
});
export type TrendRecord = z.infer<typeof trendRecordSchema>;

/** Whether the step's seconds (and its trials) were in steady state: the tests behind `not-steady`. */
export const stepSteadinessSchema = z.object({
  /** What was tested: per-second ops/s (closed model) or per-second mean latency (open model: its rate is set by the schedule). */
  series: z.enum(['opsPerSec', 'latencyAvgMicros']),
  perSecond: z.array(trendRecordSchema),
  /** The trials' means in time order, when the step ran several. */
  trials: trendRecordSchema.optional(),
  /** "steadiness not testable (n < 5)" when a series was too short to test. */
  note: z.string().optional(),
});
export type StepSteadiness = z.infer<typeof stepSteadinessSchema>;

/** The classes a failed op is counted in (lib/metrics/error-class.ts classifies from the error's name and code). */
export const ERROR_CLASSES = [
  'network',
  'notWritablePrimary',
  'timeout',
  'serverSelection',
  'other',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** Failed ops by class (only the classes seen). */
export const errorsByClassSchema = z.object({
  network: z.number().optional(),
  notWritablePrimary: z.number().optional(),
  timeout: z.number().optional(),
  serverSelection: z.number().optional(),
  other: z.number().optional(),
});
export type ErrorsByClass = z.infer<typeof errorsByClassSchema>;

export const OUTAGE_KINDS = ['reads', 'writes', 'all'] as const;
export type OutageKind = (typeof OUTAGE_KINDS)[number];

/** One kind's part of an `all` outage: that kind's own outage, from its last success to its next. */
export const outageSpanSchema = z.object({
  kind: z.enum(['reads', 'writes']),
  start: z.string(),
  end: z.string().optional(),
  seconds: z.number(),
  errorsByClass: errorsByClassSchema.optional(),
  opsFailed: z.number().optional(),
});
export type OutageSpan = z.infer<typeof outageSpanSchema>;

export const outageSchema = z.object({
  start: z.string(),
  end: z.string().optional(),
  seconds: z.number(),
  /** What could not be done: reads, writes or both (`all`). Results written before kinds read as `all`. */
  kind: z.enum(OUTAGE_KINDS).default('all'),
  /** Seconds from the opening of its trial's measured window to the outage's start (negative: in the warm-up). */
  at: z.number().optional(),
  /** Its trial (1-based), when the step ran several. */
  trial: z.number().int().positive().optional(),
  /** An `all` outage where a reads and a writes outage overlap (or within a lost server): each kind's own span. */
  spans: z.array(outageSpanSchema).optional(),
  /** The ops that failed in it, by class. */
  errorsByClass: errorsByClassSchema.optional(),
  opsFailed: z.number().optional(),
});
export type Outage = z.infer<typeof outageSchema>;

export const stepAvailabilitySchema = z.object({
  outages: z.array(outageSchema),
  /** Seconds in which some kind was out (every outage and span together, overlaps counted once), summed over trials. */
  unavailableSeconds: z.number().optional(),
  /** Successful ops slower than `stallMs` while their kind had no outage. */
  opsDelayed: z.number().optional(),
  /** --stall-ms the step ran with. */
  stallMs: z.number().optional(),
  /** The slowest op of the step (successful or failed). */
  longestOp: z
    .object({
      kind: z.enum(['reads', 'writes']),
      op: z.string(),
      seconds: z.number(),
      failed: z.boolean().optional(),
    })
    .optional(),
  opsPerSecExcludesSeconds: z.number().optional(),
});
export type StepAvailability = z.infer<typeof stepAvailabilitySchema>;

export const stepResultSchema = z.object({
  clients: z.number().int().positive(),
  /** Measured seconds per trial (warm-up excluded). */
  seconds: z.number(),
  trials: z.number(),
  /** 'failed' when the step hit a fatal error; 'interrupted' when the run was cut short during it. */
  status: z.enum(['ok', 'failed', 'interrupted']).optional(),
  error: z.string().optional(),
  /**
   * What the application could not do during the step (docs/reliability.md defines it): each outage
   * of reads, of writes or of both (`all`), from the last success before it to the first success after
   * it (ISO times of the load machine's clock, or of the coordinator's with agents; no `end` when none
   * came), with the failed ops in it by class; the ops that were only delayed, and the longest op. A step
   * whose outage ended keeps its whole window in opsPerSec; a failed one leaves the dead seconds out
   * (`opsPerSecExcludesSeconds`). Absent in older results (and where nothing was measured).
   */
  availability: stepAvailabilitySchema.optional(),
  /**
   * When the step's measured window opened (ISO, load machine's clock; the first trial's when it ran
   * several): outages are placed from it. Absent in older results.
   */
  windowStartedAt: z.string().optional(),
  /** The run's fault events (`--event`, a config's `events`), as each trial fired them; absent without any. */
  events: z.array(scenarioEventSchema).optional(),
  ops: opTotalsSchema,
  opsPerSec: ratesSchema,
  peakOpsPerSec: ratesSchema,
  latencyMicros: z.object({ reads: latencySummarySchema, writes: latencySummarySchema }),
  /** Per op type (findOne, update, ...): ops of one type together (kept for compatibility; `latencyByOp` tells them apart). */
  latencyByOpMicros: z.record(z.string(), latencySummarySchema).optional(),
  /**
   * Per op of the workload's ops array (µs), in index order: `index` in the array, `op` its type, `name` what
   * it runs (a command's name, else the type), so two aggregates and a distinct stay apart. Successful ops
   * only, summed over trials. Absent in older results and where no one workload applies (the run's step of scenarios).
   */
  latencyByOp: z
    .array(
      latencySummarySchema.extend({
        index: z.number().int().nonnegative(),
        name: z.string(),
        op: z.string(),
      }),
    )
    .optional(),
  /** Across trials, when trials > 1: total ops/sec per trial. */
  trialStats: z
    .object({
      opsPerSec: trialStatsSchema,
      /** When each trial started (its warm-up included), ISO times in trial order; absent in results written before it was kept. */
      startedAt: z.array(z.string()).optional(),
    })
    .optional(),
  perSecond: z.array(perSecondSampleSchema),
  /** benchRun's own field names, so old tooling can read the figures. */
  benchRun: z.record(z.string(), z.number()),
  /** Wall-clock seconds the counted ops took, summed over trials (opsPerSec = ops / elapsedSeconds). */
  elapsedSeconds: z.number().optional(),
  /**
   * Ops started in the window that completed after it closed, summed over trials: in `ops` and the
   * latencies, never in `perSecond` or the peak. `seconds`: the longest overrun of a trial, from the
   * window's close to the last of them. Absent in results written before it was kept.
   */
  overrun: z
    .object({ reads: z.number(), writes: z.number(), errors: z.number(), seconds: z.number() })
    .optional(),
  /**
   * Ops started in the warm-up that completed in the measured window, summed over trials: in no count
   * here (they are not measured), but a server's counters read when the window opened may count them in
   * it (the consistency check allows for them). At most one per client and trial; absent when none.
   */
  inFlightAtOpen: z.number().optional(),
  /** Failed operations grouped by kind (e.g. "DuplicateKey (11000)"), with the first message seen. */
  errorSamples: z
    .array(z.object({ error: z.string(), count: z.number(), example: z.string() }))
    .optional(),
  /**
   * True when a worker's event loop was busy more than 90% of the measured window: the load
   * generator, not the server, set the pace, and the figures measure mongo-bench. Absent in results
   * written before it was recorded.
   */
  clientBound: z.boolean().optional(),
  /** How hard the load generator worked (per worker event-loop utilization, process CPU). */
  client: clientLoadSchema.optional(),
  /** Run through agents (`run --agents N`): each agent's share of the clients and its own figures. */
  agents: z.array(agentStepFiguresSchema).optional(),
  /**
   * A weighted workload (ops with `weight`): measured attempts per op, by index in the workload's ops
   * array, summed over trials; the mix the run drew. Absent for workloads run in order.
   */
  opCounts: z.array(z.number().int().nonnegative()).optional(),
  /** With a rate (the open model): the target and the ops scheduled, dropped and late. Absent without a rate. */
  arrival: stepArrivalSchema.optional(),
  /** The benchmarked collection's data and indexes against the WiredTiger cache, read after the step. */
  dataVsCache: stepDataVsCacheSchema.optional(),
  /** What the benchmarked collection costs on disk, read after the step's measured window closed (the home of byte figures). */
  storage: stepStorageSchema.optional(),
  /** The oplog of each replica-set member at the step's start and end, and the window at the step's write rate. */
  oplog: stepOplogSchema.optional(),
  /** What qualifies the figures (too few samples, errors, not steady, ...); absent in older results and when nothing does. */
  warnings: z.array(stepWarningSchema).optional(),
  /** The steadiness tests behind the `not-steady` warning; absent in older results. */
  steadiness: stepSteadinessSchema.optional(),
  /** `--warmup auto`: how long the warm-up ran (per trial, the longest) and whether it reached steady state before its cap. */
  warmup: z.object({ seconds: z.number(), steady: z.boolean() }).optional(),
});
export type StepResult = z.infer<typeof stepResultSchema>;
