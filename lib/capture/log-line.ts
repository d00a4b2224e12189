/**
 * One line of a mongod/mongos 4.4+ structured (JSON) log into a ServedOp, or why it is skipped.
 *
 * The format, as the server writes it (repository mongodb/mongo):
 *  - every line is one JSON object {t, s, c, id, ctx, msg, attr} (src/mongo/logv2/json_formatter.cpp,
 *    JSONFormatter::format); `t` is {"$date": ISO-8601} by default;
 *  - a slow operation is id 51803, msg "Slow query", logged by CurOp::completeAndLogOperation
 *    (src/mongo/db/curop.cpp) with attr.type the logical op ("command"; "update"/"remove" for one
 *    statement of a write command, logged from the WRITE component by src/mongo/db/ops/write_ops_exec.cpp),
 *    attr.ns, attr.command, planSummary, keysExamined, docsExamined, nreturned, ninserted,
 *    durationMillis and queryHash (8.0 renames it planCacheShapeHash; OpDebug::report in curop.cpp;
 *    the server's jstests assert these fields: jstests/noPassthrough/logs_query_hash.js and its
 *    planCacheShapeHash successor, jstests/libs/log.js's checkLog helpers);
 *  - an entry whose attributes were larger than maxLogSizeKB is cut by the server and marked with a
 *    top-level "truncated" object (and "size") beside attr (json_formatter.cpp, the truncation
 *    bookkeeping of JSONFormatter); its command is incomplete, so it cannot be replayed.
 */
import { Origin, ServedOp, Skip } from './served-op';
import { isObject } from '../common/values';

/** The Slow query entry's id (LOGV2 id 51803 in CurOp::completeAndLogOperation). */
export const SLOW_QUERY_LOG_ID = 51803;

export type LineOutcome = { served: ServedOp } | { skip: Skip };

function num(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (isObject(v)) {
    const n = v.$numberLong ?? v.$numberInt ?? v.$numberDouble;
    if (typeof n === 'string' && n.trim() !== '' && Number.isFinite(Number(n))) return Number(n);
  }
  return undefined;
}

/** The `t` field: {"$date": "2020-05-01T15:16:17.180+00:00"} (iso8601-local/utc) or {"$date": {"$numberLong": ms}}. */
export function logTime(t: unknown): Date | undefined {
  if (!isObject(t)) return undefined;
  const d = t.$date;
  const ms = typeof d === 'string' ? Date.parse(d) : num(d);
  return ms !== undefined && Number.isFinite(ms) ? new Date(ms) : undefined;
}

/** A pre-4.4 text log line ("2019-07-01T10:00:00.000+0000 I COMMAND [conn1] ..."): worth its own message. */
export function looksLikeTextLog(text: string): boolean {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d{2}:?\d{2})\s+[FEWID]\d?\s+[A-Z_]+\s+\[/.test(text);
}

/**
 * Parses one line. Returns undefined for a valid log entry that is not a Slow query entry (most of
 * a log: connections, storage, replication) so callers can count those without keeping them.
 */
export function parseLogLine(text: string, origin: Origin): LineOutcome | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch (err) {
    const why = looksLikeTextLog(text) ? 'a pre-4.4 text log line (capture reads the JSON logs of 4.4 and later)' : (err as Error).message;
    return { skip: { origin, reason: 'does not parse', detail: why } };
  }
  if (!isObject(entry) || !('t' in entry) || !('msg' in entry)) {
    return { skip: { origin, reason: 'does not parse', detail: 'not a structured log entry ({t, s, c, id, ctx, msg, attr})' } };
  }
  if (num(entry.id) !== SLOW_QUERY_LOG_ID) return undefined;
  const attr = entry.attr;
  if ('truncated' in entry) {
    const ns = isObject(attr) && typeof attr.ns === 'string' ? ` (${attr.ns})` : '';
    return { skip: { origin, reason: 'truncated by the server (maxLogSizeKB)', detail: `the logged command is incomplete${ns}` } };
  }
  if (!isObject(attr) || typeof attr.ns !== 'string' || !isObject(attr.command)) {
    return { skip: { origin, reason: 'does not parse', detail: 'a Slow query entry without attr.ns and attr.command' } };
  }
  const type = attr.type;
  if (type !== 'command' && type !== 'update' && type !== 'remove') {
    // "query", "getmore", "insert", "killcursors": legacy opcodes (OP_QUERY, ...), not sent by current drivers.
    return { skip: { origin, reason: 'not a workload command', detail: `legacy op type ${JSON.stringify(type)}` } };
  }
  const shapeHash = typeof attr.planCacheShapeHash === 'string' ? attr.planCacheShapeHash : typeof attr.queryHash === 'string' ? attr.queryHash : undefined;
  const served: ServedOp = {
    origin,
    at: logTime(entry.t),
    ns: attr.ns,
    kind: type,
    command: attr.command,
    durationMillis: num(attr.durationMillis),
    planSummary: typeof attr.planSummary === 'string' ? attr.planSummary : undefined,
    keysExamined: num(attr.keysExamined),
    docsExamined: num(attr.docsExamined),
    nreturned: num(attr.nreturned),
    ninserted: num(attr.ninserted),
    shapeHash,
    connection: typeof entry.ctx === 'string' ? entry.ctx : undefined,
  };
  return { served };
}
