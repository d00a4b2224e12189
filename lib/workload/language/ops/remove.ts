/**
 * remove (benchRun's `delete` too): `{delete, deletes: [{q, limit: multi ? 0 : 1}], writeConcern?}`
 * by db.command (mongodb/mongo src/mongo/shell/bench.cpp v4.4, BenchRunOp::executeOnce). A write
 * error, ok: 0 or writeConcernError fails the op here; benchRun counts it as done (rule 'op'), unless
 * the op sets throwGLE (rule 'error'; engine/benchrun-outcome.ts).
 */
import { compileQuery, ServerOpKind } from './op-kind';

export const REMOVE: ServerOpKind<'remove'> = {
  type: 'remove',
  aliases: ['delete'],
  fields: ['query', 'multi', 'weight'],
  opClass: 'write',
  defaultWriteConcern: true,
  parse(f, spec) {
    spec.query = f.object('query') ?? {};
  },
  compile: compileQuery,
  bind(op, wire) {
    const { spec } = op;
    const { db, coll, raw, checkWrite, failure } = wire;
    const writeRule = spec.throwGLE ? 'error' : 'op';
    const query = op.query!;
    const writeConcern = wire.writeConcern();
    const limit = spec.multi ? 0 : 1;
    return async (s) => {
      try {
        return checkWrite(
          await db.command(
            { delete: coll, deletes: [{ q: query(s), limit }], ...writeConcern },
            raw,
          ),
        );
      } catch (err) {
        throw failure(err, writeRule);
      }
    };
  },
  benchRun: { rate: 'delete', count: 'deletes', latency: 'deleteLatencyAverageMicros' },
  needsData: true,
  opcounters: ['delete'],
  legacyShell: 'writeCmd',
};
