/**
 * The workload as a step runner outside this thread needs it: the benchRun ops as written plus what
 * prepareWorkload takes, as plain data. Ops may hold BSON values (an ObjectId or a date from a
 * workload file), which a structured clone would strip of their types: they travel as canonical
 * Extended JSON and are parsed back the way a workload file is (relaxed).
 */
import { PreparedWorkload, prepareWorkload } from './compile-ops';
import { parseOps } from '../language/op-spec';
import { parseTypedEjson, toTypedJson } from '../language/typed-ejson';
import type { WriteScope } from './write-handles';

export interface StepWorkload {
  /** The benchRun ops array, as written (a preset's or a workload file's). */
  ops: unknown[];
  /** The namespace of ops that name none ("database.collection"). */
  ns: string;
  /** The write concern of write ops that set none. */
  writeConcern?: Record<string, unknown>;
  /** What its ops may write where they are bound (./write-handles.ts): it travels with the ops. */
  writes: WriteScope;
}

/** StepWorkload with its ops as canonical Extended JSON: what crosses to a worker thread. */
export interface EncodedStepWorkload {
  opsEjson: string;
  ns: string;
  writeConcern?: Record<string, unknown>;
  writes: WriteScope;
}

export function encodeStepWorkload(w: StepWorkload): EncodedStepWorkload {
  return {
    opsEjson: JSON.stringify(toTypedJson(w.ops)),
    ns: w.ns,
    ...(w.writeConcern ? { writeConcern: w.writeConcern } : {}),
    writes: w.writes,
  };
}

export function decodeStepWorkload(e: EncodedStepWorkload): StepWorkload {
  return {
    ops: parseTypedEjson(e.opsEjson) as unknown[],
    ns: e.ns,
    ...(e.writeConcern ? { writeConcern: e.writeConcern } : {}),
    writes: e.writes,
  };
}

/** Validates and compiles the ops (a malformed op is a UsageError naming it). */
export function compileStepWorkload(w: StepWorkload): PreparedWorkload {
  const specs = parseOps(w.ops, { defaultNs: w.ns, where: '' });
  return prepareWorkload(specs, { defaultWriteConcern: w.writeConcern });
}
