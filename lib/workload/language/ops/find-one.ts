/**
 * findOne: `{find, filter, projection?, sort?, limit: 1, singleBatch: true}` by db.command. benchRun
 * builds a QueryRequest with setLimit(1) and setWantMore(false), which asFindCommand writes as
 * `limit: 1, singleBatch: true` (mongodb/mongo src/mongo/shell/bench.cpp v4.4, BenchRunOp::executeOnce;
 * src/mongo/db/query/query_request.cpp, asFindCommandInternal). A failure is thrown: benchRun counts
 * it in the per-op counter, not in totalOps (rule 'error', engine/benchrun-outcome.ts).
 */
import { compileQuery, parseFindFields, ServerOpKind } from './op-kind';

export const FIND_ONE: ServerOpKind<'findOne'> = {
  type: 'findOne',
  fields: ['query', 'filter', 'sort', 'readPreference', 'readPrefMode', 'weight'],
  opClass: 'read',
  parse: parseFindFields,
  compile: compileQuery,
  bind(op, wire) {
    const { spec } = op;
    const { db, coll, readOptions } = wire;
    const query = op.query!;
    const extra = wire.defined({
      projection: spec.projection,
      sort: spec.sort,
      readConcern: wire.readConcern,
      maxTimeMS: wire.maxTimeMS,
    });
    return (s) =>
      db.command(
        { find: coll, filter: query(s), limit: 1, singleBatch: true, ...extra },
        readOptions,
      );
  },
  benchRun: { rate: 'findOne', count: 'findOnes', latency: 'findOneLatencyAverageMicros' },
  needsData: true,
  opcounters: ['query'],
  legacyShell: 'readCmd',
};
