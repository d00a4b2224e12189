/**
 * The result document's optional `server` section: what every process of the deployment did, second
 * by second, and the per-step check of the servers' operation counts against the clients'. Plain
 * data; result@1 readers that do not know it ignore it. Documented in docs/workload.md.
 */
import { z } from 'zod';

/** serverStatus.opcounters, per second or as a count (lib/server-stats/snapshot.ts `OpCounterName`). */
const opCountsSchema = z.object({
  query: z.number().optional(),
  insert: z.number().optional(),
  update: z.number().optional(),
  delete: z.number().optional(),
  getmore: z.number().optional(),
  command: z.number().optional(),
});

const roleSchema = z.enum(['primary', 'secondary', 'mongos', 'standalone', 'other']);

export const serverProcessInfoSchema = z.object({
  /** host:port. */
  id: z.string(),
  kind: z.enum(['mongos', 'mongod']),
  shard: z.string().optional(),
  set: z.string().optional(),
});
export type ServerProcessInfo = z.infer<typeof serverProcessInfoSchema>;

/**
 * One interval of one process, ending at `t` (seconds since sampling began). Rates are per second
 * over the interval; gauges are the value read at `t`. A field the server did not report is absent.
 * `gap: true` marks a reading that failed (no other field).
 */
export const serverPointSchema = z.object({
  t: z.number(),
  gap: z.literal(true).optional(),
  /** Seconds the rates cover. */
  seconds: z.number().optional(),
  role: roleSchema.optional(),
  opsPerSec: opCountsSchema.optional(),
  connections: z.number().optional(),
  queuedReaders: z.number().optional(),
  queuedWriters: z.number().optional(),
  readTicketsOut: z.number().optional(),
  writeTicketsOut: z.number().optional(),
  /** WiredTiger cache in use and dirty, as a share (0..1) of its configured maximum. */
  cacheUsedShare: z.number().optional(),
  cacheDirtyShare: z.number().optional(),
  pagesReadPerSec: z.number().optional(),
  bytesInPerSec: z.number().optional(),
  bytesOutPerSec: z.number().optional(),
  /** On a primary: each other member's lag behind it, in seconds (replSetGetStatus optimes). */
  lagSeconds: z.record(z.string(), z.number()).optional(),
});
export type ServerPoint = z.infer<typeof serverPointSchema>;

/** A measured window (one trial of one step) on the sampler's clock, and what each process counted in it. */
export const serverWindowSchema = z.object({
  clients: z.number(),
  trial: z.number(),
  /** Seconds since sampling began when the window opened and closed (boundary readings). */
  open: z.number(),
  close: z.number(),
  /** Counter deltas between the boundary readings; null when either reading failed. */
  counted: z.record(z.string(), opCountsSchema.nullable()),
  /** Role of each process at the window's close. */
  roles: z.record(z.string(), roleSchema),
  /** Commands the sampler itself sent each process within the window (each counts in opcounters.command). */
  samplerCommands: z.record(z.string(), z.number()),
});
export type ServerWindow = z.infer<typeof serverWindowSchema>;

/** Per step: the operations the servers counted against those the clients counted. */
export const consistencyCheckSchema = z.object({
  clients: z.number(),
  /** 'ok' within the allowance; 'gap' beyond it; 'unchecked' when the servers gave no count. */
  status: z.enum(['ok', 'gap', 'unchecked']),
  /** Which processes and counters were summed, e.g. "primary 127.0.0.1:27017: query+insert+update+delete". */
  counted: z.string(),
  serverOps: z.number().nullable(),
  clientOps: z.number(),
  /** serverOps - clientOps. */
  difference: z.number().nullable(),
  /** 2% of the clients' ops + the sampler's own commands + the clients' failed ops (+ 1 per measured second for the drivers' monitoring hellos when command is compared). */
  allowance: z.number(),
  /**
   * Ops the clients started in the warm-up that completed in the window (the step's inFlightAtOpen): the
   * server may count any of them in its window, so it may count up to this many more than the clients
   * on top of the allowance. Absent when none.
   */
  inFlightAtOpen: z.number().optional(),
  /** Why it is unchecked, what the gap may mean, or that no mongos was sampled (the shards' primaries summed). */
  note: z.string().optional(),
});
export type ConsistencyCheck = z.infer<typeof consistencyCheckSchema>;

export const serverSectionSchema = z.object({
  intervalMs: z.number(),
  /** When sampling began (ISO), the zero of every `t`. */
  startedAt: z.string(),
  processes: z.array(serverProcessInfoSchema),
  /** What could not be sampled, and why (one line each). */
  notes: z.array(z.string()),
  series: z.record(z.string(), z.array(serverPointSchema)),
  windows: z.array(serverWindowSchema),
  checks: z.array(consistencyCheckSchema),
});
export type ServerSection = z.infer<typeof serverSectionSchema>;
