/**
 * The handles ops write through: the run's write plan enforced where writes are sent. Each server op is
 * bound once per client connection (./compile-ops.ts), and that is where it gets its driver handle (a
 * `Db`) from here. A write op gets one only when every namespace it writes is one the run's checked write
 * plan allows the workload (lib/server/write-plan.ts; lib/run/write-check.ts checks it before the first
 * write); otherwise the bind throws, naming the namespace, and nothing of the op is sent. Reads are not
 * restricted. The check is made once, at bind time: the op's closure (the hot path) holds the plain `Db`.
 *
 * What an op writes is what the plan read from the same op (lib/run/options/run-write-plan.ts): its own
 * namespace for a write op kind (insert, update, remove, readModifyWrite), the namespaces
 * lib/server/command-writes.ts reads from a command's document for a command op (a command's other
 * databases included: renameCollection's `to`, $out's or $merge's `db`).
 *
 * The scope is plain data: it crosses to worker threads (./worker-protocol.ts) and to agents (their run
 * spec) with the workload.
 */
import { UsageError } from '../../config/errors';
import { classifyCommand, WrittenNamespace } from '../../server/command-writes';
import type { WritePlan } from '../../server/write-plan';
import type { PreparedOp } from './op-commands';
import type { CommandDb } from '../language/ops/op-kind';

/**
 * What ops are bound to: a client that gives a database's handle, the driver's MongoClient or the wire
 * client (lib/wire/client.ts); either way through writeHandle below.
 */
export interface OpClient {
  db(name: string): CommandDb;
}

/** What a workload's ops may write where they are bound. */
export type WriteScope =
  /** A deployment mongo-bench started (embedded, launched, a server it spawned): everything on it is its own. */
  | { kind: 'ours' }
  /**
   * The namespaces the run's checked write plan allows the workload's writes: `db.coll`, or `db` where the
   * plan names a whole database (a command whose collection cannot be told).
   */
  | { kind: 'planned'; namespaces: string[] }
  /**
   * No write plan: a caller that binds ops on its own, named (`caller`) so that binding without a plan is
   * never implicit. Everything is allowed, as before the plan existed.
   */
  | { kind: 'unplanned'; caller: string };

/** A deployment mongo-bench started: every write allowed. */
export const OURS: WriteScope = { kind: 'ours' };

/** Ops bound without a write plan, by `caller` (what binds them, in words). */
export function unplannedWrites(caller: string): WriteScope {
  return { kind: 'unplanned', caller };
}

/**
 * The workload's part of a write plan that was checked (lib/run/write-check.ts): what its write ops may
 * write. A plan on a deployment mongo-bench started allows everything.
 */
export function workloadWrites(plan: WritePlan): WriteScope {
  if (plan.ours) return OURS;
  const namespaces = new Set<string>();
  for (const entry of plan.entries)
    if (
      entry.kind === 'namespace' &&
      entry.source === 'workload' &&
      (entry.on ?? 'target') === 'target'
    )
      namespaces.add(entry.coll === undefined ? entry.db : `${entry.db}.${entry.coll}`);
  return { kind: 'planned', namespaces: [...namespaces] };
}

/**
 * The driver handle op `op` is sent through on `client`: its namespace's database. Throws a UsageError
 * when the op writes a namespace `scope` does not allow (nothing of it is sent). Called once per op and
 * client connection, never per operation.
 */
export function writeHandle(op: PreparedOp, client: OpClient, scope: WriteScope): CommandDb {
  const { spec } = op;
  const refusal = scope.kind === 'planned' ? refusedWrite(op, scope.namespaces) : undefined;
  if (refusal) throw new UsageError(refusal);
  return client.db(spec.ns!.db);
}

/** Why `op` may not be bound under a plan that allows `allowed`; undefined when it may. */
function refusedWrite(op: PreparedOp, allowed: readonly string[]): string | undefined {
  const { spec } = op;
  const at = `op ${spec.index} (${spec.type})`;
  let writes: readonly Pick<WrittenNamespace, 'db' | 'coll'>[];
  if (spec.type === 'command') {
    const found = classifyCommand(spec.command as Record<string, unknown>, spec.ns!.db);
    if ('refused' in found) return `${at}: ${found.refused}; not sent`;
    if (found.reads) return undefined;
    writes = found.writes;
  } else if (op.opClass === 'write') {
    writes = [spec.ns!];
  } else {
    return undefined;
  }
  const set = new Set(allowed);
  const outside = writes.filter(
    (w) => !set.has(w.db) && (w.coll === undefined || !set.has(`${w.db}.${w.coll}`)),
  );
  if (outside.length === 0) return undefined;
  const names = outside.map((w) =>
    w.coll === undefined ? `database ${w.db}` : `${w.db}.${w.coll}`,
  );
  const plan =
    allowed.length > 0
      ? `it allows the workload to write ${allowed.join(', ')}`
      : 'it allows the workload no write';
  return `${at} writes ${names.join(', ')}, which ${names.length === 1 ? 'is' : 'are'} not in the run's checked write plan (${plan}): not sent`;
}
