/**
 * The rule for a results store (`--store mongodb://...`) and agents' control database (`--control-db`),
 * applied on the deployment they live on, where it is opened: the store's write probe (lib/store/check.ts),
 * MongoStore.open (every command and API call that opens a MongoDB store: run, import, history), the
 * coordinator and every agent (lib/agents). Each is absent, empty, or already one (marked by mongo-bench,
 * lib/server/ownership.ts), never a user's: no option allows more. Nothing is written before the check;
 * once it passed, `claimRole` marks what it allowed, so the next run, an agent joining, or a second
 * import finds it marked.
 *
 * The rule itself is write-plan.ts's judgeNamespace, the one the run's plan is judged by.
 */
import type { MongoClient } from 'mongodb';
import { UsageError } from '../config/errors';
import { messageOf } from '../common/values';
import { redactUri } from '../security/redact';
import { markRole, NamespaceRole, readNamespaceState } from './ownership';
import { judgeNamespace, NamespaceEntry, NamespaceState, namespaceOf } from './write-plan';

export interface RoleNamespace {
  role: NamespaceRole;
  db: string;
  /** The store's collection; absent for a control database (a whole database). */
  coll?: string;
  /** How the refusal names what was asked: `option --store`, `option --control-db`. */
  option: string;
  /** What the user named it by (a URI, shown redacted): the store's spec, the control URI. */
  at: string;
}

/** The write plan's entry for a store or a control database: what the rule judges. */
export function roleEntry(ns: Pick<RoleNamespace, 'role' | 'db' | 'coll'>): NamespaceEntry {
  return {
    kind: 'namespace',
    db: ns.db,
    ...(ns.role === 'store' ? { coll: ns.coll } : {}),
    action: 'write',
    source: ns.role,
    detail: ns.role === 'store' ? 'each result' : 'agents, runs, steps, measurements',
    consent: null,
  };
}

/**
 * Reads what the namespace holds and judges it; throws the refusal (a UsageError, exit 2) naming it when it
 * is a user's, or when it cannot be read (nothing is written on a guess). Writes nothing.
 */
export async function checkRole(client: MongoClient, ns: RoleNamespace): Promise<NamespaceState> {
  const entry = roleEntry(ns);
  const where = `${namespaceOf(entry)} at ${redactUri(ns.at)}`;
  let state: NamespaceState;
  try {
    state = await readNamespaceState(client, ns.db, ns.coll);
  } catch (err) {
    throw new UsageError(
      `${ns.option}: cannot read what ${where} holds, so nothing was written: ${redactUri(messageOf(err))}`,
    );
  }
  const verdict = judgeNamespace(entry, state, { ours: false, consents: new Set() });
  if (!verdict.allowed)
    throw new UsageError(
      `${ns.option}: ${where} ${verdict.why}; no option allows it: choose another ${ns.role === 'store' ? 'collection' : 'database'} (nothing was written)`,
    );
  return state;
}

/**
 * checkRole, then (allowed) the mark, unless it is already there: for the control database, whose
 * collections are created right after. The store is marked once its collection exists (markRole records
 * its UUID), by the caller.
 */
export async function claimRole(client: MongoClient, ns: RoleNamespace): Promise<void> {
  const state = await checkRole(client, ns);
  if (!(state.exists && state.role === ns.role)) await markRole(client, ns.db, ns.role, ns.coll);
}
