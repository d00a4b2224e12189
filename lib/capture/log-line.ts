/**
 * One line of a mongod/mongos 4.4+ structured (JSON) log into a ServedOp, or why it is skipped.
 *
 * The format, as the server writes it (repository mongodb/mongo):
 *  - every line is one JSON object {t, s, c, id, ctx, msg, attr} (src/mongo/logv2/json_formatter.cpp,
 *    JSONFormatter::format); `t` is {"$date": ISO-8601} by default;
 *  - a slow operation is id 51803, msg "Slow query", logged by CurOp::completeAndLogOperation
 *    (src/mongo/db/curop.cpp) with attr.type the logical op ("command"; "update"/"remove" for one
 *    statement of a write command, logged from the WRITE component by src/mongo/db/ops/write_ops_exec.cpp,
 *    src/mongo/db/query/write_ops/write_ops_exec.cpp on master),
 *    attr.ns, attr.command, planSummary, keysExamined, docsExamined, nreturned, ninserted,
 *    durationMillis and queryHash (8.0 renames it planCacheShapeHash; OpDebug::report in curop.cpp;
 *    from 8.0 the slowms decision compares workingMillis, not durationMillis, completeAndLogOperation;
 *    the server's jstests assert these fields: jstests/noPassthrough/logs_query_hash.js and its
 *    planCacheShapeHash successor, jstests/libs/log.js's checkLog helpers); a find or aggregate that
 *    leaves its cursor open and each getMore carry `cursorid`, a getMore its `originatingCommand` and,
 *    on the last batch, `cursorExhausted: true` (OpDebug::report: OPDEBUG_TOATTR_HELP(cursorid),
 *    OPDEBUG_TOATTR_HELP_BOOL(cursorExhausted), written only when true; so in the curop.cpp versions
 *    read, of the queryExecutionEngine (6.0) and planCacheShapeHash (8.0 and later) eras);
 *  - each attribute larger than maxLogSizeKB (default 10: kDefaultMaxAttributeOutputSizeKB in
 *    src/mongo/logv2/constants.h) is cut on its own, and the entry gets top-level "truncated" and
 *    "size" objects keyed by the cut attribute's name (JSONValueExtractor::addTruncationReport in
 *    src/mongo/logv2/json_formatter.cpp). Only the value that crossed the limit reports its type and
 *    size (BSONElement::_jsonStringGenerator, src/mongo/bson/bsonelement.cpp: a leaf records
 *    {type, size}; an object or array element only wraps its child's report under its own name), so
 *    an insert whose second document was cut inside its `payload` string reads
 *      "truncated":{"command":{"documents":{"1":{"payload":{"type":"string","size":12000}}}}}
 *    where BSONObj::_jsonStringGenerator (src/mongo/bson/bsonobj.cpp) returns the child's report as
 *    it is (read at commits 0179e7e, 4.4-era, and 8505d60 of mongodb/mongo). On master (commits 1d42410 and 73612fe; not pinned to a
 *    release) that function wraps each object level as {truncated: <child's report>, omitted: N},
 *    N the elements it did not write (the cut leaf and those after it; absent when 0):
 *      "truncated":{"command":{"truncated":{"documents":{"truncated":{"1":{"truncated":
 *        {"payload":{"type":"string","size":12000}},"omitted":1}},"omitted":1}},"omitted":3}}
 *    Both read as the path command.documents.1.payload. The other attributes (ninserted,
 *    durationMillis, ...) are whole. See truncationOutcome for what is kept;
 *  - a failed op carries ok: 0, errMsg, errName and errCode (OpDebug::report).
 */
import { Origin, ServedOp, Skip } from './served-op';
import { isObject, messageOf } from '../common/values';

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
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d{2}:?\d{2})\s+[FEWID]\d?\s+[A-Z_]+\s+\[/.test(
    text,
  );
}

/** Why a line is not JSON: what a person can act on first, the parser's message last. */
function unparsable(text: string, err: unknown, origin: Origin): { skip: Skip } {
  const at = text.indexOf('{"t"');
  if (looksLikeTextLog(text))
    return {
      skip: {
        origin,
        reason: 'does not parse',
        detail: 'a pre-4.4 text log line (capture reads the JSON logs of 4.4 and later)',
      },
    };
  if (at > 0)
    return {
      skip: {
        origin,
        reason: 'does not parse',
        detail: `text before the JSON entry (${JSON.stringify(text.slice(0, Math.min(at, 40)))}): strip it (docker compose logs --no-log-prefix, kubectl logs without --prefix)`,
      },
    };
  if (endsInsideJson(text, err))
    return {
      skip: {
        origin,
        reason: 'cut (the line ends before its JSON does: truncated when logged or pasted)',
        detail: `${text.length} characters; ${messageOf(err)}`,
      },
    };
  return { skip: { origin, reason: 'does not parse', detail: messageOf(err) } };
}

/**
 * The line is a JSON object that stops inside a string or with objects or arrays still open, and the
 * parser failed at its end (V8 names the end: "Unterminated string in JSON at position <length>",
 * "Unexpected end of JSON input"): a line cut when it was written or copied, not a malformed one.
 */
export function endsInsideJson(text: string, err: unknown): boolean {
  const position = /at position (\d+)/.exec(messageOf(err));
  if (position && Number(position[1]) < text.trimEnd().length) return false;
  if (!text.trimStart().startsWith('{')) return false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if ((ch === '}' || ch === ']') && --depth < 0) return false;
  }
  return inString || depth > 0;
}

/** The fields of a Slow query entry's attr a capture reads, as a ServedOp. */
function servedFromAttr(
  entry: Record<string, unknown>,
  attr: Record<string, unknown> & { ns: string; command: Record<string, unknown> },
  kind: ServedOp['kind'],
  origin: Origin,
): ServedOp {
  const shapeHash =
    typeof attr.planCacheShapeHash === 'string'
      ? attr.planCacheShapeHash
      : typeof attr.queryHash === 'string'
        ? attr.queryHash
        : undefined;
  const cursorId = cursorIdOf(attr.cursorid);
  return {
    origin,
    at: logTime(entry.t),
    ns: attr.ns,
    kind,
    command: attr.command,
    durationMillis: num(attr.durationMillis),
    ...(num(attr.workingMillis) !== undefined ? { workingMillis: num(attr.workingMillis) } : {}),
    planSummary: typeof attr.planSummary === 'string' ? attr.planSummary : undefined,
    keysExamined: num(attr.keysExamined),
    docsExamined: num(attr.docsExamined),
    nreturned: num(attr.nreturned),
    ninserted: num(attr.ninserted),
    shapeHash,
    connection: typeof entry.ctx === 'string' ? entry.ctx : undefined,
    ...(cursorId !== undefined ? { cursorId } : {}),
    ...(isObject(attr.originatingCommand) ? { originatingCommand: attr.originatingCommand } : {}),
    ...(attr.cursorExhausted === true ? { cursorExhausted: true } : {}),
    ...failure(attr),
  };
}

/**
 * A cursor id as the decimal text of the number JSON gives for it (a log writes an int64 as a plain
 * number, a profile document through relaxed Extended JSON may write {$numberLong}): both sides of a
 * match go through the same conversion. 0 is "no cursor".
 */
export function cursorIdOf(v: unknown): string | undefined {
  const n = num(v);
  return n !== undefined && n !== 0 ? String(n) : undefined;
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
    return unparsable(text, err, origin);
  }
  if (!isObject(entry) || !('t' in entry) || !('msg' in entry)) {
    return {
      skip: {
        origin,
        reason: 'does not parse',
        detail: 'not a structured log entry ({t, s, c, id, ctx, msg, attr})',
      },
    };
  }
  if (num(entry.id) !== SLOW_QUERY_LOG_ID) return undefined;
  const attr = entry.attr;
  let kept: string[] | undefined;
  if ('truncated' in entry) {
    const outcome = truncationOutcome(entry.truncated, attr);
    if ('skip' in outcome)
      return {
        skip: { origin, reason: 'truncated by the server (maxLogSizeKB)', detail: outcome.skip },
      };
    kept = outcome.kept;
  }
  if (!isObject(attr) || typeof attr.ns !== 'string' || !isObject(attr.command)) {
    return {
      skip: {
        origin,
        reason: 'does not parse',
        detail: 'a Slow query entry without attr.ns and attr.command',
      },
    };
  }
  const type = attr.type;
  if (type !== 'command' && type !== 'update' && type !== 'remove') {
    // "query", "getmore", "insert", "killcursors": legacy opcodes (OP_QUERY, ...), not sent by current drivers.
    return {
      skip: {
        origin,
        reason: 'not a workload command',
        detail: `legacy op type ${JSON.stringify(type)}`,
      },
    };
  }
  const served = servedFromAttr(
    entry,
    attr as Record<string, unknown> & { ns: string; command: Record<string, unknown> },
    type,
    origin,
  );
  return { served: kept ? { ...served, truncated: kept } : served };
}

/** `ok: 0` with the server's errName / errCode (a log's attr or a profile document: OpDebug::report / append). */
export function failure(fields: Record<string, unknown>): { failed?: ServedOp['failed'] } {
  if (num(fields.ok) !== 0) return {};
  return {
    failed: {
      ...(typeof fields.errName === 'string' ? { errName: fields.errName } : {}),
      ...(num(fields.errCode) !== undefined ? { errCode: num(fields.errCode) } : {}),
    },
  };
}

/** What the op must replay, by the command field the server cut: for the skip's detail. */
const CUT_ROLE: Record<string, string> = {
  q: 'filter',
  u: 'update',
  filter: 'filter',
  query: 'filter',
  update: 'update',
  updates: 'update statements',
  deletes: 'delete statements',
  pipeline: 'pipeline',
  sort: 'sort',
  projection: 'projection',
  fields: 'projection',
};

/** The value that crossed the limit: {type, size} (BSONElement::_jsonStringGenerator, JSONValueExtractor::storeQuoted). */
function isCutValue(report: unknown): boolean {
  return isObject(report) && 'type' in report && 'size' in report && !isObject(report.type);
}

/** One object level of the master report: {truncated: {...}, omitted?: N} (BSONObj::_jsonStringGenerator). */
function isWrappedLevel(report: unknown): report is { truncated: Record<string, unknown> } {
  return (
    isObject(report) &&
    isObject(report.truncated) &&
    Object.keys(report).every(
      (k) => k === 'truncated' || (k === 'omitted' && num(report[k]) !== undefined),
    )
  );
}

const joinPath = (prefix: string, key: string) => (prefix ? `${prefix}.${key}` : key);

/** 4.4 to 8.0: each level is keyed by the field names down to the cut value. */
function plainCutPaths(report: unknown, prefix: string): string[] {
  if (!isObject(report) || isCutValue(report)) return [prefix];
  const keys = Object.keys(report);
  if (keys.length === 0) return [prefix];
  return keys.flatMap((k) => plainCutPaths(report[k], joinPath(prefix, k)));
}

/** Master: each object level wraps its field's report; a field holds a cut value or another level. */
function wrappedCutPaths(level: { truncated: Record<string, unknown> }, prefix: string): string[] {
  return Object.entries(level.truncated).flatMap(([k, v]) =>
    isWrappedLevel(v)
      ? wrappedCutPaths(v, joinPath(prefix, k))
      : plainCutPaths(v, joinPath(prefix, k)),
  );
}

/**
 * Paths of the truncation report ("command.q._id.$in"), down to the value the server cut, in either
 * form. The form is told apart per attribute: the master form wraps the attribute's object itself
 * ({truncated, omitted?}), and no command's first field is named "truncated".
 */
function cutPaths(report: unknown): string[] {
  if (!isObject(report) || Object.keys(report).length === 0) return [''];
  return Object.entries(report).flatMap(([attribute, v]) =>
    isWrappedLevel(v) ? wrappedCutPaths(v, attribute) : plainCutPaths(v, attribute),
  );
}

/**
 * An entry the server cut: kept when all it cut is an insert's `documents` (the replay needs the
 * collection and `ninserted`, a separate, whole attribute: capture never replays logged documents),
 * otherwise skipped, naming the attribute that was cut and what the op needed from it.
 */
export function truncationOutcome(
  report: unknown,
  attr: unknown,
): { kept: string[] } | { skip: string } {
  const paths = cutPaths(report);
  const ns = isObject(attr) && typeof attr.ns === 'string' ? ` on ${attr.ns}` : '';
  const command = isObject(attr) && isObject(attr.command) ? attr.command : undefined;
  const isInsert = command !== undefined && typeof command.insert === 'string';
  const documentsOnly =
    paths.length > 0 &&
    paths.every((p) => p === 'command.documents' || p.startsWith('command.documents.'));
  if (isInsert && documentsOnly && isObject(attr) && num(attr.ninserted) !== undefined)
    return { kept: paths };
  const first = paths[0] ?? '';
  const [attribute, field] = first.split('.');
  const role = field !== undefined ? CUT_ROLE[field] : undefined;
  const what =
    attribute === 'command'
      ? `its command's ${field ?? 'body'}${role ? ` (the ${role} a replay needs)` : ''}`
      : `attribute ${attribute}`;
  const why = isInsert && documentsOnly ? ' and ninserted is missing' : '';
  return { skip: `cut: attr.${first}${ns}: ${what} is incomplete${why}` };
}

/**
 * A line pasted from \`docker compose logs\` starts with the service's name and a bar
 * (\`db_1  | {"t":...}\`, \`mongo-1  | {...}\`): the prefix, or undefined when there is none.
 */
export function composePrefix(text: string): string | undefined {
  const m = /^([A-Za-z0-9][\w.-]*\s*\|\s?)\{"t"/.exec(text);
  return m ? m[1] : undefined;
}
