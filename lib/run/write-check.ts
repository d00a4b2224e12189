/**
 * The run's write plan checked against what the target holds, before the first write: each entry's
 * namespace read (lib/server/ownership.ts) and judged by the plan's one rule (lib/server/write-plan.ts);
 * one refusal (exit 2) lists every entry refused with its consent, and nothing has been dropped or
 * written when it is thrown. --drop is refused here too when it would drop --docs-like's source on the
 * target's deployment under another name (lib/server/same-deployment.ts). A results store and a control
 * database are judged by the same rule (absent, empty or already one, never a user's) where their
 * deployment is opened (lib/server/role-check.ts), and a control database on the target here as well.
 */
import type { MongoClient } from 'mongodb';
import { RunError, UsageError } from '../config/errors';
import { messageOf } from '../common/values';
import {
  Consent,
  judgeNamespace,
  judgeServerChange,
  NamespaceEntry,
  NamespaceState,
  namespaceOf,
  refusalText,
  Verdict,
  WritePlan,
} from '../server/write-plan';
import { readNamespaceState } from '../server/ownership';
import { sameDeployment } from '../server/same-deployment';
import type { DocsLikeSpec } from '../prepare/docs-like';
import {
  docsLikeDropRefusal,
  docsLikeSource,
  dropOfDocsLikeSource,
  planProblems,
  RunWritePlan,
} from './options/run-write-plan';

export interface WriteCheckContext {
  /** Namespaces (`db.coll`) this run already created or replaced, after an earlier check passed. */
  createdByRun?: ReadonlySet<string>;
  /** --docs-like: its source must not be among what --drop drops. */
  docsLike?: DocsLikeSpec;
  /** How the caller spells each consent in a refusal (the API's keys); default: the CLI's flags. */
  consentNames?: Partial<Record<Consent, string>>;
}

/** Entries that remove what is there: judged first, so what they replace is the run's for the entries after them. */
const REPLACING = new Set(['drop', 'recreate', 'empty']);

/** Throws the refusal (exit 2) unless every entry of the plan may be written on the target `client` reaches. */
export async function checkRunWrites(
  client: MongoClient,
  plan: RunWritePlan,
  ctx: WriteCheckContext = {},
): Promise<void> {
  if (plan.ours) return;
  // What no consent allows (the run command refused it before connecting; the API's runs are refused here).
  const problems = planProblems(plan);
  if (problems) throw new UsageError(problems);
  await refuseDroppingDocsLikeSource(client, plan, ctx.docsLike);
  const verdicts = await judgeEntries(client, plan, ctx.createdByRun ?? new Set());
  const refusal = refusalText(verdicts, ctx.consentNames);
  if (refusal) throw new UsageError(refusal);
}

async function judgeEntries(
  client: MongoClient,
  plan: WritePlan,
  createdByRun: ReadonlySet<string>,
): Promise<Verdict[]> {
  const namespaces = plan.entries.filter(
    (e): e is NamespaceEntry =>
      e.kind === 'namespace' &&
      // An entry on another deployment (the results store's, --control-uri's) is judged by the same rule
      // where that deployment is opened, before its first write (lib/server/role-check.ts: the store's
      // write probe and MongoStore.open, the coordinator and every agent). A control database on the
      // target is judged here too: the coordinator, which filled it before the run, marked it one.
      (e.on ?? 'target') === 'target' &&
      // mongo-bench's own bookkeeping, written only beside a collection the plan allowed.
      e.source !== 'marker',
  );
  const ordered = [
    ...namespaces.filter((e) => REPLACING.has(e.action)),
    ...namespaces.filter((e) => !REPLACING.has(e.action)),
  ];
  const replaced = new Set<string>();
  const verdicts: Verdict[] = [];
  for (const entry of ordered) {
    const state = replacedFirst(entry, replaced) ?? (await stateOf(client, entry, createdByRun));
    const verdict = judgeNamespace(entry, state, plan);
    verdicts.push(verdict);
    if (verdict.allowed && REPLACING.has(entry.action))
      replaced.add(entry.coll === undefined ? entry.db : `${entry.db}.${entry.coll}`);
  }
  for (const entry of plan.entries)
    if (entry.kind === 'server') verdicts.push(judgeServerChange(entry, plan));
  return verdicts;
}

/** A namespace an allowed drop or recreate of this plan replaces first is the run's own by then. */
function replacedFirst(entry: NamespaceEntry, replaced: Set<string>): NamespaceState | undefined {
  if (REPLACING.has(entry.action)) return undefined;
  const key = `${entry.db}.${entry.coll ?? ''}`;
  if (!replaced.has(entry.db) && !(entry.coll !== undefined && replaced.has(key))) return undefined;
  return { exists: true, docs: 0, owned: true, why: 'replaced by this run first' };
}

async function stateOf(
  client: MongoClient,
  entry: NamespaceEntry,
  createdByRun: ReadonlySet<string>,
): Promise<NamespaceState> {
  try {
    return await readNamespaceState(client, entry.db, entry.coll, {
      createdByRun: new Set(createdByRun),
    });
  } catch (err) {
    // Unchecked is refused: nothing is written on a guess.
    throw new RunError(
      `cannot read what ${namespaceOf(entry)} holds, so nothing was written: ${messageOf(err)}`,
    );
  }
}

/** --drop that drops --docs-like's source (by name, on the target's deployment) is refused. */
async function refuseDroppingDocsLikeSource(
  client: MongoClient,
  plan: WritePlan,
  spec: DocsLikeSpec | undefined,
): Promise<void> {
  const source = docsLikeSource(spec);
  if (!source || !dropOfDocsLikeSource(plan, source)) return;
  if (!source.uri) throw new UsageError(docsLikeDropRefusal(source));
  const found = await sameDeployment(client, source.uri);
  if (found.same) throw new UsageError(docsLikeDropRefusal(source, found.why));
}
