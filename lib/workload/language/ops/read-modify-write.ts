/**
 * readModifyWrite (a mongo-bench op, not benchRun's): YCSB's READ-MODIFY-WRITE (brianfrankcooper/YCSB,
 * core/src/main/java/site/ycsb/workloads/CoreWorkload.java, doTransactionReadModifyWrite): a read of the
 * record, then an update of it, timed as one op from before the read to after the update. Sent as the
 * MongoDB binding sends its parts (mongodb/src/main/java/site/ycsb/db/MongoDbClient.java): the read as
 * `find(query).first()`, `{find, filter, limit: 1, singleBatch: true}` (as findOne); then the update as
 * `updateOne(query, update)`, `{update, updates: [{q, u, multi: false, upsert: false}], writeConcern?}`, with
 * the same query document. The op is reported once, under its own name, and counted as a write (it
 * changes data); YCSB also counts its read under READ and its update under UPDATE, which this op does not.
 * A failure of either part fails the op; benchRun has no such op, so it has no benchRun figures.
 */
import type { ServerOpKind } from './op-kind';
import { isObject, show } from '../../../common/values';

export const READ_MODIFY_WRITE: ServerOpKind<'readModifyWrite'> = {
  type: 'readModifyWrite',
  fields: ['query', 'update', 'readPreference', 'readPrefMode', 'weight'],
  opClass: 'write',
  defaultWriteConcern: true,
  // It reads a record before changing it: an empty namespace gives it nothing to read.
  needsData: true,
  parse(f, spec) {
    spec.query = f.object('query') ?? {};
    const update = f.raw.update;
    if (update === undefined) f.bad(`${f.at}.update`, 'required for op "readModifyWrite"');
    if (!isObject(update))
      f.bad(
        `${f.at}.update`,
        `expected an update document of operators such as {"$set": {...}}, got ${show(update)}`,
      );
    const keys = Object.keys(update as Record<string, unknown>);
    if (keys.length === 0 || !keys.every((k) => k.startsWith('$')))
      f.bad(
        `${f.at}.update`,
        'expected update operators only ($set, $inc, ...): the write modifies the record it read',
      );
    spec.update = update;
  },
  compile(spec, compile, prepared) {
    prepared.query = compile(spec.query, 'query');
    prepared.update = compile(spec.update, 'update');
  },
  bind(op, wire) {
    const { db, coll, raw, readOptions, checkWrite, failure } = wire;
    const query = op.query!;
    const update = op.update!;
    const readExtra = wire.defined({ readConcern: wire.readConcern, maxTimeMS: wire.maxTimeMS });
    const writeConcern = wire.writeConcern();
    return async (s) => {
      const q = query(s);
      const u = update(s);
      await db.command(
        { find: coll, filter: q, limit: 1, singleBatch: true, ...readExtra },
        readOptions,
      );
      try {
        return checkWrite(
          await db.command(
            { update: coll, updates: [{ q, u, multi: false, upsert: false }], ...writeConcern },
            raw,
          ),
        );
      } catch (err) {
        throw failure(err, 'error');
      }
    };
  },
  opcounters: ['query', 'update'],
};
