/**
 * `$queryStats` as a capture source: the server's per-shape execution counts and latency, without
 * logging each op, into the same weighted workload as a log or the profiler.
 *
 * What the server writes (the MongoDB Manual's $queryStats page, its "Output" table and examples;
 * DocumentSourceQueryStats::toDocument in src/mongo/db/pipeline/document_source_query_stats.cpp and
 * QueryStatsEntry::toBSON in src/mongo/db/query/query_stats/query_stats_entry.cpp): one document per
 * query stats key, `{key: {queryShape: {cmdNs: {db, coll}, command, filter | pipeline | query, ...},
 * client, collectionType, readConcern?, hint?, ...}, keyHash, queryShapeHash, metrics: {execCount,
 * lastExecutionMicros, totalExecMicros: {sum, max, min, sumOfSquares}, firstResponseExecMicros,
 * docsReturned, firstSeenTimestamp, latestSeenTimestamp, ...}, asOf}`. Read in every form seen:
 *  - `asOf`: a Timestamp in the Manual's examples; a Date on master (toDocument appends the partition's
 *    read time, a Date_t; commit bdc31e1 of mongodb/mongo, not pinned to a release);
 *  - metrics flat (the Manual's examples; query_stats_entry.cpp at commit 10db8d6), or grouped where the
 *    server builds subsections (master, commit 0776702: QueryStatsEntry::toBSON(buildSubsections)
 *    moves firstResponseExecMicros under `cursor` and docsReturned, keysExamined, ... under
 *    `queryExec`, the planner's flags under `queryPlanner`, and adds `writes: {nMatched, nUpserted,
 *    nModified, nDeleted, nInserted}` for write shapes; execCount and totalExecMicros stay on top);
 *  - the shapes: find, aggregate and distinct (the Manual), count (on later releases), and the writes
 *    where the server collects them: `{command: "update", q, u, c?, arrayFilters?, multi, upsert, let?}`
 *    (UpdateCmdShapeComponents::appendTo, src/mongo/db/query/query_shape/update_cmd_shape.cpp, behind
 *    featureFlagQueryStatsUpdateCommand; one stored copy of the Manual's page for its upcoming release
 *    lists count() and update() among the queries the stage collects, an older copy find, aggregate
 *    and distinct only), `{command: "delete", q, limit: 0 | 1, let?}` (DeleteCmdShapeComponents::appendTo,
 *    delete_cmd_shape.cpp, writeMultiDeleteProperty: limit 0 is multi; featureFlagQueryStatsDelete)
 *    and `{command: "insert", documents: "?array<?object>"}` (InsertCmdShapeComponents::appendTo,
 *    insert_cmd_shape.cpp; featureFlagQueryStatsInsert); the key adds `ordered` and
 *    `bypassDocumentValidation` (WriteCmdComponents::appendTo, query_stats/write_key.cpp). The write
 *    shapes are master's (write_cmd_shape_registration.cpp), not pinned to a release.
 * Literals are replaced by their type ("?string", "?number", "?array<?number>", ...: the type strings
 * of src/mongo/db/query/serialization_options.cpp), so no value of the user's exists:
 * ./query-stats-values gives each one a value from the --docs-like template or a generator of its type.
 * `execCount` and the sums count since the entry was first seen: two snapshots' difference is the
 * workload of the time between them. Unknown fields are ignored.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { UsageError } from '../config/errors';
import { isObject, messageOf } from '../common/values';
import { CaptureBuilder, CaptureOutcome, QueryStatsReading, SourceRecord } from './capture';
import { QueryStatsMetrics, ServedOp, Skip } from './served-op';
import { emptyCounts, fillPlaceholders, LiteralCounts, ValueSource } from './query-stats-values';

/** One entry of a snapshot, as read (numbers as numbers). */
export interface QueryStatsEntry {
  origin: string;
  /** keyHash, or the key's JSON when the output has none. */
  id: string;
  key: Record<string, unknown>;
  shape: Record<string, unknown>;
  queryShapeHash?: string;
  execCount: number;
  execMicros?: number;
  maxMicros?: number;
  minMicros?: number;
  firstResponseMicros?: number;
  docsReturned?: number;
  docsReturnedMax?: number;
  /** A write shape's `writes.nInserted` sum (documents inserted over its executions). */
  inserted?: number;
  firstSeen?: Date;
  latestSeen?: Date;
}

export interface QueryStatsSnapshot {
  source: string;
  entries: QueryStatsEntry[];
  skips: Skip[];
  /** The latest `asOf` of its entries (when the server read them), if any. */
  asOf?: Date;
  recordsRead: number;
  /** How workload.json names it: a file's base name, lines and hash; a live read's entries. */
  record?: SourceRecord;
}

/** A number as relaxed or canonical Extended JSON writes it (Long, Int32, Double, Decimal128). */
export function ejsonNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (isObject(v)) {
    for (const k of ['$numberLong', '$numberInt', '$numberDouble', '$numberDecimal']) {
      if (typeof v[k] === 'string') {
        const n = Number(v[k]);
        return Number.isFinite(n) ? n : undefined;
      }
    }
  }
  return undefined;
}

function ejsonDate(v: unknown): Date | undefined {
  const raw = isObject(v) ? v.$date : v;
  const ms = typeof raw === 'string' ? Date.parse(raw) : ejsonNumber(raw);
  return ms !== undefined && Number.isFinite(ms) ? new Date(ms) : undefined;
}

/** `asOf` as epoch ms: a Timestamp ({$timestamp: {t, i}}, t in seconds) or a Date ({$date}). */
function asOfMillis(v: unknown): number | undefined {
  const ts = isObject(v) && isObject(v.$timestamp) ? v.$timestamp : undefined;
  if (ts) {
    const seconds = ejsonNumber(ts.t);
    return seconds !== undefined ? seconds * 1000 : undefined;
  }
  return isObject(v) && '$date' in v ? ejsonDate(v)?.getTime() : undefined;
}

/** The `sum` (and max/min) of a metrics accumulator `{sum, max, min, sumOfSquares}`. */
function acc(v: unknown): { sum?: number; max?: number; min?: number } {
  if (!isObject(v)) return {};
  return { sum: ejsonNumber(v.sum), max: ejsonNumber(v.max), min: ejsonNumber(v.min) };
}

/** One output document into an entry, or why it cannot be read. */
export function readEntry(
  doc: unknown,
  origin: string,
): { entry: QueryStatsEntry } | { skip: Skip } {
  const key = isObject(doc) ? doc.key : undefined;
  const shape = isObject(key) ? key.queryShape : undefined;
  const metrics = isObject(doc) ? doc.metrics : undefined;
  const execCount = isObject(metrics) ? ejsonNumber(metrics.execCount) : undefined;
  if (
    !isObject(doc) ||
    !isObject(key) ||
    !isObject(shape) ||
    !isObject(metrics) ||
    execCount === undefined
  ) {
    return {
      skip: {
        origin,
        reason: 'does not parse',
        detail: 'not a $queryStats entry (key.queryShape and metrics.execCount expected)',
      },
    };
  }
  // Grouped under cursor / queryExec on master, flat before; the top level is the fallback.
  const cursor = isObject(metrics.cursor) ? metrics.cursor : metrics;
  const exec = isObject(metrics.queryExec) ? metrics.queryExec : metrics;
  const total = acc(metrics.totalExecMicros);
  const first = acc(cursor.firstResponseExecMicros ?? metrics.firstResponseExecMicros);
  const returned = acc(exec.docsReturned ?? metrics.docsReturned);
  const inserted = isObject(metrics.writes) ? acc(metrics.writes.nInserted).sum : undefined;
  return {
    entry: {
      origin,
      id: typeof doc.keyHash === 'string' ? doc.keyHash : JSON.stringify(key),
      key,
      shape,
      ...(typeof doc.queryShapeHash === 'string' ? { queryShapeHash: doc.queryShapeHash } : {}),
      execCount,
      execMicros: total.sum,
      maxMicros: total.max,
      minMicros: total.min,
      firstResponseMicros: first.sum,
      docsReturned: returned.sum,
      docsReturnedMax: returned.max,
      ...(inserted !== undefined ? { inserted } : {}),
      // The Manual's field table says lastSeenTimestamp, its examples and the server latestSeenTimestamp.
      firstSeen: ejsonDate(metrics.firstSeenTimestamp),
      latestSeen: ejsonDate(metrics.latestSeenTimestamp ?? metrics.lastSeenTimestamp),
    },
  };
}

const SHELL_HINT =
  'save it as JSON: mongosh URI --quiet --eval \'EJSON.stringify(db.getSiblingDB("admin").aggregate([{$queryStats: {}}]).toArray())\' > stats.json';

/** A saved output: a JSON / Extended JSON array, or one document a line. */
export function parseQueryStatsText(text: string, source: string): QueryStatsSnapshot {
  const trimmed = text.trim();
  let docs: unknown[];
  if (trimmed === '')
    throw new UsageError(`capture: ${source} is empty: expected the output of $queryStats as JSON`);
  try {
    if (trimmed.startsWith('[')) {
      const parsed = JSON.parse(trimmed) as unknown;
      docs = Array.isArray(parsed) ? parsed : [parsed];
    } else
      docs = trimmed
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as unknown);
  } catch (err) {
    const shell = /\b(Long|ISODate|Decimal128|Timestamp)\(/.test(trimmed);
    throw new UsageError(
      `capture: ${source}: not JSON (${messageOf(err)})${shell ? `: this is mongosh's display format (Long(...), ISODate(...)); ${SHELL_HINT}` : `; ${SHELL_HINT}`}`,
    );
  }
  const entries: QueryStatsEntry[] = [];
  const skips: Skip[] = [];
  let asOf: number | undefined;
  docs.forEach((doc, i) => {
    const read = readEntry(doc, `${source} #${i + 1}`);
    if ('skip' in read) skips.push(read.skip);
    else entries.push(read.entry);
    const t = isObject(doc) ? asOfMillis(doc.asOf) : undefined;
    if (t !== undefined) asOf = Math.max(asOf ?? 0, t);
  });
  if (entries.length === 0 && docs.length > 0) {
    throw new UsageError(
      `capture: ${source}: no $queryStats entry in ${docs.length} documents (each needs key.queryShape and metrics.execCount); ${SHELL_HINT}`,
    );
  }
  return {
    source,
    entries,
    skips,
    recordsRead: docs.length,
    ...(asOf !== undefined ? { asOf: new Date(asOf) } : {}),
    // The text as read: a UTF-8 file's bytes.
    record: {
      name: basename(source),
      lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
      sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
    },
  };
}

/** A namespace or field name `transformIdentifiers` hashed: base64 of an HMAC-SHA-256 (44 characters). */
const HASHED = /^[A-Za-z0-9+/]{43}=$/;

function hasHashedFieldName(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasHashedFieldName);
  if (!isObject(v)) return false;
  return Object.entries(v).some(([k, x]) => HASHED.test(k) || hasHashedFieldName(x));
}

/** Fields of `key` (outside queryShape) a read's replay sends with the command: literal in the output. */
const KEY_COMMAND_FIELDS = ['readConcern', 'hint', 'collation', 'allowDiskUse'];

const READ_COMMANDS = new Set(['find', 'aggregate', 'distinct', 'count']);
const WRITE_COMMANDS = new Set(['update', 'delete', 'insert']);

/** Fields of a write shape the replay's op (update, remove, insert) has no place for: such an entry is skipped. */
const UNSENDABLE_WRITE_FIELDS = ['c', 'arrayFilters', 'let', 'collation'];

type CommandOutcome = { served: ServedOp; counts: LiteralCounts } | { skip: Skip };

/** Why an entry is not replayed before its fields are read, or its namespace and command. */
function entryTarget(
  entry: QueryStatsEntry,
): { db: string; coll: string; command: string } | { skip: Skip } {
  const { shape, key, origin } = entry;
  const cmdNs = isObject(shape.cmdNs) ? shape.cmdNs : {};
  const db = typeof cmdNs.db === 'string' ? cmdNs.db : undefined;
  const coll = typeof cmdNs.coll === 'string' ? cmdNs.coll : undefined;
  const command = typeof shape.command === 'string' ? shape.command : undefined;
  if (!db || !command)
    return {
      skip: {
        origin,
        reason: 'does not parse',
        detail: 'a queryShape without cmdNs.db or command',
      },
    };
  if ((coll !== undefined && HASHED.test(coll)) || HASHED.test(db) || hasHashedFieldName(shape)) {
    return {
      skip: {
        origin,
        reason: 'identifiers hashed (transformIdentifiers)',
        detail: `${command}: namespaces and field names were hashed with transformIdentifiers; run $queryStats without it`,
      },
    };
  }
  const notWorkload = (detail: string) => ({
    skip: { origin, reason: 'not a workload command' as const, detail },
  });
  if (key.collectionType === 'changeStream' || key.collectionType === 'virtual')
    return notWorkload(
      `${command} on a ${String(key.collectionType)} (${db}${coll ? `.${coll}` : ''})`,
    );
  if (!coll) return notWorkload(`${command} on a database (${db})`);
  if (!READ_COMMANDS.has(command) && !WRITE_COMMANDS.has(command))
    return notWorkload(
      `${command} on ${db}.${coll}: a $queryStats shape capture replays find, aggregate, distinct, count, update, delete and insert`,
    );
  return { db, coll, command };
}

/** The write command a write shape stands for, from its filled fields (a statement each, as a log's). */
function writeBody(
  command: string,
  coll: string,
  filled: Record<string, unknown>,
): Record<string, unknown> {
  if (command === 'update') {
    const statement = {
      q: filled.q ?? {},
      u: filled.u,
      ...(filled.multi === true ? { multi: true } : {}),
      ...(filled.upsert === true ? { upsert: true } : {}),
    };
    return { update: coll, updates: [statement] };
  }
  if (command === 'delete') {
    // writeMultiDeleteProperty writes `limit: 0` for a multi delete, 1 for one document.
    const multi = filled.limit === 0 || filled.multi === true;
    return { delete: coll, deletes: [{ q: filled.q ?? {}, limit: multi ? 0 : 1 }] };
  }
  return { insert: coll };
}

/** The command the shape stands for, with its placeholders given values, or why it cannot be replayed. */
export function commandOf(entry: QueryStatsEntry, values: ValueSource): CommandOutcome {
  const target = entryTarget(entry);
  if ('skip' in target) return target;
  const { db, coll, command } = target;
  const { shape, key, origin } = entry;
  const ns = `${db}.${coll}`;
  const write = WRITE_COMMANDS.has(command);
  const { cmdNs: _ns, command: _c, ...rest } = shape;
  const unsendable = write ? UNSENDABLE_WRITE_FIELDS.find((f) => rest[f] !== undefined) : undefined;
  if (unsendable)
    return {
      skip: {
        origin,
        reason: 'a field the replay op cannot send',
        detail: `${command} on ${ns} with ${unsendable}: the op sends ${command === 'update' ? 'q, u, multi and upsert' : 'q and limit'} only`,
      },
    };
  if (command === 'insert') delete rest.documents; // always "?array<?object>": documents come from the insert template
  if (!write)
    for (const f of KEY_COMMAND_FIELDS)
      if (key[f] !== undefined && rest[f] === undefined) rest[f] = key[f];
  const filled = fillPlaceholders(command, rest, values, entry);
  if ('cannot' in filled)
    return {
      skip: {
        origin,
        reason: 'a literal that cannot be generated',
        detail: `${command} on ${ns}: ${filled.cannot}`,
      },
    };
  if (write && key.hint !== undefined)
    filled.counts.dropped.hint = (filled.counts.dropped.hint ?? 0) + 1;
  const body = write
    ? writeBody(command, coll, filled.command)
    : { [command]: coll, ...filled.command };
  if (command === 'aggregate' && body.cursor === undefined) body.cursor = {};
  const batch =
    command === 'insert' && entry.inserted !== undefined && entry.execCount > 0
      ? Math.max(1, Math.round(entry.inserted / entry.execCount))
      : undefined;
  return {
    counts: filled.counts,
    served: {
      origin,
      ...(entry.latestSeen ? { at: entry.latestSeen } : {}),
      ns,
      kind: 'command',
      command: body,
      ...(batch !== undefined ? { ninserted: batch } : {}),
      ...(entry.queryShapeHash ? { shapeHash: entry.queryShapeHash } : {}),
    },
  };
}

function namespaceOf(shape: Record<string, unknown>): string {
  const ns = isObject(shape.cmdNs) ? shape.cmdNs : {};
  return [ns.db, ns.coll].filter((x) => typeof x === 'string').join('.');
}

/** What one entry served in the span read: the whole entry (cumulative), or its difference between two snapshots. */
function served(
  after: QueryStatsEntry,
  before: QueryStatsEntry | undefined,
): QueryStatsMetrics | undefined {
  // An entry evicted and seen again between the snapshots starts over: its counts are all in the window.
  const same =
    before &&
    before.firstSeen?.getTime() === after.firstSeen?.getTime() &&
    before.execCount <= after.execCount;
  const minus = (a: number | undefined, b: number | undefined) =>
    a === undefined ? undefined : same ? a - (b ?? 0) : a;
  const execCount = minus(after.execCount, before?.execCount) ?? 0;
  if (execCount <= 0) return undefined;
  return {
    execCount,
    execMicros: minus(after.execMicros, before?.execMicros),
    firstResponseMicros: minus(after.firstResponseMicros, before?.firstResponseMicros),
    docsReturned: minus(after.docsReturned, before?.docsReturned),
    maxMicros: after.maxMicros,
    minMicros: after.minMicros,
    firstSeen: after.firstSeen,
    latestSeen: after.latestSeen,
  };
}

export interface QueryStatsCaptureOptions {
  name: string;
  values: ValueSource;
  /** Where the values came from, for capture.md. */
  valuesFrom: QueryStatsReading['values'];
  insertDocument: unknown;
  insertDocuments: 'placeholder' | 'docs-like';
  keepFailed?: boolean;
  /** The seconds between the two snapshots when the output has no asOf (a live window). */
  windowSeconds?: number;
}

/** What to do when $queryStats gave no workload: the shapes it holds, and when it holds them. */
export const QUERY_STATS_HINT =
  '$queryStats holds the shapes the server collected (find, aggregate and distinct; count, update, delete and insert where the release and its feature flags collect them), and only while it collects them (internalQueryStatsRateLimit; the Manual: Atlas clusters of tier M10 and up); see docs/capture.md';

/**
 * One snapshot (weights: execCount since each entry was first seen) or two (weights: the difference,
 * what ran between them) into a workload.
 */
export function captureFromQueryStats(
  snapshots: QueryStatsSnapshot[],
  options: QueryStatsCaptureOptions,
): CaptureOutcome {
  if (snapshots.length < 1 || snapshots.length > 2)
    throw new UsageError(
      'capture: --query-stats takes one snapshot (cumulative) or two (their difference)',
    );
  const after = snapshots[snapshots.length - 1];
  const before = snapshots.length === 2 ? snapshots[0] : undefined;
  if (before?.asOf && after.asOf && before.asOf > after.asOf) {
    throw new UsageError(
      `capture: --query-stats ${before.source} ${after.source}: the first was read after the second (asOf ${before.asOf.toISOString()} > ${after.asOf.toISOString()}): give the earlier snapshot first`,
    );
  }
  const builder = new CaptureBuilder({ keepFailed: options.keepFailed });
  builder.sourceKind = 'queryStats';
  builder.sources = snapshots.map((s) => s.record ?? { name: basename(s.source) });
  builder.noWorkloadHint = QUERY_STATS_HINT;
  builder.recordsRead = snapshots.reduce((n, s) => n + s.recordsRead, 0);
  for (const s of snapshots) for (const skip of s.skips) builder.skip(skip);
  const earlier = new Map((before?.entries ?? []).map((e) => [e.id, e]));
  let from: Date | undefined;
  let to: Date | undefined;
  let executions = 0;
  const literals = emptyCounts();
  for (const entry of after.entries) {
    builder.servedOps++;
    const metrics = served(entry, earlier.get(entry.id));
    if (!metrics) {
      builder.skip({
        origin: entry.origin,
        reason: 'not run between the snapshots',
        detail: `${String(entry.shape.command)} on ${namespaceOf(entry.shape)}`,
      });
      continue;
    }
    const outcome = commandOf(entry, options.values);
    if ('skip' in outcome) {
      builder.skip(outcome.skip);
      continue;
    }
    if (builder.addWeighted(outcome.served, metrics)) {
      executions += metrics.execCount;
      addCounts(literals, outcome.counts);
      if (entry.firstSeen && (!from || entry.firstSeen < from)) from = entry.firstSeen;
      if (entry.latestSeen && (!to || entry.latestSeen > to)) to = entry.latestSeen;
    }
  }
  const windowSeconds = before
    ? before.asOf && after.asOf
      ? (after.asOf.getTime() - before.asOf.getTime()) / 1000
      : options.windowSeconds
    : undefined;
  const reading: QueryStatsReading = {
    mode: before ? 'window' : 'cumulative',
    snapshots: snapshots.map((s) => ({
      source: s.source,
      entries: s.entries.length,
      ...(s.asOf ? { asOf: s.asOf.toISOString() } : {}),
    })),
    ...(windowSeconds !== undefined && windowSeconds > 0 ? { windowSeconds } : {}),
    ...(from ? { firstSeen: from.toISOString() } : {}),
    ...(to ? { latestSeen: to.toISOString() } : {}),
    values: options.valuesFrom,
    literals,
  };
  builder.queryStats = reading;
  if (before && windowSeconds !== undefined && windowSeconds > 0 && executions > 0) {
    // The pace of the window: what ran between the snapshots over the time between them.
    builder.pace = {
      opsPerSecond: Number((executions / windowSeconds).toPrecision(4)),
      ...(before.asOf ? { firstAt: before.asOf.toISOString() } : {}),
      ...(after.asOf ? { lastAt: after.asOf.toISOString() } : {}),
    };
  }
  return builder.finish(
    options.name,
    options.insertDocument,
    options.insertDocuments,
    snapshots.map((s) => s.source),
  );
}

function addCounts(to: LiteralCounts, from: LiteralCounts): void {
  to.fromSample += from.fromSample;
  to.fromDocsLike += from.fromDocsLike;
  to.byType += from.byType;
  to.expressionConstants += from.expressionConstants;
  to.limitsFromDocsReturned += from.limitsFromDocsReturned;
  for (const [k, n] of Object.entries(from.dropped)) to.dropped[k] = (to.dropped[k] ?? 0) + n;
}
