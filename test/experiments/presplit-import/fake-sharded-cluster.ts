/**
 * A small sharded cluster made of recording servers: one poses as the mongos (hello.msg "isdbgrid"),
 * one per shard poses as the PRIMARY of a one-member replica set named after the shard. The mongos
 * keeps the cluster metadata with test/topology/fake-cluster.ts and adds what the experiment needs:
 * listShards with the shards' real addresses, config.chunks reads that return every chunk, drop,
 * balancerStart, config.settings deletes, hashed collections that start with two chunks per shard,
 * and inserts routed to a shard by the chunk that holds each document's key, counted in that shard's
 * serverStatus opcounters.insert (the mongos counts them all). No document is stored.
 */
import { BSON } from 'mongodb';
import {
  CommandHandler,
  defaultReply,
  RecordingServer,
  startRecordingServer,
} from '../../support/recording-server';
import {
  chunkContaining,
  emptyClusterState,
  fakeClusterHandlers,
  FakeClusterState,
} from '../../topology/fake-cluster';

type Doc = Record<string, unknown>;

export interface FakeShard {
  id: string;
  server: RecordingServer;
  /** Documents routed to this shard: its opcounters.insert. */
  inserts: number;
  serverStatusCalls: number;
}

export interface FakeShardedCluster {
  mongos: RecordingServer;
  shards: FakeShard[];
  state: FakeClusterState;
  /** Documents the mongos received. */
  mongosInserts(): number;
  stop(): Promise<void>;
}

export interface FakeClusterOptions {
  shards: number;
  /** Replace a shard's serverStatus reply (call is 1-based); return undefined for the normal one. */
  shardServerStatus?: (shard: FakeShard, call: number) => Doc | undefined;
}

function canonical(value: unknown): string {
  return BSON.EJSON.stringify(value as Doc, { relaxed: true });
}

/** Equality on top-level fields plus $or: what the chunk reader's filter uses. */
function matches(doc: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([key, expected]) =>
    key === '$or'
      ? (expected as Doc[]).some((alt) => matches(doc, alt))
      : canonical(doc[key]) === canonical(expected),
  );
}

const TWO_63 = 2 ** 63;

/** A stand-in for MongoDB's hash of a key value: FNV-1a over its JSON, spread over [-2^63, 2^63). */
export function fakeHash(value: unknown): number {
  let h = 0x811c9dc5;
  for (const ch of canonical({ v: value })) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return (h / 2 ** 32) * 2 * TWO_63 - TWO_63;
}

function onePrimaryHello(setName: string): CommandHandler {
  return (body, db, server) => {
    const me = `127.0.0.1:${server.port}`;
    const legacy = 'isMaster' in body || 'ismaster' in body;
    return {
      ...defaultReply(legacy ? 'isMaster' : 'hello', body, db),
      setName,
      setVersion: 1,
      hosts: [me],
      primary: me,
      me,
    };
  };
}

export async function startFakeShardedCluster(
  options: FakeClusterOptions,
): Promise<FakeShardedCluster> {
  const shards: FakeShard[] = [];
  const started: RecordingServer[] = [];
  try {
    for (let i = 0; i < options.shards; i++) {
      const shard = { id: `shard${i}`, inserts: 0, serverStatusCalls: 0 } as FakeShard;
      shard.server = await startRecordingServer({
        handlers: {
          hello: onePrimaryHello(shard.id),
          isMaster: onePrimaryHello(shard.id),
          serverStatus: () => {
            shard.serverStatusCalls++;
            const replaced = options.shardServerStatus?.(shard, shard.serverStatusCalls);
            return (
              replaced ?? {
                process: 'mongod',
                opcounters: {
                  insert: shard.inserts,
                  query: 0,
                  update: 0,
                  delete: 0,
                  getmore: 0,
                  command: 0,
                },
                ok: 1,
              }
            );
          },
        },
      });
      started.push(shard.server);
      shards.push(shard);
    }

    const state = emptyClusterState();
    for (const shard of shards)
      state.shards.push({ _id: shard.id, host: `${shard.id}/127.0.0.1:${shard.server.port}` });
    const base = fakeClusterHandlers(state);
    let mongosInserts = 0;

    const dropNamespace = (ns: string) => {
      state.collections.delete(ns);
      state.chunks = state.chunks.filter((c) => c.ns !== ns);
    };

    const route = (ns: string, doc: Doc): FakeShard => {
      const coll = state.collections.get(ns);
      const db = ns.slice(0, ns.indexOf('.'));
      const primary = state.databases.get(db)?.primary ?? shards[0].id;
      let shardId = primary;
      if (coll) {
        const [field, kind] = Object.entries(coll.key)[0];
        const point = { [field]: kind === 'hashed' ? fakeHash(doc[field]) : doc[field] };
        shardId = chunkContaining(state, ns, point)?.shard ?? primary;
      }
      return shards.find((s) => s.id === shardId)!;
    };

    const handlers: Record<string, CommandHandler> = {
      ...base,
      listShards: () => ({ shards: state.shards.map((s) => ({ ...s, state: 1 })), ok: 1 }),
      find: (body, db, server, connection) => {
        if (db === 'config' && body.find === 'chunks') {
          const filter = (body.filter as Doc | undefined) ?? {};
          const docs = state.chunks.filter((c) => matches(c as unknown as Doc, filter));
          const limited =
            typeof body.limit === 'number' && body.limit > 0 ? docs.slice(0, body.limit) : docs;
          return {
            cursor: { id: BSON.Long.ZERO, ns: 'config.chunks', firstBatch: limited },
            ok: 1,
          };
        }
        return base.find(body, db, server, connection);
      },
      shardCollection: (body, db, server, connection) => {
        const reply = base.shardCollection(body, db, server, connection) as Doc;
        const ns = String(body.shardCollection);
        const key = body.key as Doc;
        const [field, kind] = Object.entries(key)[0];
        const created = state.chunks.filter((c) => c.ns === ns);
        if (kind === 'hashed' && created.length === 1) {
          // Like MongoDB: an empty collection with a hashed key starts with two chunks per shard.
          const [only] = created;
          state.chunks = state.chunks.filter((c) => c !== only);
          const count = 2 * shards.length;
          const bound = (i: number): unknown =>
            i === 0
              ? new BSON.MinKey()
              : i === count
                ? new BSON.MaxKey()
                : -TWO_63 + (i * 2 * TWO_63) / count;
          for (let i = 0; i < count; i++) {
            state.chunks.push({
              ...only,
              min: { [field]: bound(i) },
              max: { [field]: bound(i + 1) },
              shard: shards[Math.floor(i / 2)].id,
            });
          }
        }
        return reply;
      },
      drop: (body, db) => {
        dropNamespace(`${db}.${String(body.drop)}`);
        return { ok: 1 };
      },
      balancerStart: () => {
        state.balancerMode = 'full';
        return { ok: 1 };
      },
      delete: (body, db) => {
        if (db !== 'config' || body.delete !== 'settings') return undefined;
        let n = 0;
        for (const d of body.deletes as { q: Doc }[])
          if (state.settings.delete(String(d.q._id))) n++;
        return { n, ok: 1 };
      },
      insert: (body, db) => {
        const ns = `${db}.${String(body.insert)}`;
        const documents = (body.documents as Doc[] | undefined) ?? [];
        for (const doc of documents) route(ns, doc).inserts++;
        mongosInserts += documents.length;
        return { n: documents.length, ok: 1 };
      },
      serverStatus: () => ({
        process: 'mongos',
        opcounters: {
          insert: mongosInserts,
          query: 0,
          update: 0,
          delete: 0,
          getmore: 0,
          command: 0,
        },
        ok: 1,
      }),
    };
    const mongos = await startRecordingServer({ handlers, helloFields: { msg: 'isdbgrid' } });
    started.push(mongos);
    return {
      mongos,
      shards,
      state,
      mongosInserts: () => mongosInserts,
      stop: async () => {
        await Promise.all(started.map((s) => s.stop().catch(() => undefined)));
      },
    };
  } catch (err) {
    await Promise.all(started.map((s) => s.stop().catch(() => undefined)));
    throw err;
  }
}
