/**
 * TODO(command-writes, namespace-rules): stand-ins, in this branch only, for lib/server/command-writes.ts
 * (classifyCommand) and lib/server/namespace-rules.ts (namespaceProblem, systemNamespaceProblem), which
 * are being written on other branches with these signatures. When they land on main, delete this file
 * and import theirs in run-write-plan.ts: nothing else uses it.
 */
import { isObject } from '../../common/values';

export type CommandWrites =
  | { reads: true }
  | { reads: false; writes: { db: string; coll?: string; how: string }[] }
  | { reads: false; refused: string };

/** Commands that only read (a small allow-list: anything else writes the namespaces it names). */
const READ_ONLY = new Set([
  'find',
  'count',
  'distinct',
  'listCollections',
  'listIndexes',
  'ping',
  'hello',
  'isMaster',
  'ismaster',
  'buildInfo',
  'serverStatus',
  'dbStats',
  'collStats',
  'explain',
  'getMore',
]);

/** TODO(command-writes): replaced by classifyCommand. */
export function classifyCommand(command: Record<string, unknown>, db: string): CommandWrites {
  const name = Object.keys(command)[0] ?? '';
  const target = command[name];
  if (name === 'aggregate') return aggregateWrites(command, db);
  if (READ_ONLY.has(name)) return { reads: true };
  if (name === 'dropDatabase') return { reads: false, writes: [{ db, how: name }] };
  if (typeof target === 'string')
    return { reads: false, writes: [{ db, coll: target, how: name }] };
  if (isObject(target) && Object.keys(target).some((k) => k.startsWith('#')))
    return { reads: false, refused: `${name}'s collection is made by a template` };
  return { reads: false, writes: [{ db, how: name }] };
}

/** An aggregate reads, unless a $out or $merge stage writes. */
function aggregateWrites(command: Record<string, unknown>, db: string): CommandWrites {
  const stages = Array.isArray(command.pipeline) ? command.pipeline : [];
  const writes: { db: string; coll?: string; how: string }[] = [];
  for (const stage of stages) {
    if (!isObject(stage)) continue;
    const out = stage.$out ?? stage.$merge;
    if (out === undefined) continue;
    const how = stage.$out !== undefined ? '$out' : '$merge';
    if (typeof out === 'string') writes.push({ db, coll: out, how });
    else if (isObject(out)) {
      const into = isObject(out.into) ? out.into : out;
      const coll = typeof out.into === 'string' ? out.into : into.coll;
      const target = typeof into.db === 'string' ? into.db : db;
      if (typeof coll !== 'string')
        return { reads: false, refused: `${how}'s collection is made by a template` };
      writes.push({ db: target, coll, how });
    }
  }
  return writes.length > 0 ? { reads: false, writes } : { reads: true };
}

const SYSTEM_DATABASES = new Set(['admin', 'local', 'config']);

/** TODO(namespace-rules): a system database or collection, which mongo-bench never writes on a deployment it did not start. */
export function systemNamespaceProblem(db: string, coll?: string): string | undefined {
  if (SYSTEM_DATABASES.has(db)) return `${db} is a system database`;
  if (coll?.startsWith('system.')) return `${coll} is a system collection`;
  return undefined;
}

/** TODO(namespace-rules): a name the server would refuse, or a system namespace. */
export function namespaceProblem(db: string, coll?: string): string | undefined {
  if (db === '' || /[/\\. "$\0]/.test(db)) return `"${db}" is not a valid database name`;
  if (coll !== undefined && (coll === '' || coll.includes('$') || coll.includes('\0')))
    return `"${coll}" is not a valid collection name`;
  return systemNamespaceProblem(db, coll);
}
