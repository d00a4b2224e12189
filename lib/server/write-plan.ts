/**
 * The write plan: every write a command will make, listed before anything connects and checked entry by entry
 * before the first write (Terraform's plan, then apply). Three kinds of entry:
 * - a namespace the run drops, empties, creates, fills, writes or indexes, from every source that asks for it;
 * - a change of server or cluster state (the balancer, chunk size, sharding, server parameters, faults);
 * - a file it writes.
 * This module is the rule alone, as pure functions over what the server or the folder holds: reading that
 * state is ownership.ts's (namespaces) and lib/common/file-plan.ts's (files) job, so the rule is tested on
 * every case without a server.
 *
 * The rule, once (docs/run.md "What may be dropped or written"):
 * - a namespace may be dropped, emptied, recreated, filled or written if it is absent or owned (created by
 *   this run, or marked by mongo-bench and unchanged since);
 * - an empty namespace that is not owned may be filled or written, never dropped or recreated: it carries the
 *   user's indexes, validator, options and shard key;
 * - otherwise only with the consent named for the entry;
 * - a results store or a control database is absent, empty or already one (marked), never a user's: no consent
 *   allows more;
 * - on a deployment mongo-bench started (embedded, launched) everything is its own.
 */
import type { FileEntry } from '../common/file-plan';

/** Where a write comes from: the part of the tool that asks for it. */
export const WRITE_SOURCES = {
  loader: "the built-in loader's documents",
  'docs-like': "--docs-like's documents, loaded",
  workload: "the workload's write ops",
  setup: "the workload's set-up steps",
  'perf-pre': "a mongo-perf test's pre()",
  store: 'the results store (--store)',
  'control-db': "agents' control database (--control-db)",
  experiment: "a matrix experiment's collections",
  probe: "the matrix's capability probes",
  marker: "mongo-bench's owner marker",
  helper: 'the jest helpers',
  event: "a configured event (a scenario's or the run's)",
} as const;
export type WriteSource = keyof typeof WRITE_SOURCES;

/**
 * What a namespace entry does to what is there. `drop` and `recreate` remove what is there; `empty` deletes
 * every document and keeps the collection; `create` makes a new collection; `fill` inserts a load;
 * `write` changes documents (the workload's inserts, updates and deletes); `index` builds indexes.
 */
export const NAMESPACE_ACTIONS = [
  'drop',
  'recreate',
  'empty',
  'create',
  'fill',
  'write',
  'index',
] as const;
export type NamespaceAction = (typeof NAMESPACE_ACTIONS)[number];

/** Actions that remove what a namespace holds (its documents, or the collection and its options). */
const DESTROYING: ReadonlySet<NamespaceAction> = new Set(['drop', 'recreate', 'empty']);

/** The consents a user gives by name, and what each allows. */
export const CONSENTS = {
  '--drop': 'drops the collections the load replaces',
  '--no-load': "lets the workload's writes change existing data",
  '--allow-setup-writes':
    "lets set-up steps and mongo-perf's pre() write namespaces mongo-bench does not own",
  '--setup': "changes the cluster's data distribution (each change listed)",
  '--allow-server-changes': 'changes server parameters',
  '--force': 'replaces files mongo-bench did not write',
  event: 'a configured event makes the change it names',
} as const;
export type Consent = keyof typeof CONSENTS;

export interface NamespaceEntry {
  kind: 'namespace';
  db: string;
  /** Absent: the whole database (a dropDatabase, or a command whose collection cannot be told). */
  coll?: string;
  action: NamespaceAction;
  source: WriteSource;
  /** What asks for it, in words: "op 3 (update)", "set-up step 2 (createIndexes)". */
  detail: string;
  /**
   * The consent that allows this entry where the rule alone does not; `null` for an entry no consent allows
   * beyond the rule (a results store, a control database).
   */
  consent: Consent | null;
  /**
   * The deployment it is on: the target (absent), or the results store's or agents' control database's
   * own (--store, --control-uri), which may be another one.
   */
  on?: 'target' | 'store' | 'control';
}

export const SERVER_CHANGES = [
  'balancer',
  'chunk-size',
  'enable-sharding',
  'shard-collection',
  'collection-balancing',
  'split',
  'move-chunk',
  'server-parameter',
  'step-down',
  'freeze',
  'signal',
  'network-fault',
] as const;
export type ServerChangeKind = (typeof SERVER_CHANGES)[number];

export interface ServerEntry {
  kind: 'server';
  change: ServerChangeKind;
  /** The process or cluster it changes: "cluster", "mongos-0", a host:port. */
  target: string;
  detail: string;
  consent: Consent;
  /** How it is undone when the run ends (also after an interrupt), where it can be. */
  restore?: string;
  /** The collection whose own setting it changes (the chunk size, from 6.0 the collection's). */
  ns?: string;
}

/** A file a command writes: its home is lib/common/file-plan.ts, which judges it (lib/common cannot import this floor). */
export type { FileEntry };

export type WriteEntry = NamespaceEntry | ServerEntry | FileEntry;

export interface WritePlan {
  /** The deployment was started by mongo-bench (embedded, launched): everything on it is its own. */
  ours: boolean;
  /** The consents the user gave. */
  consents: ReadonlySet<Consent>;
  entries: WriteEntry[];
}

/** What a namespace holds now, as ownership.ts reads it. */
export type NamespaceState =
  | { exists: false }
  | {
      exists: true;
      /** Documents it holds (0: empty). */
      docs: number;
      /** Owned by mongo-bench: created by this run, or marked and unchanged since. */
      owned: boolean;
      /** Why it is or is not owned, in words ("marked by mongo-bench 0.1.0 at ..., unchanged"). */
      why: string;
      /** Marked as a results store or a control database (for `store` and `control-db` entries). */
      role?: 'store' | 'control-db';
    };

export type Verdict =
  | { entry: WriteEntry; allowed: true; why: string }
  | { entry: WriteEntry; allowed: false; why: string; consent: Consent | null };

/** The namespace an entry names, as the user reads it: `db.coll`, or `database db`. */
export function namespaceOf(entry: Pick<NamespaceEntry, 'db' | 'coll'>): string {
  return entry.coll === undefined ? `database ${entry.db}` : `${entry.db}.${entry.coll}`;
}

/** The one rule for a namespace entry (see the header), given what the namespace holds now. */
export function judgeNamespace(
  entry: NamespaceEntry,
  state: NamespaceState,
  plan: Pick<WritePlan, 'ours' | 'consents'>,
): Verdict {
  if (plan.ours) return { entry, allowed: true, why: 'a deployment mongo-bench started' };
  if (!state.exists) return { entry, allowed: true, why: 'absent' };
  const holds = `holds ${state.docs} document${state.docs === 1 ? '' : 's'}`;
  if (entry.source === 'store' || entry.source === 'control-db') {
    if (state.role === entry.source)
      return { entry, allowed: true, why: `already a ${roleName(entry.source)}` };
    if (state.docs === 0 && !state.role) return { entry, allowed: true, why: 'empty' };
    return {
      entry,
      allowed: false,
      why: `${holds} and is not a ${roleName(entry.source)}: mongo-bench keeps its ${roleName(entry.source)} apart from a user's data`,
      consent: null,
    };
  }
  if (state.owned) return { entry, allowed: true, why: state.why };
  if (state.docs === 0 && !DESTROYING.has(entry.action))
    return { entry, allowed: true, why: 'empty (filled or written, never dropped)' };
  if (entry.consent && plan.consents.has(entry.consent))
    return { entry, allowed: true, why: `${entry.consent} given` };
  return {
    entry,
    allowed: false,
    why:
      state.docs === 0
        ? `is empty but not mongo-bench's (${state.why}): its indexes, options and shard key are the user's`
        : `${holds} mongo-bench did not write (${state.why})`,
    consent: entry.consent,
  };
}

/** A server or cluster change is made on a deployment mongo-bench started, or with its consent. */
export function judgeServerChange(
  entry: ServerEntry,
  plan: Pick<WritePlan, 'ours' | 'consents'>,
): Verdict {
  if (plan.ours) return { entry, allowed: true, why: 'a deployment mongo-bench started' };
  if (plan.consents.has(entry.consent))
    return { entry, allowed: true, why: `${entry.consent} given` };
  return {
    entry,
    allowed: false,
    why: 'changes a deployment mongo-bench did not start',
    consent: entry.consent,
  };
}

function roleName(role: 'store' | 'control-db'): string {
  return role === 'store' ? 'results store' : 'control database';
}

/** One line for an entry, as --dry-run and refusals print it. */
export function describeEntry(entry: WriteEntry): string {
  switch (entry.kind) {
    case 'namespace':
      return `${entry.action} ${namespaceOf(entry)} (${WRITE_SOURCES[entry.source]}: ${entry.detail})`;
    case 'server':
      return `${entry.change} on ${entry.target} [${entry.consent === 'event' ? 'a configured event' : entry.consent}]: ${entry.detail}${entry.restore ? ` (restored at the end: ${entry.restore})` : ''}`;
    case 'file':
      return `write ${entry.path} (${entry.source})`;
  }
}

/**
 * The refusal (exit 2) for every entry that failed, each with the consent that would allow it; undefined when
 * every entry passed. Nothing has been written when it is thrown.
 */
export function refusalText(
  verdicts: readonly Verdict[],
  /** How the caller spells a consent (the API's `drop: true` for `--drop`); default: the CLI's flag. */
  consentNames: Partial<Record<Consent, string>> = {},
): string | undefined {
  const refused = verdicts.filter((v): v is Extract<Verdict, { allowed: false }> => !v.allowed);
  if (refused.length === 0) return undefined;
  const lines = refused.map((v) => {
    const allow = v.consent
      ? `; ${consentNames[v.consent] ?? v.consent} allows it (${CONSENTS[v.consent]})`
      : '; no option allows it: choose another namespace';
    return `  - ${describeEntry(v.entry)}: ${v.why}${allow}`;
  });
  return `nothing was written: ${refused.length} of the run's writes ${refused.length === 1 ? 'is' : 'are'} refused\n${lines.join('\n')}`;
}

/** The namespaces the plan writes, grouped by source, for the run's data line: "workload writes shop.orders". */
export function writtenNamespaces(plan: WritePlan): Map<WriteSource, string[]> {
  const out = new Map<WriteSource, string[]>();
  for (const entry of plan.entries) {
    if (entry.kind !== 'namespace') continue;
    const list = out.get(entry.source) ?? [];
    const name = namespaceOf(entry);
    if (!list.includes(name)) list.push(name);
    out.set(entry.source, list);
  }
  return out;
}
