/**
 * A served command into the benchRun ops it amounts to ("statements"), with the driver's metadata
 * taken out, or why it is not part of the workload. Shared by the log and the profiler readers.
 *
 * What counts as workload: find, aggregate, count, distinct, findAndModify, insert, and each statement
 * of update and delete. getMore belongs to its cursor: the find or aggregate that opened it is the op
 * (the engine reads a find's cursor to the end), or, when the source does not hold that command, the
 * getMores' `originatingCommand` (cursorStatements). Everything else (createIndexes, hello, ping,
 * listCollections, authentication, ...) is the driver's or an admin's, not the application's.
 *
 * The ops written are op kinds of the workload language (lib/workload/language/ops): each `op` name
 * is checked against OpType by the compiler.
 */
import { databaseOf, INTERNAL_DATABASES, QueryStatsMetrics, ServedOp, Skip } from './served-op';
import { isObject } from '../common/values';
import type { OpType } from '../workload/language/op-spec';

/** Fields the driver adds to every command (sessions, gossip, routing, stable API): stripped, never replayed. */
export const DRIVER_FIELDS = new Set([
  'lsid',
  '$clusterTime',
  'txnNumber',
  '$db',
  'autocommit',
  'startTransaction',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
  '$audit',
  '$client',
  'mayBypassWriteBlocking',
  'shardVersion',
  'databaseVersion',
  'clientOperationKey',
  '$configTime',
  '$topologyTime',
  '$configServerState',
  '$queryOptions',
  'stmtId',
  'stmtIds',
  '$readPreference',
  'readConcern',
  'writeConcern',
  'comment',
]);

/**
 * Fields a router adds to what it forwards to a shard: `needsMerge` and `fromMongos` on the shard's part
 * of a split aggregation (set by the cluster aggregation planner, src/mongo/s/query/cluster_aggregation_planner.cpp),
 * or `fromRouter` in its place where the router runs with featureFlagAggMongosToRouter
 * (aggregation_request_helper.cpp on master: setFromRouter writes `fromRouter` when the flag is on and
 * `fromMongos` otherwise, getFromRouter reads either; not pinned to a release); `shardVersion` /
 * `databaseVersion` (routing, already stripped with the driver's fields). Their presence marks a
 * command a shard's log holds because a router sent it. None is ever replayed: a router refuses
 * `needsMerge` or `fromRouter` set to true (uassert 51089 in performValidationChecks,
 * src/mongo/s/query/planner/cluster_aggregate.cpp on master).
 */
export const MONGOS_FIELDS = new Set(['fromMongos', 'fromRouter', 'needsMerge']);

/** Marks a command a router forwarded (a shard's log): routing versions or the fields above. */
export function forwardedByMongos(command: Record<string, unknown>): boolean {
  return (
    command.fromMongos === true ||
    command.fromRouter === true ||
    command.needsMerge === true ||
    'shardVersion' in command ||
    'databaseVersion' in command
  );
}

/** The router field that marks a shard's half of a split pipeline, if any. */
function splitPipelineMark(command: Record<string, unknown>): string | undefined {
  return ['needsMerge', 'fromRouter', 'fromMongos'].find((field) => command[field] === true);
}

/**
 * The loader's `_id`s 0..N-1 for run's default --docs (RUN_DEFAULTS.docs in lib/run/options/run-options.ts, a
 * floor above: test/capture/capture-second-reading.test.ts checks they agree). A synthetic update
 * draws one of them.
 */
export const SYNTHETIC_UPDATE_KEYS = 10_000;
/** The field a synthetic update increments: the tool's own, never one of the user's. */
export const SYNTHETIC_UPDATE_FIELD = 'mb_replayed';
/** What marks a synthetic op in workload.json and capture.md. */
export const SYNTHETIC_MARK = 'filter unknown';

/** Aggregations that read the server's own state or never end: not replayable application reads. */
const NON_WORKLOAD_STAGES = new Set([
  '$changeStream',
  '$currentOp',
  '$listSessions',
  '$listLocalSessions',
  '$collStats',
  '$indexStats',
  '$planCacheStats',
  '$listSearchIndexes',
  '$shardedDataDistribution',
]);

export type StatementType =
  | 'find'
  | 'findOne'
  | 'aggregate'
  | 'count'
  | 'distinct'
  | 'findAndModify'
  | 'insert'
  | 'update'
  | 'remove';

/** One op of the future workload, before grouping: a benchRun op with constants still in place. */
export interface Statement {
  from: ServedOp;
  type: StatementType;
  /** The benchRun op (values as Extended JSON); its value-bearing parts are listed in `valuePaths`. */
  op: Record<string, unknown>;
  /** Where in `op` the user's constants are (a filter, an update, a $match stage): each a list of keys. */
  valuePaths: Path[];
  /** Statements of one command share its duration: each gets its part. */
  durationMillis?: number;
  /** A stand-in for a write whose statements were not logged (see syntheticStatement). */
  synthetic?: boolean;
  /** The command came from a mongos (a shard's log): see MONGOS_FIELDS. */
  forwarded?: boolean;
  /** A $queryStats shape: how many times it ran, and its times (not one op). */
  queryStats?: QueryStatsMetrics;
  /** A cursor known by its getMores only (see cursorStatements). */
  fromGetMores?: boolean;
}

/** Keys from the op's root: field names may hold dots, so a path is never one dotted string. */
export type Path = (string | number)[];

export type Statements = { statements: Statement[] } | { skip: Skip };

function commandName(command: Record<string, unknown>): string {
  return Object.keys(command)[0] ?? '';
}

function stripDriverFields(command: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(command))
    if (!DRIVER_FIELDS.has(k) && !MONGOS_FIELDS.has(k)) out[k] = v;
  return out;
}

/** $readPreference and a non-empty writeConcern become the op's own (benchRun's op fields). */
function opOptions(command: Record<string, unknown>, write: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const rp = command.$readPreference;
  if (!write && isObject(rp) && typeof rp.mode === 'string' && rp.mode !== 'primary') {
    out.readPreference = {
      mode: rp.mode,
      ...(Array.isArray(rp.tags) ? { tags: rp.tags } : {}),
      ...(typeof rp.maxStalenessSeconds === 'number'
        ? { maxStalenessSeconds: rp.maxStalenessSeconds }
        : {}),
    };
  }
  const wc = command.writeConcern;
  if (write && isObject(wc)) {
    const kept = Object.fromEntries(
      Object.entries(wc).filter(([k]) => ['w', 'j', 'wtimeout'].includes(k)),
    );
    if (Object.keys(kept).length > 0) out.writeConcern = kept;
  }
  return out;
}

/** A readConcern the application chose (the server logs `{}` or its implicit default otherwise). */
function chosenReadConcern(command: Record<string, unknown>): Record<string, unknown> | undefined {
  const rc = command.readConcern;
  if (
    !isObject(rc) ||
    typeof rc.level !== 'string' ||
    (rc.provenance !== undefined && rc.provenance !== 'clientSupplied')
  )
    return undefined;
  return { level: rc.level };
}

const FIND_OP_FIELDS = new Set([
  'find',
  'filter',
  'projection',
  'sort',
  'limit',
  'skip',
  'batchSize',
  'singleBatch',
]);

function fromFind(s: ServedOp, command: Record<string, unknown>, db: string): Statement {
  const ns = `${db}.${String(command.find)}`;
  const options = opOptions(command, false);
  const readConcern = chosenReadConcern(command);
  const body = stripDriverFields(command);
  const plain = Object.keys(body).every((k) => FIND_OP_FIELDS.has(k)) && !readConcern;
  if (!plain) {
    // hint, collation, maxTimeMS, a read concern...: benchRun's find op has no field for them; the
    // command op sends the find as logged (and reads its cursor to the end, ops/command.ts).
    return {
      from: s,
      type: 'find',
      op: {
        op: 'command' satisfies OpType,
        ns,
        command: { ...body, ...(readConcern ? { readConcern } : {}) },
        ...options,
      },
      valuePaths: [['command', 'filter']],
    };
  }
  const limit = typeof body.limit === 'number' ? Math.abs(body.limit) : undefined;
  if (limit === 1 && body.singleBatch === true && body.skip === undefined) {
    const op: Record<string, unknown> = {
      op: 'findOne' satisfies OpType,
      ns,
      query: body.filter ?? {},
    };
    if (isObject(body.projection)) op.filter = body.projection;
    if (isObject(body.sort)) op.sort = body.sort;
    return { from: s, type: 'findOne', op: { ...op, ...options }, valuePaths: [['query']] };
  }
  const op: Record<string, unknown> = { op: 'find' satisfies OpType, ns, query: body.filter ?? {} };
  if (isObject(body.projection)) op.filter = body.projection;
  if (isObject(body.sort)) op.sort = body.sort;
  if (limit !== undefined && limit > 0) op.limit = limit;
  if (typeof body.skip === 'number' && body.skip > 0) op.skip = body.skip;
  if (typeof body.batchSize === 'number' && body.batchSize > 0) op.batchSize = body.batchSize;
  return { from: s, type: 'find', op: { ...op, ...options }, valuePaths: [['query']] };
}

function commandOp(
  s: ServedOp,
  type: StatementType,
  command: Record<string, unknown>,
  db: string,
  write: boolean,
  valuePaths: Path[],
): Statement {
  const readConcern = write ? undefined : chosenReadConcern(command);
  // A command op sends its command as written: a write concern stays inside it.
  const { writeConcern, ...options } = opOptions(command, write);
  const body = {
    ...stripDriverFields(command),
    ...(readConcern ? { readConcern } : {}),
    ...(writeConcern ? { writeConcern } : {}),
  };
  return {
    from: s,
    type,
    op: {
      op: 'command' satisfies OpType,
      ns: `${db}.${String(command[commandName(command)])}`,
      command: body,
      ...options,
    },
    valuePaths,
  };
}

/**
 * A statement without its filter (or an update without its update) is never replayed with `{}` in its
 * place: `update({}, {})` would empty a document of the user's. Undefined when both are there.
 */
function missingPart(kind: 'update' | 'remove', st: Record<string, unknown>): string | undefined {
  if (!isObject(st.q)) return 'its filter (q)';
  if (kind === 'update' && !isObject(st.u) && !Array.isArray(st.u)) return 'its update (u)';
  return undefined;
}

function updateStatement(
  s: ServedOp,
  ns: string,
  st: Record<string, unknown>,
  options: Record<string, unknown>,
): Statement {
  const op: Record<string, unknown> = {
    op: 'update' satisfies OpType,
    ns,
    query: st.q,
    update: st.u,
  };
  if (st.multi === true) op.multi = true;
  if (st.upsert === true) op.upsert = true;
  return {
    from: s,
    type: 'update',
    op: { ...op, ...options },
    valuePaths: [['query'], ['update']],
  };
}

function removeStatement(
  s: ServedOp,
  ns: string,
  st: Record<string, unknown>,
  options: Record<string, unknown>,
): Statement {
  const op: Record<string, unknown> = { op: 'remove' satisfies OpType, ns, query: st.q };
  // A delete statement's limit: 0 removes every match, 1 one (the delete command's `limit`).
  if (st.limit === 0 || st.limit === false) op.multi = true;
  return { from: s, type: 'remove', op: { ...op, ...options }, valuePaths: [['query']] };
}

/** Splits a duration among n statements (a write command logs one duration for all of them). */
function share(statements: Statement[], durationMillis: number | undefined): Statement[] {
  if (durationMillis !== undefined)
    for (const st of statements) st.durationMillis = durationMillis / statements.length;
  return statements;
}

/** The insert's documents are not in the log (only `ninserted`): the shape is the namespace and batch size; documents come from --docs-like or a placeholder. */
function insertStatement(s: ServedOp, command: Record<string, unknown>, db: string): Statement {
  const documents = Array.isArray(command.documents) ? command.documents.length : undefined;
  const batch = Math.max(1, s.ninserted ?? documents ?? 1);
  return {
    from: s,
    type: 'insert',
    op: {
      op: 'insert' satisfies OpType,
      ns: `${db}.${String(command.insert)}`,
      batch,
      ...opOptions(command, true),
    },
    valuePaths: [],
  };
}

/**
 * An update or delete command logged without its statements: the OP_MSG body (`request.body`, what
 * src/mongo/db/service_entry_point_common.cpp and a mongos's strategy.cpp hand to CurOp) holds no kind-1
 * document sequence, and drivers that send `updates` / `deletes` as a sequence (the Go driver, e.g. the
 * 6.0.11 fixture's `{"delete":"__examples","ordered":true,...}`) leave only the command's name in the
 * log. A mongos writes no per-statement WRITE lines, and above slowms 0 the statements may not be
 * logged. It counts as one op of its kind, replayed in a form that invents nothing of the user's:
 * - update: one loaded document by `_id` (the loader's 0..SYNTHETIC_UPDATE_KEYS-1) gets
 *   `{$inc: {mb_replayed: 1}}`, a field the tool owns;
 * - delete: one document the replay itself inserted (`capturedBy: "mongo-bench capture"`, the mark
 *   capture's insert documents carry), so nothing of the user's is removed; with no such insert it
 *   matches nothing.
 * Both carry `synthetic: "filter unknown"` in workload.json and capture.md.
 */
function syntheticStatement(
  s: ServedOp,
  name: 'update' | 'delete',
  ns: string,
  options: Record<string, unknown>,
): Statement {
  const op: Record<string, unknown> =
    name === 'update'
      ? {
          op: 'update' satisfies OpType,
          ns,
          query: { _id: { '#RAND_INT': [0, SYNTHETIC_UPDATE_KEYS] } },
          update: { $inc: { [SYNTHETIC_UPDATE_FIELD]: 1 } },
        }
      : { op: 'remove' satisfies OpType, ns, query: { capturedBy: CAPTURED_BY } };
  return {
    from: s,
    type: name === 'update' ? 'update' : 'remove',
    op: { ...op, ...options, synthetic: SYNTHETIC_MARK },
    valuePaths: [],
    synthetic: true,
  };
}

/** The mark capture's insert documents carry (PLACEHOLDER_DOCUMENT's, and added to --docs-like ones): what a synthetic delete removes. */
export const CAPTURED_BY = 'mongo-bench capture';

function isTruncatedProfileCommand(command: Record<string, unknown>): boolean {
  return typeof command.$truncated === 'string';
}

export function statementsOf(s: ServedOp): Statements {
  const db = databaseOf(s.ns);
  if (INTERNAL_DATABASES.has(db))
    return {
      skip: { origin: s.origin, reason: 'internal namespace (admin, config, local)', detail: s.ns },
    };
  const command = s.command;
  if (isTruncatedProfileCommand(command)) {
    // OpDebug::append (src/mongo/db/curop.cpp) writes a command over appendMaxElementSize (50 KB) as
    // {$truncated: "<its first 50 KB as text>", comment?}: nothing of it can be replayed.
    return {
      skip: {
        origin: s.origin,
        reason: 'truncated by the server (maxLogSizeKB)',
        detail: `a profile entry's command over 50 KB, written as {$truncated: ...} (${s.kind} on ${s.ns})`,
      },
    };
  }
  if (s.kind === 'update' || s.kind === 'remove') {
    const missing = missingPart(s.kind, command);
    if (missing)
      return {
        skip: {
          origin: s.origin,
          reason: 'does not parse',
          detail: `a ${s.kind} statement without ${missing} on ${s.ns}: never replayed with {} in its place`,
        },
      };
    const st =
      s.kind === 'update'
        ? updateStatement(s, s.ns, command, opOptions(command, true))
        : removeStatement(s, s.ns, command, opOptions(command, true));
    return { statements: share([st], s.durationMillis) };
  }
  const name = commandName(command);
  const mark = name === 'aggregate' ? splitPipelineMark(command) : undefined;
  if (mark) {
    // The pipeline is the shard's half of what the user sent to the router (the merging half ran there):
    // replayed through a router it would be another query.
    return {
      skip: {
        origin: s.origin,
        reason: "forwarded by a mongos (a shard's part of a split pipeline)",
        detail: `aggregate on ${s.ns} with ${mark}`,
      },
    };
  }
  const outcome = statementsByName(s, name, command, db);
  if ('statements' in outcome && forwardedByMongos(command))
    for (const st of outcome.statements) st.forwarded = true;
  return outcome;
}

/**
 * The first batch a cursor returns without a batchSize: 101 documents. find:
 * FindCommon::enoughForFirstBatch (src/mongo/db/query/find_common.cpp) stops at
 * QueryRequest::kDefaultBatchSize = 101 (4.4) or query_request_helper::getDefaultBatchSize() (master,
 * whose value was not read here); aggregate: aggregation_request_helper::kDefaultBatchSize = 101
 * (src/mongo/db/pipeline/aggregation_request_helper.h). Either batch also stops at 16 MB.
 */
export const DEFAULT_FIRST_BATCH = 101;

/** The documents a find or aggregate returns before its first getMore: its batchSize, or the default. */
export function firstBatchOf(command: Record<string, unknown>): number {
  const size =
    commandName(command) === 'aggregate'
      ? isObject(command.cursor)
        ? command.cursor.batchSize
        : undefined
      : command.batchSize;
  return typeof size === 'number' && Number.isInteger(size) && size >= 0
    ? size
    : DEFAULT_FIRST_BATCH;
}

/** Caps what a replay reads at `documents`: the find's own limit, or a final $limit stage. */
function limitReads(st: Statement, documents: number): void {
  const body = st.op.command as Record<string, unknown>;
  const n = Math.max(1, documents);
  if (body.find !== undefined) {
    const own = typeof body.limit === 'number' && body.limit > 0 ? body.limit : undefined;
    body.limit = own !== undefined ? Math.min(own, n) : n;
    st.valuePaths.push(['command', 'limit']);
    return;
  }
  const pipeline = Array.isArray(body.pipeline) ? [...(body.pipeline as unknown[])] : [];
  pipeline.push({ $limit: n });
  body.pipeline = pipeline;
  st.valuePaths.push(['command', 'pipeline', pipeline.length - 1, '$limit']);
}

/**
 * A cursor whose getMores are in the log but whose opening command is not: `s` carries the getMores'
 * `originatingCommand` as its command and their summed time. Replayed as that find or aggregate, read
 * as far as the log shows the cursor went (`readLimit` documents: a `limit`, or a final `$limit`, whose
 * value is a constant of the shape: several cursors of one shape replay a pick among theirs), or to
 * its end when `readLimit` is undefined (a getMore said cursorExhausted).
 */
export function cursorStatements(s: ServedOp, readLimit: number | undefined): Statements {
  const command = s.command;
  const name = commandName(command);
  if (name !== 'find' && name !== 'aggregate')
    return {
      skip: {
        origin: s.origin,
        reason: 'not a workload command',
        detail: `getMore of a ${name} cursor on ${s.ns}`,
      },
    };
  if (command.tailable === true)
    return {
      skip: {
        origin: s.origin,
        reason: 'not a workload command',
        detail: `getMore of a tailable cursor on ${s.ns} (it waits for new documents)`,
      },
    };
  const checked = statementsOf(s);
  if ('skip' in checked) return checked;
  for (const st of checked.statements) st.fromGetMores = true;
  if (readLimit === undefined) return checked;
  const [opened] = checked.statements;
  // A command op, whatever form the find would take: its limit is a constant of the shape.
  const st =
    name === 'find'
      ? commandOp(s, 'find', command, databaseOf(s.ns), false, [['command', 'filter']])
      : opened;
  st.fromGetMores = true;
  if (opened.forwarded) st.forwarded = true;
  limitReads(st, readLimit);
  return { statements: share([st], s.durationMillis) };
}

function statementsByName(
  s: ServedOp,
  name: string,
  command: Record<string, unknown>,
  db: string,
): Statements {
  switch (name) {
    case 'find':
      return { statements: share([fromFind(s, command, db)], s.durationMillis) };
    case 'aggregate': {
      const pipeline = Array.isArray(command.pipeline) ? command.pipeline : [];
      const stage = pipeline
        .map((p) => (isObject(p) ? Object.keys(p)[0] : ''))
        .find((k) => NON_WORKLOAD_STAGES.has(k));
      if (stage)
        return {
          skip: {
            origin: s.origin,
            reason: 'not a workload command',
            detail: `aggregate with ${stage}`,
          },
        };
      if (typeof command.aggregate !== 'string')
        return {
          skip: {
            origin: s.origin,
            reason: 'not a workload command',
            detail: 'aggregate on a database ({aggregate: 1})',
          },
        };
      // The user's constants are in the $match stages; the other stages are the shape.
      const matches = pipeline.flatMap((p, i): Path[] =>
        isObject(p) && '$match' in p ? [['command', 'pipeline', i, '$match']] : [],
      );
      return {
        statements: share(
          [commandOp(s, 'aggregate', command, db, false, matches)],
          s.durationMillis,
        ),
      };
    }
    case 'count':
      return {
        statements: share(
          [commandOp(s, 'count', command, db, false, [['command', 'query']])],
          s.durationMillis,
        ),
      };
    case 'distinct':
      return {
        statements: share(
          [commandOp(s, 'distinct', command, db, false, [['command', 'query']])],
          s.durationMillis,
        ),
      };
    case 'findAndModify':
    case 'findandmodify':
      return {
        statements: share(
          [
            commandOp(s, 'findAndModify', command, db, true, [
              ['command', 'query'],
              ['command', 'update'],
            ]),
          ],
          s.durationMillis,
        ),
      };
    case 'insert':
      return { statements: share([insertStatement(s, command, db)], s.durationMillis) };
    case 'update':
    case 'delete': {
      const list = command[name === 'update' ? 'updates' : 'deletes'];
      const ns = `${db}.${String(command[name])}`;
      const options = opOptions(command, true);
      if (list === undefined)
        return { statements: share([syntheticStatement(s, name, ns, options)], s.durationMillis) };
      if (!Array.isArray(list) || list.length === 0 || !list.every(isObject)) {
        return {
          skip: {
            origin: s.origin,
            reason: 'does not parse',
            detail: `${name} on ${ns} with an unreadable ${name === 'update' ? 'updates' : 'deletes'} list`,
          },
        };
      }
      const missing = list
        .map((st) => missingPart(name === 'update' ? 'update' : 'remove', st))
        .find((m) => m !== undefined);
      if (missing)
        return {
          skip: {
            origin: s.origin,
            reason: 'does not parse',
            detail: `${name} on ${ns}: a statement without ${missing}: never replayed with {} in its place`,
          },
        };
      const statements = list.map((st) =>
        name === 'update'
          ? updateStatement(s, ns, st, options)
          : removeStatement(s, ns, st, options),
      );
      return { statements: share(statements, s.durationMillis) };
    }
    case 'getMore':
      return { skip: { origin: s.origin, reason: 'getMore (part of its cursor)' } };
    default:
      return { skip: { origin: s.origin, reason: 'not a workload command', detail: name } };
  }
}
