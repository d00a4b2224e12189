/**
 * A run that loads nothing (--no-load, no set-up) against collections that hold nothing: a captured
 * workload replayed on an empty target reads and updates nothing and runs at a speed that says little.
 * The namespaces its reads, updates and removes target, counted before the first step.
 */
import type { MongoClient } from 'mongodb';
import type { OpSpec } from '../workload/language/op-spec';
import { OP_KINDS } from '../workload/language/ops';

/** The ops that need data to mean anything, as each kind says (an insert-only namespace may start empty). */
const needsData = (spec: OpSpec): boolean => {
  const kind = OP_KINDS[spec.type];
  return !kind.local && kind.needsData;
};

/** "db.coll" of each namespace the workload reads or changes that holds no document; a count that fails is passed over. */
export async function emptyNamespaces(client: MongoClient, specs: OpSpec[]): Promise<string[]> {
  const namespaces = new Map<string, { db: string; coll: string }>();
  for (const spec of specs) {
    if (!needsData(spec) || !spec.ns || !spec.ns.coll) continue;
    namespaces.set(`${spec.ns.db}.${spec.ns.coll}`, spec.ns);
  }
  const empty: string[] = [];
  for (const [name, ns] of namespaces) {
    try {
      if ((await client.db(ns.db).collection(ns.coll).estimatedDocumentCount()) === 0)
        empty.push(name);
    } catch {
      // A server (or a user) that cannot count: no warning rather than a wrong one.
    }
  }
  return empty;
}

export function emptyNamespacesAdvice(namespaces: string[]): string {
  const shown =
    namespaces.slice(0, 5).join(', ') +
    (namespaces.length > 5 ? ` and ${namespaces.length - 5} more` : '');
  return (
    `--no-load: the workload's namespaces ${shown} hold no documents: its reads, updates and removes find nothing. ` +
    'Load data shaped like yours first (run --docs-like DIR|db.coll|URI/db.coll, without --no-load), or restore a copy of it.'
  );
}
