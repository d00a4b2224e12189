/**
 * A tiny stand-in for a cluster's metadata, served through the recording server's handlers: it
 * answers the setup checks (local.system.replset, listShards, config.databases / collections /
 * chunks / settings, balancerStatus) from state that the changing commands (replSetInitiate,
 * addShard, enableSharding, shardCollection, split, moveChunk, config.settings updates and deletes,
 * configureCollectionBalancing, balancerStop, balancerStart) update, the way a real cluster would. Every target of a plan talks to the same
 * recorder, so the state is the whole cluster's.
 *
 * It refuses what a real server refuses where idempotence matters: initiating a set twice,
 * splitting at an existing boundary, moving a chunk to the shard it is on.
 */
import { BSON } from 'mongodb';
import { CommandHandler } from '../support/recording-server';

type Doc = Record<string, unknown>;

interface Chunk {
  uuid: BSON.UUID;
  ns: string;
  min: Doc;
  max: Doc;
  shard: string;
}

export interface FakeClusterState {
  initiatedSets: Map<string, Doc>;
  shards: { _id: string; host: string }[];
  /** partitioned: as config.databases says before 6.0 (false for a database a write created). */
  databases: Map<string, { _id: string; primary: string; partitioned?: boolean }>;
  collections: Map<
    string,
    { _id: string; key: Doc; uuid: BSON.UUID; maxChunkSizeBytes?: BSON.Long }
  >;
  chunks: Chunk[];
  settings: Map<string, Doc>;
  balancerMode: 'full' | 'off';
}

const CHANGING = new Set([
  'replsetinitiate',
  'addshard',
  'enablesharding',
  'shardcollection',
  'split',
  'movechunk',
  'balancerstop',
  'balancerstart',
  'configurecollectionbalancing',
]);

/** Commands that change the cluster; `update` and `delete` count when they target config.settings. */
export function isChangingCommand(c: { db: string; name: string; body: Doc }): boolean {
  return (
    CHANGING.has(c.name.toLowerCase()) ||
    ((c.name === 'update' || c.name === 'delete') && c.db === 'config')
  );
}

/** What a setup script may send besides changing commands: reads and the wait for a PRIMARY. */
export function isReadOnlyCheck(c: { db: string; name: string; body: Doc }): boolean {
  if (c.name === 'find')
    return (
      (c.db === 'config' &&
        ['databases', 'collections', 'chunks', 'settings'].includes(String(c.body.find))) ||
      (c.db === 'local' && c.body.find === 'system.replset')
    );
  return ['listShards', 'balancerStatus', 'hello'].includes(c.name);
}

function canonical(value: unknown): string {
  return BSON.EJSON.stringify(value as Doc, { relaxed: true });
}

/** Equality on top-level fields (deep for documents) plus $or: what the setup checks use. */
function matches(doc: Doc, filter: Doc): boolean {
  for (const [key, expected] of Object.entries(filter)) {
    if (key === '$or') {
      if (!(expected as Doc[]).some((alt) => matches(doc, alt))) return false;
    } else if (canonical(doc[key]) !== canonical(expected)) {
      return false;
    }
  }
  return true;
}

/** Orders shard-key values: MinKey < numbers < MaxKey. */
function compareKey(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (v instanceof BSON.MinKey ? -1 : v instanceof BSON.MaxKey ? 1 : 0);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== 0 || rb !== 0) return ra - rb;
  return (a as number) - (b as number);
}

function fieldOf(key: Doc): string {
  return Object.keys(key)[0];
}

export function chunkContaining(
  state: FakeClusterState,
  ns: string,
  point: Doc,
): Chunk | undefined {
  const field = Object.keys(point)[0];
  return state.chunks.find(
    (c) =>
      c.ns === ns &&
      compareKey(c.min[field], point[field]) <= 0 &&
      compareKey(point[field], c.max[field]) < 0,
  );
}

function cursor(ns: string, docs: Doc[]): Doc {
  return { cursor: { id: BSON.Long.ZERO, ns, firstBatch: docs.slice(0, 1) }, ok: 1 };
}

function error(code: number, codeName: string, errmsg: string): Doc {
  return { ok: 0, code, codeName, errmsg };
}

export function emptyClusterState(): FakeClusterState {
  return {
    initiatedSets: new Map(),
    shards: [],
    databases: new Map(),
    collections: new Map(),
    chunks: [],
    settings: new Map(),
    balancerMode: 'full',
  };
}

export function fakeClusterHandlers(state: FakeClusterState): Record<string, CommandHandler> {
  let nextUuid = 1;
  return {
    find: (body, db) => {
      const filter = (body.filter as Doc | undefined) ?? {};
      const collection = String(body.find);
      if (db === 'local' && collection === 'system.replset') {
        return cursor(
          'local.system.replset',
          [...state.initiatedSets.values()].filter((d) => matches(d, filter)),
        );
      }
      if (db !== 'config') return undefined;
      const sources: Record<string, Doc[]> = {
        databases: [...state.databases.values()],
        collections: [...state.collections.values()],
        chunks: state.chunks as unknown as Doc[],
        settings: [...state.settings.values()],
      };
      const docs = sources[collection];
      return docs
        ? cursor(
            `config.${collection}`,
            docs.filter((d) => matches(d, filter)),
          )
        : undefined;
    },
    replSetInitiate: (body) => {
      const config = body.replSetInitiate as Doc;
      const name = String(config._id);
      if (state.initiatedSets.has(name))
        return error(23, 'AlreadyInitialized', 'already initialized');
      state.initiatedSets.set(name, config);
      return { ok: 1 };
    },
    listShards: () => ({ shards: state.shards.map((s) => ({ ...s, state: 1 })), ok: 1 }),
    addShard: (body) => {
      const connection = String(body.addShard);
      const id = connection.split('/')[0];
      if (!state.shards.some((s) => s._id === id)) state.shards.push({ _id: id, host: connection });
      return { shardAdded: id, ok: 1 };
    },
    enableSharding: (body) => {
      const db = String(body.enableSharding);
      const primary =
        typeof body.primaryShard === 'string' ? body.primaryShard : state.shards[0]?._id;
      if (!primary) return error(70, 'ShardNotFound', 'no shards in the cluster');
      const existing = state.databases.get(db);
      if (existing) existing.partitioned = true;
      else state.databases.set(db, { _id: db, primary, partitioned: true });
      return { ok: 1 };
    },
    shardCollection: (body) => {
      const ns = String(body.shardCollection);
      const key = body.key as Doc;
      const db = ns.slice(0, ns.indexOf('.'));
      if (!state.databases.has(db))
        state.databases.set(db, { _id: db, primary: state.shards[0]._id });
      if (state.collections.has(ns)) return { collectionsharded: ns, ok: 1 };
      const uuid = new BSON.UUID(`00000000-0000-4000-8000-${String(nextUuid++).padStart(12, '0')}`);
      state.collections.set(ns, { _id: ns, key, uuid });
      const field = fieldOf(key);
      state.chunks.push({
        uuid,
        ns,
        min: { [field]: new BSON.MinKey() },
        max: { [field]: new BSON.MaxKey() },
        shard: state.databases.get(db)!.primary,
      });
      return { collectionsharded: ns, ok: 1 };
    },
    split: (body) => {
      const ns = String(body.split);
      const middle = body.middle as Doc;
      const chunk = chunkContaining(state, ns, middle);
      const field = Object.keys(middle)[0];
      if (!chunk)
        return error(61, 'ShardKeyNotFound', `no chunk of ${ns} holds ${canonical(middle)}`);
      if (compareKey(chunk.min[field], middle[field]) === 0)
        return error(2, 'BadValue', `${canonical(middle)} is already a chunk boundary`);
      state.chunks.push({ ...chunk, min: { ...middle } });
      chunk.max = { ...middle };
      return { ok: 1 };
    },
    moveChunk: (body) => {
      const ns = String(body.moveChunk);
      const chunk = chunkContaining(state, ns, body.find as Doc);
      if (!chunk)
        return error(61, 'ShardKeyNotFound', `no chunk of ${ns} holds ${canonical(body.find)}`);
      if (chunk.shard === body.to)
        return error(20, 'IllegalOperation', `the chunk is already on shard ${String(body.to)}`);
      chunk.shard = String(body.to);
      return { millis: 1, ok: 1 };
    },
    update: (body, db) => {
      if (db !== 'config' || body.update !== 'settings') return undefined;
      for (const u of body.updates as { q: Doc; u: { $set: Doc } }[]) {
        const id = String(u.q._id);
        state.settings.set(id, { ...(state.settings.get(id) ?? { _id: id }), ...u.u.$set });
      }
      return { n: (body.updates as unknown[]).length, nModified: 1, ok: 1 };
    },
    delete: (body, db) => {
      if (db !== 'config' || body.delete !== 'settings') return undefined;
      let n = 0;
      for (const d of body.deletes as { q: Doc }[]) if (state.settings.delete(String(d.q._id))) n++;
      return { n, ok: 1 };
    },
    balancerStop: () => {
      state.balancerMode = 'off';
      return { ok: 1 };
    },
    balancerStart: () => {
      state.balancerMode = 'full';
      return { ok: 1 };
    },
    // Stores the size as config.collections maxChunkSizeBytes, a 64-bit integer, as 6.0+ does.
    configureCollectionBalancing: (body) => {
      const coll = state.collections.get(String(body.configureCollectionBalancing));
      if (!coll)
        return error(
          61,
          'NamespaceNotSharded',
          `${String(body.configureCollectionBalancing)} is not sharded`,
        );
      // chunkSize 0: the collection's own size removed, the cluster default again (docs: configureCollectionBalancing).
      if (Number(body.chunkSize) === 0) delete coll.maxChunkSizeBytes;
      else coll.maxChunkSizeBytes = BSON.Long.fromNumber(Number(body.chunkSize) * 1024 * 1024);
      return { ok: 1 };
    },
    balancerStatus: () => ({
      mode: state.balancerMode,
      inBalancerRound: false,
      numBalancerRounds: 0,
      ok: 1,
    }),
  };
}
