/**
 * Each benchRun op as the command benchRun itself sends (mongodb/mongo src/mongo/shell/bench.cpp,
 * v4.4, BenchRunOp::executeOnce), through the lowest public driver API that works, and without
 * decoding replies the op does not need (`raw: true`: nested documents stay bytes):
 *
 * - findOne: `{find, filter, projection?, limit: 1, singleBatch: true}` by db.command. benchRun builds a
 *   QueryRequest with setLimit(1) and setWantMore(false), which asFindCommand writes as `limit: 1,
 *   singleBatch: true` (src/mongo/db/query/query_request.cpp, asFindCommandInternal).
 * - find: `{find, filter, projection?, sort?, skip?, limit?, batchSize?}`, then getMore (with the op's
 *   batchSize) until the cursor id is 0, as runQueryWithReadCommands does. Through db.runCursorCommand,
 *   because a getMore must reach the server holding the cursor (a secondary, one mongos of several),
 *   which db.command's server selection does not promise.
 * - update: `{update, updates: [{q, u, multi, upsert}], writeConcern?}`; insert: `{insert, documents}`;
 *   remove: `{delete, deletes: [{q, limit: multi ? 0 : 1}]}`, each by db.command.
 * - command: the document as given. A command that opens a cursor (aggregate, find, listCollections,
 *   listIndexes; not an explain) goes through db.runCursorCommand and is read to the end with getMore,
 *   its documents counted, as executeOnce's COMMAND case does when the reply has a `cursor`; any
 *   other by db.command.
 *
 * Errors are what the driver's own helpers throw: ok: 0 is a MongoServerError (db.command), a
 * writeConcernError a MongoWriteConcernError (the driver checks every command reply), and the first
 * of writeErrors a MongoServerError, as updateOne/insertOne/deleteOne do (driver lib/operations/update.js).
 */
import { BSON, Db, Document, MongoServerError, ObjectId, ReadPreference } from 'mongodb';
import type { ClientState, Generator } from '../language/template';
import type { OpClass, OpSpec } from '../language/op-spec';
import { asServerReplyFailure } from './benchrun-outcome';

/** An op with its templates compiled (lib/workload/engine/compile-ops.ts prepareWorkload). */
export interface PreparedOp {
  spec: OpSpec;
  opClass: OpClass;
  query?: Generator;
  update?: Generator;
  /** Produces a fresh document (or array of documents) per insert: the driver adds `_id` to what it is given. */
  doc?: Generator;
  command?: Generator;
  value?: Generator;
  varSlot?: number;
}

export interface CommandBindOptions {
  /** --op-timeout: sent as maxTimeMS with find and findOne. */
  maxTimeMS?: number;
  /** The op's own read preference; reads without one use the client's (the URI's), as the driver's helpers did. */
  readPreference?: ReadPreference;
}

export type OpRun = (state: ClientState) => Promise<unknown>;

/** Fields whose value is undefined are left out (the command then carries only what the op sets). */
function defined(fields: Record<string, unknown>): Document {
  const out: Document = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * The write concern as the server reads it ({w, j, wtimeout}): the op's, else the client's (a
 * `w=` in the URI), else none (the server's default; benchRun sends an empty document, the same).
 */
export function wireWriteConcern(spec: OpSpec, db: Db): Document | undefined {
  const wc = spec.writeConcern;
  if (wc) {
    const j = wc.j ?? wc.fsync;
    return defined({ w: wc.w, j: j === undefined ? undefined : Boolean(j), wtimeout: wc.wtimeoutMS ?? wc.wtimeout });
  }
  const inherited = db.writeConcern;
  if (!inherited) return undefined;
  const out = defined({ w: inherited.w, j: inherited.journal, wtimeout: inherited.wtimeoutMS });
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A raw reply's writeErrors entry is still bytes; decoded only on the error path. */
function firstWriteError(entry: unknown): Document {
  return entry instanceof Uint8Array ? BSON.deserialize(entry) : (entry as Document);
}

/** What updateOne/insertOne/deleteOne throw for a reply with ok: 1 that still failed. */
function checkWrite(reply: Document): Document {
  if (reply.code) throw new MongoServerError(reply);
  const errors = reply.writeErrors as unknown[] | undefined;
  if (errors && errors.length > 0) throw new MongoServerError(firstWriteError(errors[0]));
  return reply;
}

const RAW = { raw: true } as const;

/** Commands whose reply is a cursor (unless they only explain): these are read to the end. */
const CURSOR_COMMANDS = new Set(['aggregate', 'find', 'listCollections', 'listIndexes']);

export function opensCursor(command: unknown): boolean {
  if (command === null || typeof command !== 'object') return false;
  const doc = command as Record<string, unknown>;
  const name = Object.keys(doc)[0];
  return name !== undefined && CURSOR_COMMANDS.has(name) && !doc.explain;
}

export function bindCommandOps(op: PreparedOp, db: Db, bind: CommandBindOptions): OpRun {
  const { spec } = op;
  const coll = spec.ns?.coll ?? '';
  const query = op.query as Generator;
  const readConcern = db.readConcern?.level ? { level: db.readConcern.level } : undefined;
  const readOptions = { ...RAW, readPreference: bind.readPreference ?? db.readPreference };

  switch (spec.type) {
    case 'findOne': {
      const extra = defined({ projection: spec.projection, sort: spec.sort, readConcern, maxTimeMS: bind.maxTimeMS });
      return (s) => db.command({ find: coll, filter: query(s), limit: 1, singleBatch: true, ...extra }, readOptions);
    }
    case 'find': {
      const extra = defined({
        projection: spec.projection,
        sort: spec.sort,
        skip: spec.skip,
        limit: spec.limit,
        batchSize: spec.batchSize,
        readConcern,
        maxTimeMS: bind.maxTimeMS,
      });
      const batchSize = spec.batchSize;
      return async (s) => {
        const cursor = db.runCursorCommand({ find: coll, filter: query(s), ...extra }, readOptions);
        // benchRun sends the op's batchSize with every getMore too.
        if (batchSize !== undefined) cursor.setBatchSize(batchSize);
        return (await cursor.toArray()).length;
      };
    }
    case 'update': {
      const writeRule = spec.throwGLE ? 'error' : 'op';
      const update = op.update as Generator;
      const writeConcern = defined({ writeConcern: wireWriteConcern(spec, db) });
      const multi = spec.multi;
      const upsert = spec.upsert;
      return async (s) => {
        try {
          return checkWrite(await db.command({ update: coll, updates: [{ q: query(s), u: update(s), multi, upsert }], ...writeConcern }, RAW));
        } catch (err) {
          throw asServerReplyFailure(err, writeRule);
        }
      };
    }
    case 'insert': {
      const writeRule = spec.throwGLE ? 'error' : 'op';
      const doc = op.doc as Generator;
      const writeConcern = defined({ writeConcern: wireWriteConcern(spec, db) });
      const batch = Array.isArray(spec.doc);
      return async (s) => {
        const made = doc(s);
        const documents = (batch ? made : [made]) as Document[];
        // As the driver's insertOne/insertMany did: an _id made here, so the result names it.
        for (const d of documents) if (d._id === undefined) d._id = new ObjectId();
        try {
          return checkWrite(await db.command({ insert: coll, documents, ...writeConcern }, RAW));
        } catch (err) {
          throw asServerReplyFailure(err, writeRule);
        }
      };
    }
    case 'remove': {
      const writeRule = spec.throwGLE ? 'error' : 'op';
      const writeConcern = defined({ writeConcern: wireWriteConcern(spec, db) });
      const limit = spec.multi ? 0 : 1;
      return async (s) => {
        try {
          return checkWrite(await db.command({ delete: coll, deletes: [{ q: query(s), limit }], ...writeConcern }, RAW));
        } catch (err) {
          throw asServerReplyFailure(err, writeRule);
        }
      };
    }
    case 'command': {
      const command = op.command as Generator;
      // Only the op's own read preference, as before: a command otherwise goes to the primary.
      const options = bind.readPreference ? { ...RAW, readPreference: bind.readPreference } : RAW;
      if (!opensCursor(spec.command)) {
        return async (s) => {
          try {
            return await db.command(command(s) as Document, options);
          } catch (err) {
            throw asServerReplyFailure(err, 'op-and-error');
          }
        };
      }
      return async (s) => {
        const cursor = db.runCursorCommand(command(s) as Document, options);
        try {
          return (await cursor.toArray()).length;
        } catch (err) {
          // No cursor id yet: the command itself answered ok: 0 (benchRun: an op and an error);
          // otherwise a getMore failed, which benchRun throws (an error only).
          throw asServerReplyFailure(err, cursor.id === undefined ? 'op-and-error' : 'error');
        }
      };
    }
    default:
      throw new Error(`op type ${spec.type} sends no command`);
  }
}
