/**
 * The oplog of each replica-set member at a step's start and end, and how long it holds at the step's
 * write rate: what mongosh's `rs.printReplicationInfo()` computes (@mongosh/shell-api lib/database.js
 * getReplicationInfo: `local.oplog.rs` stats' `maxSize` is the configured size, `size` the used size, the
 * first and last entries in `$natural` order give the time span), read over the sampler's per-process
 * connections, before the step's first window opens and after its last closes (never inside one).
 *
 * Where the fields come from (server source, src/mongo/db/stats/storage_stats.cpp
 * appendCollectionStorageStats: `size`, `count`, and for a capped collection such as the oplog `capped`,
 * `max` and `maxSize`; a real reply of `$collStats` on local.oplog.rs with those fields is DataDog's
 * fixture, integrations-core mongo/tests/fixtures/$collStats-oplog.rs). Every oplog entry has `ts`, a
 * Timestamp (src/mongo/db/repl/oplog_entry.idl). The oplog may grow past maxSize while
 * `storage.oplogMinRetentionHours` (4.4+, MongoDB Manual: replica set oplog, minimum retention) keeps
 * entries, so `size` may pass `maxSize` (mongosh takes the larger as logSizeMB).
 *
 * The step's oplog bytes: the entries with `ts` after the start reading's last entry and up to the end
 * reading's last (a `count` over a `ts` range, read after the window closed) times the oplog's average
 * entry size (size / count at the end); this holds whether or not the oplog is full. When the oplog wraps
 * within the step (its first entry at the end is newer than the step's start), the entries the count
 * needs are gone: the step says so, and the window is what the oplog held at the end, shorter than the step.
 */
import { Timestamp } from 'mongodb';
import type { OplogMember, OplogReading, ServerProcessFacts, StepOplog } from '../result';
import { messageOf } from '../common/values';
import { numberOf } from '../server-stats/snapshot';

type Doc = Record<string, unknown>;
/** A command on one process, on database `db` (default admin). */
export type DbCommand = (command: Doc, db?: string) => Promise<Doc>;

/** A number from a number, a bigint or a BSON Long / Double; undefined for anything else. */
const num = numberOf;

/** A BSON Timestamp (or the driver's {t, i} / high-low form) as {t, i}. */
export function tsOf(v: unknown): { t: number; i: number } | undefined {
  if (v instanceof Timestamp) return { t: v.high, i: v.low };
  if (v && typeof v === 'object') {
    const o = v as Doc;
    if (typeof o.t === 'number' && typeof o.i === 'number') return { t: o.t, i: o.i };
    if (typeof o.high === 'number' && typeof o.low === 'number')
      return { t: o.high >>> 0, i: o.low >>> 0 };
  }
  return undefined;
}

/** a < b, as replication timestamps compare. */
export function tsBefore(a: { t: number; i: number }, b: { t: number; i: number }): boolean {
  return a.t < b.t || (a.t === b.t && a.i < b.i);
}

/** One reading from the oplog's stats and its first and last entries (null: the oplog is empty). */
export function oplogReadingFrom(
  stats: Doc | undefined,
  first: Doc | null | undefined,
  last: Doc | null | undefined,
  at: Date,
): OplogReading {
  const reading: OplogReading = { at: at.toISOString() };
  const configured = num(stats?.maxSize);
  const used = num(stats?.size);
  const entries = num(stats?.count);
  if (configured !== undefined) reading.configuredBytes = configured;
  if (used !== undefined) reading.usedBytes = used;
  if (entries !== undefined) reading.entries = entries;
  const f = tsOf(first?.ts);
  const l = tsOf(last?.ts);
  if (f) reading.first = f;
  if (l) reading.last = l;
  return reading;
}

const round = (v: number, places = 1): number => Math.round(v * 10 ** places) / 10 ** places;

/**
 * The step's figures for one member from its two readings and the count of entries between them.
 * `entries` undefined: the count could not be read (`countError` says why).
 */
export function oplogStepFigures(
  member: Pick<OplogMember, 'host' | 'shard' | 'set'>,
  start: OplogReading | undefined,
  end: OplogReading | undefined,
  entries: number | undefined,
  countError?: string,
): OplogMember {
  const out: OplogMember = { ...member };
  const missing: Record<string, string> = {};
  if (start) out.start = start;
  if (end) out.end = end;
  if (!start || !end) {
    missing.bytes = `no ${!start ? 'start' : 'end'} reading of local.oplog.rs`;
    out.missing = missing;
    return out;
  }
  const seconds = (Date.parse(end.at) - Date.parse(start.at)) / 1000;
  out.seconds = round(seconds, 3);
  if (end.first && end.last) out.heldSeconds = end.last.t - end.first.t;
  if (start.last && end.first && tsBefore(start.last, end.first)) {
    // The entries written since the step's start are no longer all there: the oplog wrapped.
    out.wrapped = true;
    missing.bytes =
      'the oplog wrapped within the step: entries written in it were already truncated, so a count falls short';
    if (out.heldSeconds !== undefined) out.windowSeconds = out.heldSeconds;
  }
  if (entries !== undefined) out.entries = entries;
  else missing.entries = countError ?? 'the count of entries was not read';
  if (end.usedBytes !== undefined && end.entries !== undefined && end.entries > 0)
    out.averageEntryBytes = round(end.usedBytes / end.entries);
  else missing.averageEntryBytes = 'the oplog reported no size or count, or holds no entries';
  if (!out.wrapped && entries !== undefined && out.averageEntryBytes !== undefined) {
    out.bytes = Math.round(entries * out.averageEntryBytes);
    if (seconds > 0) {
      out.bytesPerSecond = round(out.bytes / seconds);
      if (end.configuredBytes === undefined)
        missing.windowSeconds = 'the oplog reported no maxSize';
      else if (out.bytes === 0)
        missing.windowSeconds = 'the step wrote nothing to the oplog: no rate to divide by';
      else out.windowSeconds = round(end.configuredBytes / out.bytesPerSecond);
    } else missing.bytesPerSecond = 'the readings were taken at the same instant';
  }
  if (Object.keys(missing).length > 0) out.missing = missing;
  return out;
}

/** Reads the oplog's stats and its first and last entries on one member. */
export async function readOplog(command: DbCommand): Promise<OplogReading> {
  const at = new Date();
  let stats: Doc | undefined;
  try {
    const reply = await command(
      { aggregate: 'oplog.rs', pipeline: [{ $collStats: { storageStats: {} } }], cursor: {} },
      'local',
    );
    const batch = ((reply.cursor as Doc | undefined)?.firstBatch ?? []) as Doc[];
    stats = batch[0]?.storageStats as Doc | undefined;
  } catch {
    stats = undefined;
  }
  if (!stats || num(stats.maxSize) === undefined)
    stats = await command({ collStats: 'oplog.rs' }, 'local');
  const edge = async (direction: 1 | -1): Promise<Doc | null> => {
    const reply = await command(
      {
        find: 'oplog.rs',
        sort: { $natural: direction },
        limit: 1,
        projection: { ts: 1 },
        singleBatch: true,
      },
      'local',
    );
    return (((reply.cursor as Doc | undefined)?.firstBatch ?? []) as Doc[])[0] ?? null;
  };
  const [first, last] = [await edge(1), await edge(-1)];
  return oplogReadingFrom(stats, first, last, at);
}

/** The entries with ts after `after` and up to `upTo` (both the readings' last entries). */
export async function countEntriesBetween(
  command: DbCommand,
  after: { t: number; i: number },
  upTo: { t: number; i: number },
): Promise<number> {
  const reply = await command(
    {
      count: 'oplog.rs',
      query: {
        ts: {
          $gt: new Timestamp({ t: after.t, i: after.i }),
          $lte: new Timestamp({ t: upTo.t, i: upTo.i }),
        },
      },
    },
    'local',
  );
  const n = num(reply.n);
  if (n === undefined) throw new Error(`count gave no n: ${JSON.stringify(reply).slice(0, 120)}`);
  return n;
}

/** The step's figures for one member: the count read after the window closed, then the arithmetic. */
export async function memberStepFigures(
  command: DbCommand,
  member: Pick<OplogMember, 'host' | 'shard' | 'set'>,
  start: OplogReading | undefined,
  end: OplogReading | undefined,
): Promise<OplogMember> {
  let entries: number | undefined;
  let countError: string | undefined;
  if (start?.last && end?.last) {
    try {
      entries = await countEntriesBetween(command, start.last, end.last);
    } catch (err) {
      countError = `count on local.oplog.rs: ${String(messageOf(err)).slice(0, 120)}`;
    }
  } else countError = 'no last entry in a reading';
  return oplogStepFigures(member, start, end, entries, countError);
}

/**
 * The threshold of the `oplog-window` warning: `--min-oplog-window` (seconds) when given, else the largest
 * `storage.oplogMinRetentionHours` a process was started with (getCmdLineOpts, kept in target.processes
 * options); none: no warning.
 */
export function oplogThreshold(
  minOplogWindowSeconds: number | undefined,
  processes: readonly ServerProcessFacts[] | undefined,
): Pick<StepOplog, 'minWindowSeconds' | 'minWindowFrom'> {
  if (minOplogWindowSeconds !== undefined)
    return { minWindowSeconds: minOplogWindowSeconds, minWindowFrom: '--min-oplog-window' };
  let best: { hours: number; host: string } | undefined;
  for (const p of processes ?? []) {
    const storage = p.options?.storage as Doc | undefined;
    const hours = num(storage?.oplogMinRetentionHours);
    if (hours !== undefined && hours > 0 && (!best || hours > best.hours))
      best = { hours, host: p.host };
  }
  return best
    ? {
        minWindowSeconds: best.hours * 3600,
        minWindowFrom: `storage.oplogMinRetentionHours on ${best.host}`,
      }
    : {};
}
