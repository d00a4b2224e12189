/**
 * A served command into the benchRun ops it amounts to ("statements"), with the driver's metadata
 * taken out, or why it is not part of the workload. Shared by the log and the profiler readers.
 *
 * What counts as workload: find, aggregate, count, distinct, findAndModify, insert, and each statement
 * of update and delete. getMore belongs to its cursor (the find or aggregate that opened it is the
 * op; the engine reads a find's cursor to the end). Everything else (createIndexes, hello, ping,
 * listCollections, authentication, ...) is the driver's or an admin's, not the application's.
 */
import { databaseOf, INTERNAL_DATABASES, ServedOp, Skip } from './served-op';
import { isObject } from '../common/values';

/** Fields the driver adds to every command (sessions, gossip, routing, stable API): stripped, never replayed. */
export const DRIVER_FIELDS = new Set([
  'lsid', '$clusterTime', 'txnNumber', '$db', 'autocommit', 'startTransaction', 'apiVersion', 'apiStrict',
  'apiDeprecationErrors', '$audit', '$client', 'mayBypassWriteBlocking', 'shardVersion', 'databaseVersion',
  'clientOperationKey', '$configTime', '$topologyTime', '$configServerState', '$queryOptions', 'stmtId', 'stmtIds',
  '$readPreference', 'readConcern', 'writeConcern', 'comment',
]);

/** Aggregations that read the server's own state or never end: not replayable application reads. */
const NON_WORKLOAD_STAGES = new Set(['$changeStream', '$currentOp', '$listSessions', '$listLocalSessions', '$collStats', '$indexStats', '$planCacheStats', '$listSearchIndexes', '$shardedDataDistribution']);

export type StatementType = 'find' | 'findOne' | 'aggregate' | 'count' | 'distinct' | 'findAndModify' | 'insert' | 'update' | 'remove';

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
}

/** Keys from the op's root: field names may hold dots, so a path is never one dotted string. */
export type Path = (string | number)[];

export type Statements = { statements: Statement[] } | { skip: Skip };

function commandName(command: Record<string, unknown>): string {
  return Object.keys(command)[0] ?? '';
}

function stripDriverFields(command: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(command)) if (!DRIVER_FIELDS.has(k)) out[k] = v;
  return out;
}

/** $readPreference and a non-empty writeConcern become the op's own (benchRun's op fields). */
function opOptions(command: Record<string, unknown>, write: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const rp = command.$readPreference;
  if (!write && isObject(rp) && typeof rp.mode === 'string' && rp.mode !== 'primary') {
    out.readPreference = { mode: rp.mode, ...(Array.isArray(rp.tags) ? { tags: rp.tags } : {}), ...(typeof rp.maxStalenessSeconds === 'number' ? { maxStalenessSeconds: rp.maxStalenessSeconds } : {}) };
  }
  const wc = command.writeConcern;
  if (write && isObject(wc)) {
    const kept = Object.fromEntries(Object.entries(wc).filter(([k]) => ['w', 'j', 'wtimeout'].includes(k)));
    if (Object.keys(kept).length > 0) out.writeConcern = kept;
  }
  return out;
}

/** A readConcern the application chose (the server logs `{}` or its implicit default otherwise). */
function chosenReadConcern(command: Record<string, unknown>): Record<string, unknown> | undefined {
  const rc = command.readConcern;
  if (!isObject(rc) || typeof rc.level !== 'string' || (rc.provenance !== undefined && rc.provenance !== 'clientSupplied')) return undefined;
  return { level: rc.level };
}

const FIND_OP_FIELDS = new Set(['find', 'filter', 'projection', 'sort', 'limit', 'skip', 'batchSize', 'singleBatch']);

function fromFind(s: ServedOp, command: Record<string, unknown>, db: string): Statement {
  const ns = `${db}.${String(command.find)}`;
  const options = opOptions(command, false);
  const readConcern = chosenReadConcern(command);
  const body = stripDriverFields(command);
  const plain = Object.keys(body).every((k) => FIND_OP_FIELDS.has(k)) && !readConcern;
  if (!plain) {
    // hint, collation, maxTimeMS, a read concern...: benchRun's find op has no field for them; the
    // command op sends the find as logged (and reads its first batch only).
    return { from: s, type: 'find', op: { op: 'command', ns, command: { ...body, ...(readConcern ? { readConcern } : {}) }, ...options }, valuePaths: [['command', 'filter']] };
  }
  const limit = typeof body.limit === 'number' ? Math.abs(body.limit) : undefined;
  if (limit === 1 && body.singleBatch === true && body.skip === undefined) {
    const op: Record<string, unknown> = { op: 'findOne', ns, query: body.filter ?? {} };
    if (isObject(body.projection)) op.filter = body.projection;
    if (isObject(body.sort)) op.sort = body.sort;
    return { from: s, type: 'findOne', op: { ...op, ...options }, valuePaths: [['query']] };
  }
  const op: Record<string, unknown> = { op: 'find', ns, query: body.filter ?? {} };
  if (isObject(body.projection)) op.filter = body.projection;
  if (isObject(body.sort)) op.sort = body.sort;
  if (limit !== undefined && limit > 0) op.limit = limit;
  if (typeof body.skip === 'number' && body.skip > 0) op.skip = body.skip;
  if (typeof body.batchSize === 'number' && body.batchSize > 0) op.batchSize = body.batchSize;
  return { from: s, type: 'find', op: { ...op, ...options }, valuePaths: [['query']] };
}

function commandOp(s: ServedOp, type: StatementType, command: Record<string, unknown>, db: string, write: boolean, valuePaths: Path[]): Statement {
  const readConcern = write ? undefined : chosenReadConcern(command);
  // A command op sends its command as written: a write concern stays inside it.
  const { writeConcern, ...options } = opOptions(command, write);
  const body = { ...stripDriverFields(command), ...(readConcern ? { readConcern } : {}), ...(writeConcern ? { writeConcern } : {}) };
  return { from: s, type, op: { op: 'command', ns: `${db}.${String(command[commandName(command)])}`, command: body, ...options }, valuePaths };
}

function updateStatement(s: ServedOp, ns: string, st: Record<string, unknown>, options: Record<string, unknown>): Statement {
  const op: Record<string, unknown> = { op: 'update', ns, query: st.q ?? {}, update: st.u ?? {} };
  if (st.multi === true) op.multi = true;
  if (st.upsert === true) op.upsert = true;
  return { from: s, type: 'update', op: { ...op, ...options }, valuePaths: [['query'], ['update']] };
}

function removeStatement(s: ServedOp, ns: string, st: Record<string, unknown>, options: Record<string, unknown>): Statement {
  const op: Record<string, unknown> = { op: 'remove', ns, query: st.q ?? {} };
  // A delete statement's limit: 0 removes every match, 1 one (the delete command's `limit`).
  if (st.limit === 0 || st.limit === false) op.multi = true;
  return { from: s, type: 'remove', op: { ...op, ...options }, valuePaths: [['query']] };
}

/** Splits a duration among n statements (a write command logs one duration for all of them). */
function share(statements: Statement[], durationMillis: number | undefined): Statement[] {
  if (durationMillis !== undefined) for (const st of statements) st.durationMillis = durationMillis / statements.length;
  return statements;
}

/** The insert's documents are not in the log (only `ninserted`): the shape is the namespace and batch size; documents come from --docs-like or a placeholder. */
function insertStatement(s: ServedOp, command: Record<string, unknown>, db: string): Statement {
  const documents = Array.isArray(command.documents) ? command.documents.length : undefined;
  const batch = Math.max(1, s.ninserted ?? documents ?? 1);
  return { from: s, type: 'insert', op: { op: 'insert', ns: `${db}.${String(command.insert)}`, batch, ...opOptions(command, true) }, valuePaths: [] };
}

export function statementsOf(s: ServedOp): Statements {
  const db = databaseOf(s.ns);
  if (INTERNAL_DATABASES.has(db)) return { skip: { origin: s.origin, reason: 'internal namespace (admin, config, local)', detail: s.ns } };
  const command = s.command;
  if (s.kind === 'update') return { statements: share([updateStatement(s, s.ns, command, opOptions(command, true))], s.durationMillis) };
  if (s.kind === 'remove') return { statements: share([removeStatement(s, s.ns, command, opOptions(command, true))], s.durationMillis) };
  const name = commandName(command);
  switch (name) {
    case 'find':
      return { statements: share([fromFind(s, command, db)], s.durationMillis) };
    case 'aggregate': {
      const pipeline = Array.isArray(command.pipeline) ? command.pipeline : [];
      const stage = pipeline.map((p) => (isObject(p) ? Object.keys(p)[0] : '')).find((k) => NON_WORKLOAD_STAGES.has(k));
      if (stage) return { skip: { origin: s.origin, reason: 'not a workload command', detail: `aggregate with ${stage}` } };
      if (typeof command.aggregate !== 'string') return { skip: { origin: s.origin, reason: 'not a workload command', detail: 'aggregate on a database ({aggregate: 1})' } };
      // The user's constants are in the $match stages; the other stages are the shape.
      const matches = pipeline.flatMap((p, i): Path[] => (isObject(p) && '$match' in p ? [['command', 'pipeline', i, '$match']] : []));
      return { statements: share([commandOp(s, 'aggregate', command, db, false, matches)], s.durationMillis) };
    }
    case 'count':
      return { statements: share([commandOp(s, 'count', command, db, false, [['command', 'query']])], s.durationMillis) };
    case 'distinct':
      return { statements: share([commandOp(s, 'distinct', command, db, false, [['command', 'query']])], s.durationMillis) };
    case 'findAndModify':
    case 'findandmodify':
      return { statements: share([commandOp(s, 'findAndModify', command, db, true, [['command', 'query'], ['command', 'update']])], s.durationMillis) };
    case 'insert':
      return { statements: share([insertStatement(s, command, db)], s.durationMillis) };
    case 'update':
    case 'delete': {
      const list = command[name === 'update' ? 'updates' : 'deletes'];
      if (!Array.isArray(list) || list.length === 0 || !list.every(isObject)) {
        return { skip: { origin: s.origin, reason: 'not a workload command', detail: `${name} without its statements` } };
      }
      const ns = `${db}.${String(command[name])}`;
      const options = opOptions(command, true);
      const statements = list.map((st) => (name === 'update' ? updateStatement(s, ns, st, options) : removeStatement(s, ns, st, options)));
      return { statements: share(statements, s.durationMillis) };
    }
    case 'getMore':
      return { skip: { origin: s.origin, reason: 'getMore (part of its cursor)' } };
    default:
      return { skip: { origin: s.origin, reason: 'not a workload command', detail: name } };
  }
}
