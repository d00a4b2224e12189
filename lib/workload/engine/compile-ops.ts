/**
 * Turns validated op specs into the closures the engine calls: templates are compiled once here
 * (before any connection, so a malformed template is a usage error), then bound to a MongoClient.
 * Each server op is sent as the command benchRun sends (see ./op-commands and docs/workload.md).
 */
import { ReadPreference } from 'mongodb';
import { bindCommandOps, PreparedOp } from './op-commands';
import { OpClient, writeHandle, WriteScope } from './write-handles';
import { opLabel } from './op-label';
import { ClientState, compileTemplate, TemplateScope } from '../language/template';
import { OpClass, opClass, OpSpec, OpType } from '../language/op-spec';
import { OP_KINDS } from '../language/ops';
import { dropUndefined } from '../../common/values';

export interface PreparedWorkload {
  ops: PreparedOp[];
  scope: TemplateScope;
}

export interface PrepareOptions {
  /** Applies to write ops that set no writeConcern of their own. */
  defaultWriteConcern?: Record<string, unknown>;
}

/** Compiles every template of every op (each kind its own: ../language/ops); throws a UsageError naming `ops[i].field...` when one is malformed. */
export function prepareWorkload(specs: OpSpec[], options: PrepareOptions = {}): PreparedWorkload {
  const scope = new TemplateScope();
  const ops = specs.map((spec): PreparedOp => {
    const at = `ops[${spec.index}]`;
    const kind = OP_KINDS[spec.type];
    const prepared: PreparedOp = { spec, opClass: opClass(spec) };
    if (
      options.defaultWriteConcern &&
      !kind.local &&
      kind.defaultWriteConcern &&
      !spec.writeConcern
    ) {
      prepared.spec = { ...spec, writeConcern: options.defaultWriteConcern };
    }
    kind.compile(
      spec,
      (value, field) => compileTemplate(value, `${at}.${field}`, scope),
      prepared,
      scope,
    );
    return prepared;
  });
  return { ops, scope };
}

export interface BoundOp {
  readonly index: number;
  readonly type: OpType;
  /** What it runs, for per-op figures (./op-label): a command's name, else the type. */
  readonly name?: string;
  readonly opClass: OpClass;
  readonly delayMs: number;
  /** Set on every op of a weighted workload: ops are then drawn by weight (./weighted-pick). */
  readonly weight?: number;
  /** Server ops return a promise; `nop` and `let` run synchronously and return undefined. */
  run(state: ClientState): Promise<unknown> | undefined;
}

function readPreferenceOf(spec: OpSpec): ReadPreference | undefined {
  const rp = spec.readPreference;
  if (!rp) return undefined;
  return new ReadPreference(
    rp.mode,
    rp.tags,
    rp.maxStalenessSeconds !== undefined
      ? { maxStalenessSeconds: rp.maxStalenessSeconds }
      : undefined,
  );
}

/** Binds prepared ops to a connected client (the driver's MongoClient or the wire client). */
export interface BindOptions {
  /**
   * What the ops may write (./write-handles.ts): the run's checked write plan, a deployment mongo-bench
   * started, or a named caller without a plan. A write op outside it throws here, before anything is sent.
   */
  writes: WriteScope;
  /** Sent as maxTimeMS with the reads (find, findOne), so the server gives up on them too. */
  maxTimeMS?: number;
}

/** Each op with its driver handle (./write-handles.ts: a write outside `bind.writes` throws here, never per op). */
export function bindWorkload(
  prepared: PreparedWorkload,
  client: OpClient,
  bind: BindOptions,
): BoundOp[] {
  return prepared.ops.map((op) => bindOp(op, client, bind));
}

function bindOp(op: PreparedOp, client: OpClient, bind: BindOptions): BoundOp {
  const { spec } = op;
  const base = {
    index: spec.index,
    type: spec.type,
    name: opLabel(spec),
    opClass: op.opClass,
    delayMs: spec.delayMs,
    ...dropUndefined({ weight: spec.weight }),
  };
  const kind = OP_KINDS[spec.type];
  if (kind.local) return { ...base, run: kind.bind(op) };
  const run = bindCommandOps(op, writeHandle(op, client, bind.writes), {
    maxTimeMS: bind.maxTimeMS,
    readPreference: readPreferenceOf(spec),
  });
  return { ...base, run };
}
