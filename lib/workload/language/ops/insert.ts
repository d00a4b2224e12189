/**
 * insert: `{insert, documents, writeConcern?}` by db.command (mongodb/mongo src/mongo/shell/bench.cpp
 * v4.4, BenchRunOp::executeOnce); `doc` may be an array (a batch insert: one op, one document per
 * element). A write error, ok: 0 or writeConcernError fails the op here; benchRun counts it as done
 * (rule 'op'), unless the op sets throwGLE (rule 'error'; engine/benchrun-outcome.ts).
 */
import { ObjectId } from 'mongodb';
import type { Document } from 'mongodb';
import { isObject, show } from '../../../common/values';
import type { Generator } from '../template';
import type { ServerOpKind } from './op-kind';

export const INSERT: ServerOpKind<'insert'> = {
  type: 'insert',
  fields: ['doc', 'weight'],
  opClass: 'write',
  defaultWriteConcern: true,
  parse(f, spec) {
    const doc = f.raw.doc;
    if (doc === undefined) f.bad(`${f.at}.doc`, 'required for op "insert"');
    if (Array.isArray(doc)) {
      if (doc.length === 0 || !doc.every(isObject))
        f.bad(
          `${f.at}.doc`,
          'expected a document or a non-empty array of documents (a batch insert)',
        );
    } else if (!isObject(doc)) {
      f.bad(`${f.at}.doc`, `expected a document or an array of documents, got ${show(doc)}`);
    }
    spec.doc = doc;
  },
  compile(spec, compile, prepared) {
    prepared.doc = freshDocuments(compile(spec.doc, 'doc'), Array.isArray(spec.doc));
  },
  bind(op, wire) {
    const { spec } = op;
    const { db, coll, raw, checkWrite, failure } = wire;
    const writeRule = spec.throwGLE ? 'error' : 'op';
    const doc = op.doc!;
    const writeConcern = wire.writeConcern();
    const batch = Array.isArray(spec.doc);
    return async (s) => {
      const made = doc(s);
      const documents = (batch ? made : [made]) as Document[];
      // As the driver's insertOne/insertMany did: an _id made here, so the result names it.
      for (const d of documents) if (d._id === undefined) d._id = new ObjectId();
      try {
        return checkWrite(await db.command({ insert: coll, documents, ...writeConcern }, raw));
      } catch (err) {
        throw failure(err, writeRule);
      }
    };
  },
  benchRun: { rate: 'insert', count: 'inserts', latency: 'insertLatencyAverageMicros' },
  needsData: false,
  opcounters: ['insert'],
  // The server counts each document of a batch, the client one op.
  batch: (raw) => Array.isArray(raw.doc),
  legacyShell: 'writeCmd',
};

/** A fresh copy per insert: the _id added to one must not carry over to the next. */
function freshDocuments(gen: Generator, batch: boolean): Generator {
  if (batch) {
    return (s) => {
      const docs = gen(s) as Document[];
      const out = new Array<Document>(docs.length);
      for (let i = 0; i < docs.length; i++) out[i] = { ...docs[i] };
      return out;
    };
  }
  return (s) => ({ ...(gen(s) as Document) });
}
