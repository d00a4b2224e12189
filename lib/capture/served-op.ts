/**
 * What a server served, as one record whichever source it came from (a log's Slow query entry, a
 * profiler document), and why a record was skipped. Plain data between the readers and the shaper.
 */

/** Where a record came from: `file:line` for a log, `system.profile #n` for the profiler. */
export type Origin = string;

export interface ServedOp {
  origin: Origin;
  /** When the server finished it (the log line's `t`, the profile document's `ts`). */
  at?: Date;
  /** "db.collection" (for commands on the database, "db.$cmd"). */
  ns: string;
  /** `command` (COMMAND component), or one statement of a write command: `update` / `remove` (WRITE component). */
  kind: 'command' | 'update' | 'remove';
  /** The command as the server logged it ({find: ...}, or {q, u, multi, upsert} for a statement); values as Extended JSON. */
  command: Record<string, unknown>;
  durationMillis?: number;
  planSummary?: string;
  keysExamined?: number;
  docsExamined?: number;
  nreturned?: number;
  ninserted?: number;
  /** queryHash, or from 8.0 planCacheShapeHash: the server's own grouping of the shape. */
  shapeHash?: string;
  /** The connection (log `ctx`): pairs a write command with the statements logged before it. */
  connection?: string;
  /**
   * 8.0 and later: the time slowms is compared with (durationMillis less waits for locks and tickets;
   * OpDebug::report writes `workingMillis`, CurOp::completeAndLogOperation compares it).
   */
  workingMillis?: number;
  /**
   * The cursor this op opened or continued: `cursorid` (OpDebug::report / OpDebug::append write it for
   * a find or aggregate that left a cursor open and for each getMore), as the decimal text of its number.
   */
  cursorId?: string;
  /** A getMore's opening find or aggregate as the client sent it (`originatingCommand`, same functions). */
  originatingCommand?: Record<string, unknown>;
  /** A getMore that returned the cursor's last batch (`cursorExhausted: true`, written only when true). */
  cursorExhausted?: boolean;
  /**
   * The server's error when the op failed: the log's `ok: 0, errName, errCode` (OpDebug::report,
   * src/mongo/db/curop.cpp), the profiler's `ok: 0.0, errName, errCode` (OpDebug::append).
   */
  failed?: { errName?: string; errCode?: number };
  /**
   * The attributes the server cut at maxLogSizeKB when the entry was kept anyway (an insert whose
   * `documents` were cut: `ninserted`, a separate attribute, is what its replay needs).
   */
  truncated?: string[];
}

/**
 * What `$queryStats` says one shape served (./query-stats): executions and the sums of their times, in
 * the span read (the whole entry, or two snapshots' difference). max/min are the entry's since it was
 * first seen.
 */
export interface QueryStatsMetrics {
  execCount: number;
  execMicros?: number;
  firstResponseMicros?: number;
  docsReturned?: number;
  maxMicros?: number;
  minMicros?: number;
  firstSeen?: Date;
  latestSeen?: Date;
}

/** Why a line or document is not part of the workload. The report lists every reason with a count. */
export type SkipReason =
  | 'not a Slow query entry'
  | 'internal namespace (admin, config, local)'
  | 'not a workload command'
  | 'getMore (part of its cursor)'
  | 'truncated by the server (maxLogSizeKB)'
  | 'does not parse'
  | 'cut (the line ends before its JSON does: truncated when logged or pasted)'
  | 'write command already counted by its statements'
  | 'failed on the server'
  | "forwarded by a mongos (a shard's part of a split pipeline)"
  | 'counted by its statement lines (sampled log)'
  | 'identifiers hashed (transformIdentifiers)'
  | 'not run between the snapshots'
  | 'a literal that cannot be generated'
  | 'a field the replay op cannot send';

export interface Skip {
  origin: Origin;
  reason: SkipReason;
  /** e.g. the command name, or the parser's message. */
  detail?: string;
}

/** The databases whose traffic is the server's own (or an admin's), never an application's workload. */
export const INTERNAL_DATABASES = new Set(['admin', 'config', 'local']);

export function databaseOf(ns: string): string {
  const dot = ns.indexOf('.');
  return dot < 0 ? ns : ns.slice(0, dot);
}
