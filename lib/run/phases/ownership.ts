/**
 * The markers of the collections this run loaded on a deployment it did not start (lib/server/ownership.ts):
 * 'running' once the data is in place and after every step, 'done' when the run ends. A run killed midway
 * leaves 'running', so the next run still finds the collection mongo-bench's; a finished run leaves what
 * identifies the collection (its UUID, or its count and `_id` range), so a collection changed or recreated
 * by someone else afterwards is no longer taken for mongo-bench's.
 */
import { markOwned, OwnedPhase } from '../../server/ownership';
import { withDeadline } from '../../common/deadline';
import { messageOf } from '../../common/values';
import { parseNamespace } from '../../workload/language/op-spec';
import type { SweepState } from './state';

/** The namespaces whose markers this run keeps: the loader's, on a deployment it did not start. */
function ownedNamespaces(state: SweepState): { db: string; coll: string }[] {
  if (state.guard.ours || !state.options.load || state.options.setup) return [];
  const ns = parseNamespace(state.options.ns, false);
  return ns ? [ns] : [];
}

/** Re-records the markers; a failure is told, never fatal (the next run then refuses: the safe side). */
export async function recordOwnership(state: SweepState, phase: OwnedPhase): Promise<void> {
  for (const { db, coll } of ownedNamespaces(state)) {
    try {
      // Bounded like a server selection: a pool a network fault left half open would hold the run an op
      // timeout per write.
      const limitMs = state.options.serverSelectionTimeoutMS;
      const done = await withDeadline(
        markOwned(state.client, db, coll, phase).then(() => true),
        limitMs,
        () => false,
      );
      if (!done) throw new Error(`no answer within ${limitMs / 1000} s`);
    } catch (err) {
      state.run.emit({
        type: 'guard',
        text: `could not record ${db}.${coll} as mongo-bench's (${messageOf(err)}): a later run will ask for --drop to replace it`,
      });
    }
  }
}
