/**
 * The op registry: one line per op kind, in the order benchRun's figures and messages list them.
 * Adding an op: its module in this folder, one line here, its test, its row in docs/workload.md
 * (test/architecture/op-kinds.test.ts checks every module here is registered).
 */
import { COMMAND } from './command';
import { FIND } from './find';
import { FIND_ONE } from './find-one';
import { INSERT } from './insert';
import { LET } from './let';
import { NOP } from './nop';
import type { OpKind } from './op-kind';
import { READ_MODIFY_WRITE } from './read-modify-write';
import { REMOVE } from './remove';
import { UPDATE } from './update';

/** Each key is its module's `type` (checked by the compiler). */
function registry<R extends { [K in keyof R]: OpKind<K & string> }>(kinds: R): R {
  return kinds;
}

export const OP_KINDS = registry({
  findOne: FIND_ONE,
  find: FIND,
  update: UPDATE,
  insert: INSERT,
  remove: REMOVE,
  command: COMMAND,
  readModifyWrite: READ_MODIFY_WRITE,
  nop: NOP,
  let: LET,
});

/** Canonical op type, used for per-op statistics. */
export type OpType = keyof typeof OP_KINDS;

/** Every op kind, in registry order. */
export const OP_KIND_LIST: readonly OpKind<OpType>[] = Object.values(OP_KINDS);

/** The kind of an op name, benchRun's aliases (`query`, `delete`) included; undefined when unknown. */
export function opKindNamed(name: unknown): OpKind<OpType> | undefined {
  return typeof name === 'string' ? BY_NAME.get(name) : undefined;
}

const BY_NAME = new Map<string, OpKind<OpType>>(
  OP_KIND_LIST.flatMap((kind) =>
    [kind.type, ...(kind.aliases ?? [])].map((name) => [name, kind] as const),
  ),
);
