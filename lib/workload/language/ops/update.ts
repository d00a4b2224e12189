/**
 * update: `{update, updates: [{q, u, multi, upsert}], writeConcern?}` by db.command, as benchRun's
 * write-command path sends it (mongodb/mongo src/mongo/shell/bench.cpp v4.4, BenchRunOp::executeOnce).
 * A write error, ok: 0 or writeConcernError fails the op here; benchRun never reads a write command's
 * reply, so it counts the op as done (rule 'op'), unless the op sets throwGLE (rule 'error';
 * engine/benchrun-outcome.ts).
 */
import { isObject, show } from '../../../common/values';
import type { ServerOpKind } from './op-kind';

export const UPDATE: ServerOpKind<'update'> = {
  type: 'update',
  fields: ['query', 'update', 'multi', 'upsert', 'weight'],
  opClass: 'write',
  defaultWriteConcern: true,
  parse(f, spec) {
    spec.query = f.object('query') ?? {};
    const update = f.raw.update;
    if (update === undefined) f.bad(`${f.at}.update`, 'required for op "update"');
    if (Array.isArray(update)) {
      if (!update.every(isObject))
        f.bad(
          `${f.at}.update`,
          'expected an update document or an aggregation pipeline (array of stages)',
        );
    } else if (!isObject(update)) {
      f.bad(`${f.at}.update`, `expected an update document, got ${show(update)}`);
    } else {
      const keys = Object.keys(update);
      const operators = keys.filter((k) => k.startsWith('$'));
      if (operators.length > 0 && operators.length !== keys.length) {
        f.bad(`${f.at}.update`, 'mixes update operators ($set, $inc, ...) with plain fields');
      }
      if (operators.length === 0 && spec.multi)
        f.bad(`${f.at}.update`, 'a replacement document cannot be used with multi: true');
    }
    spec.update = update;
  },
  compile(spec, compile, prepared) {
    prepared.query = compile(spec.query, 'query');
    prepared.update = compile(spec.update, 'update');
  },
  bind(op, wire) {
    const { spec } = op;
    const { db, coll, raw, checkWrite, failure } = wire;
    const writeRule = spec.throwGLE ? 'error' : 'op';
    const query = op.query!;
    const update = op.update!;
    const writeConcern = wire.writeConcern();
    const multi = spec.multi;
    const upsert = spec.upsert;
    return async (s) => {
      try {
        return checkWrite(
          await db.command(
            {
              update: coll,
              updates: [{ q: query(s), u: update(s), multi, upsert }],
              ...writeConcern,
            },
            raw,
          ),
        );
      } catch (err) {
        throw failure(err, writeRule);
      }
    };
  },
  benchRun: { rate: 'update', count: 'updates', latency: 'updateLatencyAverageMicros' },
  needsData: true,
  opcounters: ['update'],
  legacyShell: 'writeCmd',
};
