/**
 * Turns validated op specs into the closures the engine calls: templates are compiled once here
 * (before any connection, so a malformed template is a usage error), then bound to a MongoClient.
 * Each server op is sent as the command benchRun sends (see ./op-commands and docs/workload.md).
 */
import { Document, MongoClient, ReadPreference } from 'mongodb';
import { bindCommandOps, PreparedOp } from './op-commands';
import { opLabel } from './op-label';
import { ClientState, compileTemplate, Generator, TemplateScope } from '../language/template';
import { OpClass, opClass, OpSpec, OpType } from '../language/op-spec';

export interface PreparedWorkload {
  ops: PreparedOp[];
  scope: TemplateScope;
}

export interface PrepareOptions {
  /** Applies to write ops that set no writeConcern of their own. */
  defaultWriteConcern?: Record<string, unknown>;
}

/** Compiles every template of every op; throws a UsageError naming `ops[i].field...` when one is malformed. */
export function prepareWorkload(specs: OpSpec[], options: PrepareOptions = {}): PreparedWorkload {
  const scope = new TemplateScope();
  const ops = specs.map((spec): PreparedOp => {
    const at = `ops[${spec.index}]`;
    const prepared: PreparedOp = { spec, opClass: opClass(spec) };
    if (options.defaultWriteConcern && prepared.opClass === 'write' && !spec.writeConcern && spec.type !== 'command') {
      prepared.spec = { ...spec, writeConcern: options.defaultWriteConcern };
    }
    if (spec.query !== undefined) prepared.query = compileTemplate(spec.query, `${at}.query`, scope);
    if (spec.update !== undefined) prepared.update = compileTemplate(spec.update, `${at}.update`, scope);
    if (spec.command !== undefined) prepared.command = compileTemplate(spec.command, `${at}.command`, scope);
    if (spec.doc !== undefined) prepared.doc = freshDocuments(compileTemplate(spec.doc, `${at}.doc`, scope), Array.isArray(spec.doc));
    if (spec.type === 'let') {
      prepared.value = compileTemplate(spec.value, `${at}.value`, scope);
      // Defined after its own value compiles: `let x = x` is an error, as in benchRun.
      prepared.varSlot = scope.defineVar(spec.target as string);
    }
    return prepared;
  });
  return { ops, scope };
}

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
  return new ReadPreference(rp.mode, rp.tags, rp.maxStalenessSeconds !== undefined ? { maxStalenessSeconds: rp.maxStalenessSeconds } : undefined);
}

/** Binds prepared ops to a connected client. */
export interface BindOptions {
  /** Sent as maxTimeMS with the reads (find, findOne), so the server gives up on them too. */
  maxTimeMS?: number;
}

export function bindWorkload(prepared: PreparedWorkload, client: MongoClient, bind: BindOptions = {}): BoundOp[] {
  return prepared.ops.map((op) => bindOp(op, client, bind));
}

function bindOp(op: PreparedOp, client: MongoClient, bind: BindOptions): BoundOp {
  const { spec } = op;
  const base = { index: spec.index, type: spec.type, name: opLabel(spec), opClass: op.opClass, delayMs: spec.delayMs, ...(spec.weight !== undefined ? { weight: spec.weight } : {}) };
  switch (spec.type) {
    case 'nop':
      return { ...base, run: () => undefined };
    case 'let': {
      const value = op.value as Generator;
      const slot = op.varSlot as number;
      return {
        ...base,
        run: (s) => {
          s.vars[slot] = value(s);
          return undefined;
        },
      };
    }
    default: {
      const run = bindCommandOps(op, client.db(spec.ns!.db), { maxTimeMS: bind.maxTimeMS, readPreference: readPreferenceOf(spec) });
      return { ...base, run };
    }
  }
}

