/**
 * What a namespace holds and whether mongo-bench owns it, read from the server for the write plan's rule
 * (./write-plan.ts judges; this module only reads).
 *
 * TEMPORARY (branch h-data): a stand-in with the signature of the ownership module being written on
 * another branch; it maps data-guard's marker (`<db>.mongo_bench_owner`) onto NamespaceState and is
 * replaced by that module on merge. Unlike data-guard's ownership(), it has no shape heuristic: a
 * collection without a marker is not mongo-bench's, whatever its documents look like.
 */
import type { Document, MongoClient, WriteConcernSettings } from 'mongodb';
import { claimCollection, OWNER_COLLECTION } from './data-guard';
import type { NamespaceState } from './write-plan';

/** The collections of agents' control database (lib/agents/control.ts). */
const CONTROL_COLLECTIONS = new Set(['agents', 'runs', 'steps', 'measurements']);
/** The index a MongoDB results store builds first (lib/store/mongo-store.ts). */
const STORE_INDEX = 'label_startedAt';

export interface OwnershipContext {
  /** Namespaces (`db.coll`) this run created or replaced after its write plan passed: its own. */
  createdByRun: ReadonlySet<string>;
}

/** What `db.coll` (or, coll undefined, the whole database) holds now, and whether mongo-bench owns it. */
export async function readNamespaceState(
  client: MongoClient,
  db: string,
  coll: string | undefined,
  ctx?: OwnershipContext,
): Promise<NamespaceState> {
  if (coll === undefined) return databaseState(client, db, ctx);
  const listed = await client.db(db).listCollections({ name: coll }, { nameOnly: true }).toArray();
  if (listed.length === 0) return { exists: false };
  const docs = await documentCount(client, db, coll);
  if (ctx?.createdByRun.has(`${db}.${coll}`))
    return { exists: true, docs, owned: true, why: 'created by this run' };
  const marker = await client
    .db(db)
    .collection<{ _id: string; loadedBy?: string }>(OWNER_COLLECTION)
    .findOne({ _id: coll });
  if (marker)
    return {
      exists: true,
      docs,
      owned: true,
      why: `marked as loaded by ${String(marker.loadedBy ?? 'mongo-bench')}`,
    };
  const role = docs > 0 && (await isStore(client, db, coll)) ? { role: 'store' as const } : {};
  return { exists: true, docs, owned: false, why: `no ${OWNER_COLLECTION} marker`, ...role };
}

/** Marks `db.coll` as mongo-bench's (a later run may replace it). */
export async function markOwned(
  client: MongoClient,
  db: string,
  coll: string,
  writeConcern?: WriteConcernSettings,
): Promise<void> {
  await claimCollection(client, db, coll, writeConcern);
}

async function databaseState(
  client: MongoClient,
  db: string,
  ctx: OwnershipContext | undefined,
): Promise<NamespaceState> {
  const names = (await client.db(db).listCollections({}, { nameOnly: true }).toArray())
    .map((c: Document) => String(c.name))
    .filter((name) => name !== OWNER_COLLECTION && !name.startsWith('system.'));
  if (names.length === 0) return { exists: false };
  let docs = 0;
  const strangers: string[] = [];
  for (const name of names) {
    const state = await readNamespaceState(client, db, name, ctx);
    if (!state.exists) continue;
    docs += state.docs;
    if (!state.owned && state.docs > 0) strangers.push(name);
  }
  if (names.every((name) => CONTROL_COLLECTIONS.has(name)))
    return {
      exists: true,
      docs,
      owned: false,
      why: "agents' control collections",
      role: 'control-db',
    };
  if (strangers.length === 0)
    return {
      exists: true,
      docs,
      owned: true,
      why: "every collection holding documents is mongo-bench's",
    };
  return {
    exists: true,
    docs,
    owned: false,
    why: `${strangers.slice(0, 3).join(', ')}${strangers.length > 3 ? ', ...' : ''} not mongo-bench's`,
  };
}

/** Documents in `db.coll`: one read first (a count from statistics lags behind inserts on FerretDB). */
async function documentCount(client: MongoClient, db: string, coll: string): Promise<number> {
  const collection = client.db(db).collection<Document>(coll);
  if (!(await collection.findOne({}, { projection: { _id: 1 } }))) return 0;
  return collection.countDocuments({});
}

async function isStore(client: MongoClient, db: string, coll: string): Promise<boolean> {
  const indexes = await client
    .db(db)
    .collection(coll)
    .listIndexes()
    .toArray()
    .catch(() => [] as Document[]);
  return indexes.some((index) => index.name === STORE_INDEX);
}
