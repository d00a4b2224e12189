/**
 * Whether mongo-bench owns a namespace, read from the server: what the write plan's rule (write-plan.ts) is
 * judged on. Owned means created by this run, or marked by mongo-bench and still the same collection:
 * - the marker, one document per collection in `<db>.mongo_bench_owner`, holds the collection's UUID
 *   (listCollections `info.uuid`, 3.6+) when the server reports one; a collection dropped and recreated by
 *   someone else has another UUID, so the marker no longer speaks for it;
 * - where the server reports no UUID (the CRUD double, the null server, some wire-compatible servers) the marker
 *   holds the document count and the lowest and highest `_id`, re-recorded at the end of each step and of the
 *   run; a mismatch means the collection changed since;
 * - a marker whose run was still loading or running (a run killed midway, or one running beside this one)
 *   keeps the collection mongo-bench's whatever its count: only its UUID, where there is one, must match;
 * - a marker written by an earlier version (the collection's name only) is no proof: not owned.
 * No shape heuristic: a collection that merely looks like the loader's is the user's.
 *
 * Roles: a results store (--store) and agents' control database (--control-db) are marked apart, in the same
 * `<db>.mongo_bench_owner`, by a document whose `_id` is an object (a collection's marker has its name, a
 * string, as `_id`, so the two never meet):
 * - `{_id: {role: 'store', coll: '<collection>'}, version, markedBy, at, uuid?}`: `<db>.<collection>` is a
 *   results store; with the collection's UUID where the server reports one (a collection dropped and
 *   recreated by someone else is no longer the store);
 * - `{_id: {role: 'control-db'}, version, markedBy, at}`: the database `<db>` is a control database (dropping
 *   the database drops its marker with it).
 * mongo-bench writes them (markRole) when it creates or first uses a store or a control database that was
 * absent or empty; readNamespaceState reports `role` for a collection (store) or a database (control-db)
 * so marked. lib/server/role-check.ts applies the rule before any write to them.
 */
import { Binary, Document, MongoClient, WriteConcernSettings } from 'mongodb';
import { toolInfo } from '../common/version';
import type { NamespaceState } from './write-plan';

/** What a namespace may be marked as: a results store (a collection), a control database (a database). */
export type NamespaceRole = 'store' | 'control-db';

export const OWNER_COLLECTION = 'mongo_bench_owner';

/** The marker's format; one without it was written by an earlier version (name only). */
const MARKER_VERSION = 2;

/** Where the run that wrote a marker was: still loading, running its steps, or done. */
export type OwnedPhase = 'loading' | 'running' | 'done';

export interface OwnerMarker {
  _id: string;
  version?: number;
  loadedBy?: string;
  at?: Date;
  phase?: OwnedPhase;
  /** The collection's UUID as hex, where the server reports one. */
  uuid?: string;
  /** Without a UUID: what the collection held when last recorded. */
  docs?: number;
  minId?: unknown;
  maxId?: unknown;
}

export interface OwnershipContext {
  /** Namespaces ("db.coll") this run created: owned until it ends. */
  createdByRun: ReadonlySet<string>;
}

interface CollectionInfo {
  name: string;
  type?: string;
  uuid?: string;
}

async function collectionInfo(
  client: MongoClient,
  db: string,
  coll?: string,
): Promise<CollectionInfo[]> {
  const infos = await client
    .db(db)
    .listCollections(coll === undefined ? {} : { name: coll })
    .toArray();
  // The name filter again here: the CRUD test double answers listCollections with every collection.
  return infos
    .filter((info) => info.name !== OWNER_COLLECTION && (coll === undefined || info.name === coll))
    .map((info) => {
      const uuid = (info as { info?: { uuid?: unknown } }).info?.uuid;
      return {
        name: info.name,
        ...(info.type ? { type: info.type } : {}),
        ...(uuid instanceof Binary ? { uuid: Buffer.from(uuid.buffer).toString('hex') } : {}),
      };
    });
}

/** The count and the `_id` range, for servers that report no UUID. */
async function contentsSummary(
  client: MongoClient,
  db: string,
  coll: string,
): Promise<Pick<OwnerMarker, 'docs' | 'minId' | 'maxId'>> {
  const collection = client.db(db).collection<Document>(coll);
  const edge = async (direction: 1 | -1) =>
    (await collection.findOne({}, { projection: { _id: 1 }, sort: { _id: direction } }))
      ?._id as unknown;
  return {
    docs: await collection.countDocuments({}),
    minId: await edge(1),
    maxId: await edge(-1),
  };
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function markedWhen(marker: OwnerMarker): string {
  const by = marker.loadedBy ?? 'mongo-bench';
  return marker.at instanceof Date ? `${by} at ${marker.at.toISOString()}` : by;
}

/** Whether the marker still speaks for the collection described by `info`, and why, in words. */
async function judgeMarker(
  client: MongoClient,
  db: string,
  info: CollectionInfo,
  marker: OwnerMarker | null,
): Promise<{ owned: boolean; why: string }> {
  if (!marker) return { owned: false, why: `no ${OWNER_COLLECTION} marker` };
  if (marker.version !== MARKER_VERSION)
    return {
      owned: false,
      why: `marked by an earlier mongo-bench by its name only (${markedWhen(marker)}), which cannot tell whether it is still the collection mongo-bench loaded`,
    };
  if (marker.uuid !== undefined && info.uuid !== undefined && marker.uuid !== info.uuid)
    return {
      owned: false,
      why: `recreated since mongo-bench marked it (${markedWhen(marker)}): another collection UUID`,
    };
  if (marker.phase === 'loading' || marker.phase === 'running')
    return {
      owned: true,
      why: `a mongo-bench run was ${marker.phase} it (${markedWhen(marker)}; killed midway, or running now)`,
    };
  if (marker.uuid !== undefined && info.uuid !== undefined)
    return { owned: true, why: `marked by ${markedWhen(marker)}, the same collection (UUID)` };
  const now = await contentsSummary(client, db, info.name);
  if (
    marker.docs === now.docs &&
    sameValue(marker.minId, now.minId) &&
    sameValue(marker.maxId, now.maxId)
  )
    return { owned: true, why: `marked by ${markedWhen(marker)}, unchanged since` };
  return {
    owned: false,
    why: `changed since mongo-bench last recorded it (${markedWhen(marker)}: ${marker.docs ?? '?'} documents then, ${now.docs} now)`,
  };
}

async function collectionState(
  client: MongoClient,
  db: string,
  info: CollectionInfo,
  ctx?: OwnershipContext,
): Promise<Extract<NamespaceState, { exists: true }>> {
  const collection = client.db(db).collection<Document>(info.name);
  // One document or none, read: not a count from the collection's statistics (FerretDB's lag behind inserts).
  const any =
    info.type === 'view' ? null : await collection.findOne({}, { projection: { _id: 1 } });
  const docs = any ? Math.max(1, await collection.estimatedDocumentCount()) : 0;
  if (ctx?.createdByRun.has(`${db}.${info.name}`))
    return { exists: true, docs, owned: true, why: 'created by this run' };
  const marker = await client
    .db(db)
    .collection<OwnerMarker>(OWNER_COLLECTION)
    .findOne({ _id: info.name });
  return { exists: true, docs, ...(await judgeMarker(client, db, info, marker)) };
}

/**
 * What `db.coll` holds and whether mongo-bench owns it; reads only. `coll` undefined: the whole database,
 * owned only when every collection in it is, its documents counted across its collections (the marker
 * collection left out). `role`: the collection is marked a results store, the database a control database.
 */
export async function readNamespaceState(
  client: MongoClient,
  db: string,
  coll: string | undefined,
  ctx?: OwnershipContext,
): Promise<NamespaceState> {
  const infos = await collectionInfo(client, db, coll);
  if (infos.length === 0) return { exists: false };
  const states = [];
  for (const info of infos) states.push(await collectionState(client, db, info, ctx));
  if (coll !== undefined)
    return (await isMarkedStore(client, db, infos[0]))
      ? { ...states[0], role: 'store' }
      : states[0];
  const stranger = states.findIndex((s) => !s.owned);
  return {
    exists: true,
    docs: states.reduce((sum, s) => sum + s.docs, 0),
    owned: stranger < 0,
    why:
      stranger < 0
        ? 'every collection in it is mongo-bench’s'
        : `${db}.${infos[stranger].name}: ${states[stranger].why}`,
    ...((await isMarkedControlDb(client, db)) ? { role: 'control-db' as const } : {}),
  };
}

/** A role marker (see the header): its `_id` is an object, never a collection's name. */
interface RoleMarker {
  _id: { role: 'store'; coll: string } | { role: 'control-db' };
  version: number;
  markedBy: string;
  at: Date;
  /** A store's collection UUID as hex, where the server reports one. */
  uuid?: string;
}

/** The role marker's `_id` as a query: field by field, whatever order its fields were written in. */
function roleQuery(role: NamespaceRole, coll?: string): Document {
  return role === 'store' ? { '_id.role': 'store', '_id.coll': coll } : { '_id.role': role };
}

async function findRoleMarker(
  client: MongoClient,
  db: string,
  role: NamespaceRole,
  coll?: string,
): Promise<RoleMarker | null> {
  return client
    .db(db)
    .collection<RoleMarker>(OWNER_COLLECTION)
    .findOne(roleQuery(role, coll) as never);
}

/** `db.<info.name>` is marked a results store, and (where both have a UUID) is still the collection marked. */
async function isMarkedStore(
  client: MongoClient,
  db: string,
  info: CollectionInfo,
): Promise<boolean> {
  if (info.type === 'view') return false;
  const marker = await findRoleMarker(client, db, 'store', info.name);
  if (!marker) return false;
  return marker.uuid === undefined || info.uuid === undefined || marker.uuid === info.uuid;
}

async function isMarkedControlDb(client: MongoClient, db: string): Promise<boolean> {
  return (await findRoleMarker(client, db, 'control-db')) !== null;
}

/**
 * Marks `db.coll` as a results store (`role` 'store', `coll` given) or the database `db` as a control
 * database ('control-db'), after the rule allowed it (lib/server/role-check.ts). Idempotent: marking again
 * records the collection's UUID of now.
 */
export async function markRole(
  client: MongoClient,
  db: string,
  role: NamespaceRole,
  coll?: string,
): Promise<void> {
  if (role === 'store' && coll === undefined) throw new Error('markRole: a store is a collection');
  const [info] = role === 'store' ? await collectionInfo(client, db, coll) : [];
  const tool = toolInfo();
  const marker: Omit<RoleMarker, '_id'> = {
    version: MARKER_VERSION,
    markedBy: `${tool.name} ${tool.version}`,
    at: new Date(),
    ...(info?.uuid !== undefined ? { uuid: info.uuid } : {}),
  };
  const id: RoleMarker['_id'] =
    role === 'store' ? { role: 'store', coll: coll! } : { role: 'control-db' };
  const owners = client.db(db).collection<RoleMarker>(OWNER_COLLECTION);
  const write = async () => {
    const found = await owners.findOne(roleQuery(role, coll) as never);
    if (found) await owners.replaceOne({ _id: found._id }, marker);
    else await owners.insertOne({ _id: id, ...marker });
  };
  try {
    await write();
  } catch (err) {
    // Another mongo-bench (an agent starting beside the coordinator) marked it first: mark it again.
    if ((err as { code?: unknown }).code !== 11000) throw err;
    await write();
  }
}

/**
 * Marks `db.coll` as mongo-bench's, with what identifies the collection now: its UUID, or (without one)
 * its count and `_id` range. Called when a load starts ('loading'), at the end of each step ('running') and
 * of the run ('done').
 */
export async function markOwned(
  client: MongoClient,
  db: string,
  coll: string,
  phase: OwnedPhase,
  writeConcern?: WriteConcernSettings,
): Promise<void> {
  const [info] = await collectionInfo(client, db, coll);
  const identity: Omit<OwnerMarker, '_id'> =
    info?.uuid !== undefined
      ? { uuid: info.uuid }
      : info
        ? await contentsSummary(client, db, coll)
        : { docs: 0 };
  const tool = toolInfo();
  await client
    .db(db)
    .collection<OwnerMarker>(OWNER_COLLECTION)
    .replaceOne(
      { _id: coll },
      {
        version: MARKER_VERSION,
        loadedBy: `${tool.name} ${tool.version}`,
        at: new Date(),
        phase,
        ...identity,
      },
      { upsert: true, ...(writeConcern ? { writeConcern } : {}) },
    );
}

/** Removes `db.coll`'s marker (the collection is gone, or no longer mongo-bench's). */
export async function forgetOwned(
  client: MongoClient,
  db: string,
  coll: string,
  writeConcern?: WriteConcernSettings,
): Promise<void> {
  await client
    .db(db)
    .collection<OwnerMarker>(OWNER_COLLECTION)
    .deleteOne({ _id: coll }, writeConcern ? { writeConcern } : {});
}
