/**
 * Loads the documents a workload runs over: drops the collection (or, keepCollection, empties it) through
 * the data guard (only what the tool loaded, or with the user's consent), creates the indexes, then inserts
 * `docs` documents in batches (as MOST did: 16 KB documents in batches of 256) with the chosen write
 * concern, reporting progress after every batch.
 */
import { MongoClient, WriteConcernSettings } from 'mongodb';
import { dropCollection, emptyCollection, GuardPolicy } from '../server/data-guard';
import { markOwned } from '../server/ownership';
import { documentFactory, INDEXED_FIELDS } from '../workload/language/documents';
import { templateDocumentFactory } from '../workload/language/template-documents';
import { Namespace } from '../workload/language/op-spec';

export interface LoadPlan {
  ns: Namespace;
  docs: number;
  docSize: number;
  batchSize: number;
  writeConcern?: WriteConcernSettings;
  randomSeed: number;
  /**
   * Empty the existing collection (deleteMany) instead of dropping it: a collection the setup plan
   * sharded and pre-split keeps its shard key and chunk distribution.
   */
  keepCollection?: boolean;
  /**
   * Documents from this template (`run --docs-like`, typed values as a workload file holds them) instead
   * of the built-in shape; `docSize` is then the template's business and the built-in indexes (k, group)
   * are not created: those fields are not in the user's documents.
   */
  documentTemplate?: unknown;
  /**
   * What may be replaced (lib/server/data-guard): on a deployment the tool did not start, a collection
   * holding documents it did not load is refused (exit 2) unless the user consented (--drop). Default:
   * that rule, consent given by this field's `consent: true`.
   */
  guard?: GuardPolicy;
}

export interface LoadProgress {
  loaded: number;
  total: number;
}

export interface LoadResult {
  docs: number;
  seconds: number;
  /** False when the signal stopped the load early. */
  complete: boolean;
}

export async function loadData(
  client: MongoClient,
  plan: LoadPlan,
  hooks: { onProgress?: (p: LoadProgress) => void; signal?: AbortSignal } = {},
): Promise<LoadResult> {
  const started = performance.now();
  const guard = plan.guard ?? {
    ours: false,
    consent: false,
    consentFlag: 'guard: { consent: true } in the load plan',
  };
  const db = client.db(plan.ns.db);
  const coll = db.collection<{ _id: number }>(plan.ns.coll);
  if (plan.keepCollection)
    await emptyCollection(client, plan.ns.db, plan.ns.coll, guard, plan.writeConcern);
  else
    await dropCollection(client, plan.ns.db, plan.ns.coll, guard, {
      claim: true,
      ...(plan.writeConcern ? { writeConcern: plan.writeConcern } : {}),
    });
  if (plan.documentTemplate === undefined)
    await coll.createIndexes(
      INDEXED_FIELDS.map((field) => ({ key: { [field]: 1 }, name: `${field}_1` })),
    );
  const factory =
    plan.documentTemplate !== undefined
      ? templateDocumentFactory(plan.documentTemplate, plan.randomSeed)
      : documentFactory(plan.docs, plan.docSize, plan.randomSeed);
  const options = plan.writeConcern
    ? { ordered: false, writeConcern: plan.writeConcern }
    : { ordered: false };
  let loaded = 0;
  hooks.onProgress?.({ loaded, total: plan.docs });
  while (loaded < plan.docs) {
    if (hooks.signal?.aborted)
      return { docs: loaded, seconds: (performance.now() - started) / 1000, complete: false };
    const end = Math.min(plan.docs, loaded + plan.batchSize);
    const batch: { _id: number }[] = [];
    for (let id = loaded; id < end; id++) batch.push(factory.make(id));
    await coll.insertMany(batch, options);
    loaded = end;
    hooks.onProgress?.({ loaded, total: plan.docs });
  }
  // Loaded: the marker now records what identifies the collection (a run marks it 'running' next).
  if (!guard.ours) await markOwned(client, plan.ns.db, plan.ns.coll, 'done', plan.writeConcern);
  return { docs: loaded, seconds: (performance.now() - started) / 1000, complete: true };
}
