/**
 * Each benchRun op as the command benchRun itself sends (mongodb/mongo src/mongo/shell/bench.cpp,
 * v4.4, BenchRunOp::executeOnce), through the lowest public driver API that works, and without
 * decoding replies the op does not need (`raw: true`: nested documents stay bytes). Each op kind
 * says its command in its own module (../language/ops/*.ts, with its bench.cpp citation and failure
 * rule); this file hands it the handle (the driver's Db or the wire client's, behind the write guard)
 * and the wire helpers (OpWire).
 *
 * Errors are what the driver's own helpers throw: ok: 0 is a MongoServerError (db.command), a
 * writeConcernError a MongoWriteConcernError (the driver checks every command reply), and the first
 * of writeErrors a MongoServerError, as updateOne/insertOne/deleteOne do (driver lib/operations/update.js).
 */
import { BSON, Document, MongoServerError, ReadPreference } from 'mongodb';
import type { OpSpec, OpType } from '../language/op-spec';
import { OP_KINDS } from '../language/ops';
import type {
  CommandDb,
  OpRun,
  OpWire,
  PreparedOp as AnyPreparedOp,
} from '../language/ops/op-kind';
import { asServerReplyFailure } from './benchrun-outcome';

/** An op with its templates compiled (lib/workload/engine/compile-ops.ts prepareWorkload). */
export type PreparedOp = AnyPreparedOp<OpType>;

export interface CommandBindOptions {
  /** --op-timeout: sent as maxTimeMS with find and findOne. */
  maxTimeMS?: number;
  /** The op's own read preference; reads without one use the client's (the URI's), as the driver's helpers did. */
  readPreference?: ReadPreference;
}

export type { OpRun };

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
export function wireWriteConcern(spec: OpSpec, db: CommandDb): Document | undefined {
  const wc = spec.writeConcern;
  if (wc) {
    const j = wc.j ?? wc.fsync;
    return defined({
      w: wc.w,
      j: j === undefined ? undefined : Boolean(j),
      wtimeout: wc.wtimeoutMS ?? wc.wtimeout,
    });
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

export function bindCommandOps(op: PreparedOp, db: CommandDb, bind: CommandBindOptions): OpRun {
  const { spec } = op;
  const kind = OP_KINDS[spec.type];
  if (kind.local) throw new Error(`op type ${spec.type} sends no command`);
  const wire: OpWire = {
    db,
    coll: spec.ns?.coll ?? '',
    readConcern: db.readConcern?.level ? { level: db.readConcern.level } : undefined,
    readOptions: { ...RAW, readPreference: bind.readPreference ?? db.readPreference },
    readPreference: bind.readPreference,
    maxTimeMS: bind.maxTimeMS,
    raw: RAW,
    writeConcern: () => defined({ writeConcern: wireWriteConcern(spec, db) }),
    defined,
    checkWrite,
    failure: asServerReplyFailure,
  };
  return kind.bind(op, wire);
}
