/**
 * find (benchRun's `query` too): `{find, filter, projection?, sort?, skip?, limit?, batchSize?}`, then
 * getMore (with the op's batchSize) until the cursor id is 0, as benchRun's runQueryWithReadCommands
 * does (mongodb/mongo src/mongo/shell/bench.cpp v4.4). Through db.runCursorCommand, because a getMore
 * must reach the server holding the cursor (a secondary, one mongos of several), which db.command's
 * server selection does not promise. A failure is thrown (rule 'error', engine/benchrun-outcome.ts).
 */
import { compileQuery, parseFindFields, ServerOpKind } from './op-kind';

export const FIND: ServerOpKind<'find'> = {
  type: 'find',
  aliases: ['query'],
  fields: [
    'query',
    'filter',
    'sort',
    'limit',
    'skip',
    'batchSize',
    'readPreference',
    'readPrefMode',
    'weight',
  ],
  opClass: 'read',
  parse(f, spec) {
    parseFindFields(f, spec);
    spec.limit = f.count('limit');
    spec.skip = f.count('skip');
    spec.batchSize = f.count('batchSize');
  },
  compile: compileQuery,
  bind(op, wire) {
    const { spec } = op;
    const { db, coll, readOptions } = wire;
    const query = op.query!;
    const extra = wire.defined({
      projection: spec.projection,
      sort: spec.sort,
      skip: spec.skip,
      limit: spec.limit,
      batchSize: spec.batchSize,
      readConcern: wire.readConcern,
      maxTimeMS: wire.maxTimeMS,
    });
    const batchSize = spec.batchSize;
    return async (s) => {
      const cursor = db.runCursorCommand({ find: coll, filter: query(s), ...extra }, readOptions);
      // benchRun sends the op's batchSize with every getMore too.
      if (batchSize !== undefined) cursor.setBatchSize(batchSize);
      return (await cursor.toArray()).length;
    };
  },
  benchRun: { rate: 'query', count: 'queries', latency: 'queryLatencyAverageMicros' },
  needsData: true,
  opcounters: ['query'],
  legacyShell: 'readCmd',
};
