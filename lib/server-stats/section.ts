/**
 * The result document's optional `server` section: what every process of the deployment did, second
 * by second, and the per-step check of the servers' operation counts against the clients'. Plain
 * data; result@1 readers that do not know it ignore it. Documented in docs/workload.md.
 */
import type { OpCounterName } from './snapshot';

export interface ServerProcessInfo {
  /** host:port. */
  id: string;
  kind: 'mongos' | 'mongod';
  shard?: string;
  set?: string;
}

/**
 * One interval of one process, ending at `t` (seconds since sampling began). Rates are per second
 * over the interval; gauges are the value read at `t`. A field the server did not report is absent.
 * `gap: true` marks a reading that failed (no other field).
 */
export interface ServerPoint {
  t: number;
  gap?: true;
  /** Seconds the rates cover. */
  seconds?: number;
  role?: 'primary' | 'secondary' | 'mongos' | 'standalone' | 'other';
  opsPerSec?: Partial<Record<OpCounterName, number>>;
  connections?: number;
  queuedReaders?: number;
  queuedWriters?: number;
  readTicketsOut?: number;
  writeTicketsOut?: number;
  /** WiredTiger cache in use and dirty, as a share (0..1) of its configured maximum. */
  cacheUsedShare?: number;
  cacheDirtyShare?: number;
  pagesReadPerSec?: number;
  bytesInPerSec?: number;
  bytesOutPerSec?: number;
  /** On a primary: each other member's lag behind it, in seconds (replSetGetStatus optimes). */
  lagSeconds?: Record<string, number>;
}

/** A measured window (one trial of one step) on the sampler's clock, and what each process counted in it. */
export interface ServerWindow {
  clients: number;
  trial: number;
  /** Seconds since sampling began when the window opened and closed (boundary readings). */
  open: number;
  close: number;
  /** Counter deltas between the boundary readings; null when either reading failed. */
  counted: Record<string, Partial<Record<OpCounterName, number>> | null>;
  /** Role of each process at the window's close. */
  roles: Record<string, NonNullable<ServerPoint['role']>>;
  /** Commands the sampler itself sent each process within the window (each counts in opcounters.command). */
  samplerCommands: Record<string, number>;
}

/** Per step: the operations the servers counted against those the clients counted. */
export interface ConsistencyCheck {
  clients: number;
  /** 'ok' within the allowance; 'gap' beyond it; 'unchecked' when the servers gave no count. */
  status: 'ok' | 'gap' | 'unchecked';
  /** Which processes and counters were summed, e.g. "primary 127.0.0.1:27017: query+insert+update+delete". */
  counted: string;
  serverOps: number | null;
  clientOps: number;
  /** serverOps - clientOps. */
  difference: number | null;
  /** 2% of the clients' ops + the sampler's own commands + the clients' failed ops (+ 1 per measured second for the drivers' monitoring hellos when command is compared). */
  allowance: number;
  /** Why it is unchecked, what the gap may mean, or that no mongos was sampled (the shards' primaries summed). */
  note?: string;
}

export interface ServerSection {
  intervalMs: number;
  /** When sampling began (ISO), the zero of every `t`. */
  startedAt: string;
  processes: ServerProcessInfo[];
  /** What could not be sampled, and why (one line each). */
  notes: string[];
  series: Record<string, ServerPoint[]>;
  windows: ServerWindow[];
  checks: ConsistencyCheck[];
}
