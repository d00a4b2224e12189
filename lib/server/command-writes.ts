/**
 * What a database command writes, read from the command document alone: the write plan lists every namespace
 * a workload's commands write before anything connects. A command on the read-only allow-list writes nothing;
 * a command the plan knows writes the namespaces it names; any other command writes, for all the plan can
 * tell, its whole database. A namespace the plan cannot read from the document (a template that makes a name
 * per operation, a value of the wrong type) refuses the command: the plan can only check names it knows.
 */
import { isPlainObject, show } from '../common/values';

export interface WrittenNamespace {
  db: string;
  /** Absent: the whole database. */
  coll?: string;
  /** Which part of the command names it: "insert", "$out", "renameCollection's to". */
  how: string;
}

export type CommandWrites =
  /** On the read-only allow-list. */
  | { reads: true }
  /** Every namespace the command writes. */
  | { reads: false; writes: WrittenNamespace[] }
  /** A namespace position made by a template, or one that cannot be read. */
  | { reads: false; refused: string };

/**
 * Names the server registers for another command, mapped to that command. The server looks a command up by
 * its exact name or a registered alias (src/mongo/db/commands.cpp, CommandRegistry::findCommand: an exact
 * map lookup), so no other spelling runs anything. A name missing here reads as unknown: a write of its
 * whole database, the safe side.
 */
const ALIASES: Readonly<Record<string, string>> = {
  // FindAndModifyCmd: BasicCommand("findAndModify", "findandmodify") (src/mongo/db/commands/find_and_modify.cpp)
  findandmodify: 'findAndModify',
  // CmdHello registered as hello, isMaster and ismaster (src/mongo/db/repl/replication_info.cpp;
  // mongos: src/mongo/s/commands/cluster_hello_cmd.cpp)
  isMaster: 'hello',
  ismaster: 'hello',
  // DBStats, CmdDatasize, CollectionStats (src/mongo/db/commands/dbcommands.cpp)
  dbstats: 'dbStats',
  datasize: 'dataSize',
  collstats: 'collStats',
  // CmdBuildInfo: BasicCommand("buildInfo", "buildinfo") (src/mongo/db/commands/generic.cpp)
  buildinfo: 'buildInfo',
  // MapReduceCommandBase: ("mapReduce", "mapreduce") (src/mongo/db/commands/map_reduce_command_base.h)
  mapreduce: 'mapReduce',
  // command_alias: deleteIndexes (src/mongo/db/drop_indexes.idl)
  deleteIndexes: 'dropIndexes',
  // ListShardsCmd: BasicCommand("listShards", "listshards") (src/mongo/s/commands/cluster_list_shards_cmd.cpp)
  listshards: 'listShards',
};

/**
 * Commands that change no data, each with what it does (MongoDB Manual, "Database Commands", the command's
 * page). Kept small: anything else is a write.
 */
const READ_ONLY_COMMANDS: Readonly<Record<string, string>> = {
  find: 'selects documents',
  count: 'counts documents',
  distinct: "finds a field's distinct values",
  getMore: 'returns the next batch of a cursor',
  killCursors: "ends cursors (the server's memory, no data)",
  listCollections: 'lists collections and views',
  listIndexes: "lists a collection's indexes",
  listDatabases: 'lists databases',
  collStats: "reports a collection's storage statistics",
  dbStats: "reports a database's storage statistics",
  dataSize: 'reports the size of a range of documents',
  serverStatus: "reports the server's state",
  hello: "reports the server's role in its deployment",
  ping: 'answers',
  buildInfo: "reports the server's build",
  hostInfo: "reports the server's host",
  connectionStatus: "reports the connection's user and roles",
  getParameter: 'reports server parameters',
  getCmdLineOpts: "reports the server's command-line options",
  replSetGetStatus: "reports the replica set's state",
  replSetGetConfig: "reports the replica set's configuration",
  isdbgrid: 'says whether the process is a mongos',
  listShards: "lists a cluster's shards",
  balancerStatus: "reports the balancer's state",
  getShardMap: "reports the cluster's shards and hosts",
  top: 'reports per-collection usage counters',
  currentOp: 'reports operations in progress',
  // Manual, explain, "Explain and Write Operations": for a write, explain returns information about the
  // write it would make and does not modify the database.
  explain: 'describes how a command would run, without running its writes',
};

/** A namespace position the plan cannot read: the whole command is refused, with this reason. */
class Unreadable {
  constructor(readonly reason: string) {}
}

/**
 * What `command` writes when run against database `db`. The command name is the document's first key
 * (Manual, "Database Commands": a command is "a standard BSON document whose first key is the name of the
 * command").
 */
export function classifyCommand(command: Record<string, unknown>, db: string): CommandWrites {
  const [written] = Object.keys(command);
  if (written === undefined) return { reads: false, refused: 'an empty command names no command' };
  // Own keys only: a command named "constructor" or "toString" is no entry of these tables.
  const name = Object.hasOwn(ALIASES, written) ? ALIASES[written] : written;
  if (Object.hasOwn(READ_ONLY_COMMANDS, name)) return { reads: true };
  try {
    const writes = namespacesWritten(command, written, name, db);
    return writes === 'reads' ? { reads: true } : { reads: false, writes };
  } catch (err) {
    if (err instanceof Unreadable) return { reads: false, refused: err.reason };
    throw err;
  }
}

/** The collection commands write: the one named by the command's first value, in `db`. */
const COLLECTION_COMMANDS: ReadonlySet<string> = new Set([
  'insert',
  'update',
  'delete',
  'findAndModify',
  // A view's or time-series collection's catalog entries (system.views, system.buckets.*) are the server's
  // bookkeeping for the one collection create names, and go when it is dropped: not listed apart.
  'create',
  'drop',
  'createIndexes',
  'dropIndexes',
  'collMod',
  'convertToCapped',
  'emptycapped',
  'compact',
  // Not read-only: validate repairs a collection's count and data size and, from 5.0, its indexes' multikey
  // metadata (Manual, validate, "Definition"); with full it also takes an exclusive lock.
  'validate',
]);

/** Commands that write namespaces they name in other places than their first value (each a case below). */
const OTHER_WRITE_COMMANDS: readonly string[] = [
  'mapReduce',
  'cloneCollectionAsCapped',
  'renameCollection',
  'applyOps',
  'bulkWrite',
  'dropDatabase',
];

/** The aggregate stages that write (aggregateWrites): an aggregate without them reads. */
export const WRITE_STAGES: readonly string[] = ['$out', '$merge'];

/**
 * Every command name, as a document may spell it (the server's aliases included), that this module reads
 * as a write of the namespaces it names: the one list of them. An aggregate writes through WRITE_STAGES
 * only; any other command not on the read-only allow-list writes, for all the plan can tell, its whole
 * database. test/architecture/write-guard.test.ts looks for command documents by this list.
 */
export const WRITE_COMMAND_NAMES: readonly string[] = [
  ...COLLECTION_COMMANDS,
  ...OTHER_WRITE_COMMANDS,
  ...Object.keys(ALIASES).filter(
    (alias) =>
      COLLECTION_COMMANDS.has(ALIASES[alias]) || OTHER_WRITE_COMMANDS.includes(ALIASES[alias]),
  ),
];

/**
 * The namespaces a command that is not on the allow-list writes, or 'reads' for an aggregate that writes
 * nothing. `written` is the name as the document has it, `name` the command it resolves to.
 */
function namespacesWritten(
  command: Record<string, unknown>,
  written: string,
  name: string,
  db: string,
): WrittenNamespace[] | 'reads' {
  const first = command[written];
  if (COLLECTION_COMMANDS.has(name))
    return [{ db, coll: collectionAt(first, `${written}'s collection`), how: written }];
  switch (name) {
    case 'aggregate':
      return aggregateWrites(command.pipeline, db);
    case 'mapReduce':
      return [mapReduceOut(command.out, db)].filter((ns): ns is WrittenNamespace => ns !== null);
    case 'cloneCollectionAsCapped':
      // Manual, cloneCollectionAsCapped: makes `toCollection`, in `db`, a capped copy of the source, and "does
      // not affect the original": only `toCollection` is written. The source is read, so it is still checked
      // (a template there is refused like anywhere else).
      collectionAt(first, `${written}'s source`);
      return [
        {
          db,
          coll: collectionAt(command.toCollection, `${written}'s toCollection`),
          how: `${written}'s toCollection`,
        },
      ];
    case 'renameCollection':
      // Manual, renameCollection: run against admin, with full namespaces for the source and `to`.
      return [
        { ...fullNamespaceAt(first, `${written}'s source`), how: `${written}'s source` },
        { ...fullNamespaceAt(command.to, `${written}'s to`), how: `${written}'s to` },
      ];
    case 'applyOps':
      return applyOpsWrites(first);
    case 'bulkWrite':
      return bulkWriteWrites(command.nsInfo);
    case 'dropDatabase':
      return [{ db, how: written }];
    default:
      return [
        {
          db,
          how: `${JSON.stringify(written)} (a command mongo-bench does not know: its whole database)`,
        },
      ];
  }
}

/**
 * The collections an aggregate's $out or $merge writes; 'reads' when it has neither. Only the top level is
 * looked at: both stages must be last in the pipeline (PositionRequirement::kLast) and are refused inside
 * $lookup, $unionWith and $facet sub-pipelines (LookupRequirement, UnionRequirement and FacetRequirement
 * kNotAllowed: DocumentSourceOut::constraints, src/mongo/db/pipeline/document_source_out.cpp, and
 * DocumentSourceMerge::constraints, document_source_merge.cpp; Manual, $out and $merge: "must be the last
 * stage in the pipeline"). Every top-level stage is looked at, not only the last: the cost is nothing.
 */
function aggregateWrites(pipeline: unknown, db: string): WrittenNamespace[] | 'reads' {
  if (!Array.isArray(pipeline))
    throw new Unreadable(
      `aggregate's pipeline cannot be read: expected an array, got ${show(pipeline)}`,
    );
  const writes: WrittenNamespace[] = [];
  pipeline.forEach((stage: unknown, index) => {
    if (!isPlainObject(stage))
      throw new Unreadable(
        `aggregate's stage ${index} cannot be read: expected a document, got ${show(stage)}`,
      );
    if ('$out' in stage) writes.push(outTarget(stage.$out, db));
    if ('$merge' in stage) writes.push(mergeTarget(stage.$merge, db));
  });
  return writes.length === 0 ? 'reads' : writes;
}

/** Manual, $out: `{$out: "coll"}` (the command's database) or `{$out: {db, coll}}` (from 4.4). */
function outTarget(spec: unknown, db: string): WrittenNamespace {
  if (typeof spec === 'string' || isTemplate(spec))
    return { db, coll: collectionAt(spec, '$out'), how: '$out' };
  return dbAndColl(spec, db, '$out', '$out');
}

/**
 * Manual, $merge: `{$merge: "coll"}`, `{$merge: {into: "coll"}}` (the command's database) or
 * `{$merge: {into: {db, coll}}}`.
 */
function mergeTarget(spec: unknown, db: string): WrittenNamespace {
  if (typeof spec === 'string' || isTemplate(spec))
    return { db, coll: collectionAt(spec, '$merge'), how: '$merge' };
  if (!isPlainObject(spec))
    throw new Unreadable(
      `$merge cannot be read: expected a collection name or a document, got ${show(spec)}`,
    );
  const into = spec.into;
  if (typeof into === 'string' || isTemplate(into))
    return { db, coll: collectionAt(into, "$merge's into"), how: '$merge' };
  return dbAndColl(into, db, "$merge's into", '$merge');
}

/** A `{db, coll}` target; a missing db is the command's. */
function dbAndColl(spec: unknown, db: string, position: string, how: string): WrittenNamespace {
  if (!isPlainObject(spec))
    throw new Unreadable(
      `${position} cannot be read: expected a collection name or {db, coll}, got ${show(spec)}`,
    );
  const targetDb = spec.db === undefined ? db : collectionAt(spec.db, `${position}'s db`);
  return { db: targetDb, coll: collectionAt(spec.coll, `${position}'s coll`), how };
}

/**
 * Manual, mapReduce, "out Options": a collection name (replaced), `{replace|merge|reduce: coll, db?}`, or
 * `{inline: 1}`, which returns the results and writes nothing (null here).
 */
function mapReduceOut(out: unknown, db: string): WrittenNamespace | null {
  if (typeof out === 'string' || isTemplate(out))
    return { db, coll: collectionAt(out, "mapReduce's out"), how: "mapReduce's out" };
  if (isPlainObject(out)) {
    if ('inline' in out) return null;
    const action = ['replace', 'merge', 'reduce'].find((key) => key in out);
    if (action) {
      const targetDb = out.db === undefined ? db : collectionAt(out.db, "mapReduce's out.db");
      const coll = collectionAt(out[action], `mapReduce's out.${action}`);
      return { db: targetDb, coll, how: `mapReduce's out (${action})` };
    }
  }
  throw new Unreadable(
    `mapReduce's out cannot be read: expected a collection name, {replace|merge|reduce: coll, db?} or {inline: 1}, got ${show(out)}`,
  );
}

/**
 * Manual, applyOps: each op's `ns` is the full namespace it applies to. A command op (`op: "c"`, ns
 * `db.$cmd`) writes what its command does: read here as its whole database.
 */
function applyOpsWrites(ops: unknown): WrittenNamespace[] {
  if (!Array.isArray(ops))
    throw new Unreadable(`applyOps cannot be read: expected an array of ops, got ${show(ops)}`);
  return ops.map((op: unknown, index) => {
    const position = `applyOps' op ${index} ns`;
    if (!isPlainObject(op))
      throw new Unreadable(
        `applyOps' op ${index} cannot be read: expected a document, got ${show(op)}`,
      );
    const namespace = fullNamespaceAt(op.ns, position);
    if (op.op === 'c' || namespace.coll === '$cmd')
      return { db: namespace.db, how: `applyOps' op ${index} (a command)` };
    return { ...namespace, how: `applyOps' op ${index}` };
  });
}

/** Manual, bulkWrite (8.0): run against admin, every namespace its ops write is in `nsInfo[i].ns`. */
function bulkWriteWrites(nsInfo: unknown): WrittenNamespace[] {
  if (!Array.isArray(nsInfo))
    throw new Unreadable(
      `bulkWrite's nsInfo cannot be read: expected an array, got ${show(nsInfo)}`,
    );
  return nsInfo.map((entry: unknown, index) => {
    const position = `bulkWrite's nsInfo ${index} ns`;
    if (!isPlainObject(entry))
      throw new Unreadable(`${position} cannot be read: expected a document, got ${show(entry)}`);
    return { ...fullNamespaceAt(entry.ns, position), how: `bulkWrite's nsInfo ${index}` };
  });
}

/** A benchRun-style template (an object with a `#OPERATOR` key): a value made anew for each operation. */
function isTemplate(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).some((key) => key.startsWith('#'));
}

/** The name a namespace position holds: a plain string, or the command is refused. */
function collectionAt(value: unknown, position: string): string {
  if (typeof value === 'string') return value;
  if (isTemplate(value))
    throw new Unreadable(
      `a namespace made by a template (${position}) is refused: write to a collection named in the workload`,
    );
  throw new Unreadable(`${position} cannot be read: expected a name, got ${show(value)}`);
}

/**
 * A full namespace, `db.coll`: the database is everything before the first '.', as the server splits it
 * (nsToDatabaseSubstring, src/mongo/db/namespace_string.h), and the collection everything after.
 */
function fullNamespaceAt(value: unknown, position: string): { db: string; coll: string } {
  const namespace = collectionAt(value, position);
  const dot = namespace.indexOf('.');
  if (dot <= 0 || dot === namespace.length - 1)
    throw new Unreadable(
      `${position} cannot be read: expected a full namespace "database.collection", got ${JSON.stringify(namespace)}`,
    );
  return { db: namespace.slice(0, dot), coll: namespace.slice(dot + 1) };
}
