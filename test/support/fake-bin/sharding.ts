/**
 * The sharding metadata a mongos stand-in keeps and answers through `find` on the config database,
 * changed by the commands the tool sends as the real catalog is: config.shards (addShard),
 * config.databases (enableSharding, first write), config.collections and config.chunks
 * (shardCollection, split, moveChunk), config.settings (balancer, chunksize).
 *
 * State lives in the mongos process (one mongos per test cluster; several mongos would not share it).
 * Sources per rule are in the comments and in docs/testing.md.
 */
import { BSON } from 'mongodb';
import type { FakeOptions } from './options';
import { helloOn, sleep } from './peers';
import { compareDocs, matches } from './query';
import { unknownField } from './strict';
import { features, type VersionFeatures } from './version';

type Doc = Record<string, unknown>;

const err = (code: number, codeName: string, errmsg: string): Doc => ({
  ok: 0,
  errmsg,
  code,
  codeName,
});

interface Chunk {
  ns: string;
  uuid: BSON.UUID;
  min: Doc;
  max: Doc;
  shard: string;
  lastmod: BSON.Timestamp;
  _id: BSON.ObjectId;
}

const INT64_MIN = -(2n ** 63n);
const INT64_SPAN = 2n ** 64n;

/** Migration thresholds of the balancer before 6.0.3 (docs v4.4 "Sharded Cluster Balancer", Migration Thresholds). */
function migrationThreshold(chunks: number): number {
  return chunks < 20 ? 2 : chunks < 80 ? 4 : 8;
}

export class ShardingCatalog {
  private readonly shards: Doc[] = [];
  private readonly databases = new Map<string, Doc>();
  private readonly collections = new Map<string, Doc>();
  private chunks: Chunk[] = [];
  private readonly settings = new Map<string, Doc>();
  private readonly f: VersionFeatures;
  private chunkVersion = 1;

  constructor(private readonly options: FakeOptions) {
    this.f = features(options.version);
    // A new cluster's balancer is on (mode "full"); config.settings has no balancer document until changed.
  }

  get balancerMode(): 'full' | 'off' {
    return this.settings.get('balancer')?.mode === 'off' ? 'off' : 'full';
  }

  /** addShard: the shard must answer, be an initiated replica set with the named setName, and have a primary. */
  async addShard(body: Doc): Promise<Doc> {
    const spec = String(body.addShard);
    const slash = spec.indexOf('/');
    const setName = slash > 0 ? spec.slice(0, slash) : undefined;
    const hosts = (slash > 0 ? spec.slice(slash + 1) : spec).split(',').filter(Boolean);
    // sharding_catalog_manager_shard_operations.cpp (_validateHostAsShard).
    const deadline = Date.now() + 5_000;
    for (;;) {
      const hellos = await Promise.all(hosts.map((h) => helloOn(h)));
      const answered = hellos.find((h) => h !== undefined);
      if (!answered) {
        if (Date.now() > deadline)
          return err(6, 'HostUnreachable', `couldn't connect to new shard ${spec}`);
      } else {
        if (answered.msg === 'isdbgrid')
          return err(96, 'OperationFailed', `can't add a mongos process as a shard`);
        const found = answered.setName;
        if (typeof found !== 'string') {
          if (setName || Date.now() > deadline) {
            return err(
              96,
              'OperationFailed',
              `host did not return a set name; is the replica set still initializing? ${JSON.stringify(answered)}`,
            );
          }
        } else if (setName !== undefined && found !== setName) {
          return err(
            96,
            'OperationFailed',
            `the provided connection string (${spec}) does not match the actual set name ${found}`,
          );
        } else if (answered.configsvr !== undefined) {
          return err(
            96,
            'OperationFailed',
            `Cannot add ${spec} as a shard since it is part of a config server replica set`,
          );
        } else if (hellos.some((h) => h?.ismaster === true)) {
          return this.registerShard(body, spec, found);
        } else if (Date.now() > deadline) {
          return err(
            133,
            'FailedToSatisfyReadPreference',
            `Could not find host matching read preference { mode: "primary" } for set ${found}`,
          );
        }
      }
      await sleep(200);
    }
  }

  private registerShard(body: Doc, spec: string, setName: string): Doc {
    const id = typeof body.name === 'string' ? body.name : setName;
    const existing = this.shards.find((s) => s._id === id);
    if (existing) {
      // Adding the same shard again is a no-op; another host under the same name is refused.
      if (existing.host === spec) return { shardAdded: id, ok: 1 };
      return err(96, 'OperationFailed', `A shard named ${id} already exists`);
    }
    const shard: Doc = { _id: id, host: spec, state: 1 };
    if (this.f.chunksByUuid)
      shard.topologyTime = new BSON.Timestamp({ t: Math.floor(Date.now() / 1000), i: 1 });
    this.shards.push(shard);
    return { shardAdded: id, ok: 1 };
  }

  listShards(): Doc {
    return { shards: this.shards.map((s) => ({ ...s })), ok: 1 };
  }

  private databaseEntry(name: string, primary: string): Doc {
    const doc: Doc = { _id: name, primary };
    // config.databases has `partitioned` before 6.0 (removed in 6.0: docs 6.0 compatibility changes).
    if (this.f.partitionedField) doc.partitioned = false;
    doc.version = {
      uuid: new BSON.UUID(),
      lastMod: 1,
      ...(this.f.chunksByUuid
        ? { timestamp: new BSON.Timestamp({ t: Math.floor(Date.now() / 1000), i: 1 }) }
        : {}),
    };
    return doc;
  }

  /** A database created implicitly (first write through mongos): partitioned false before 6.0. */
  ensureDatabase(name: string): Doc | undefined {
    if (['admin', 'config', 'local'].includes(name)) return undefined;
    const found = this.databases.get(name);
    if (found) return found;
    if (this.shards.length === 0) return undefined;
    const doc = this.databaseEntry(name, String(this.shards[0]._id));
    this.databases.set(name, doc);
    return doc;
  }

  enableSharding(body: Doc): Doc {
    const name = String(body.enableSharding);
    if (this.shards.length === 0)
      return err(
        70,
        'ShardNotFound',
        `Database ${name} could not be created :: caused by :: No shards found`,
      );
    const wanted = typeof body.primaryShard === 'string' ? body.primaryShard : undefined;
    if (wanted && !this.shards.some((s) => s._id === wanted))
      return err(70, 'ShardNotFound', `Shard ${wanted} not found`);
    let db = this.databases.get(name);
    if (!db) {
      db = this.databaseEntry(name, wanted ?? String(this.shards[0]._id));
      this.databases.set(name, db);
    } else if (wanted && db.primary !== wanted) {
      return err(
        117,
        'ConflictingOperationInProgress',
        `database already exists, but with a different primary shard ${String(db.primary)}`,
      );
    }
    // Before 6.0 enableSharding marks the database partitioned (cluster_enable_sharding_cmd.cpp).
    if (this.f.partitionedField) db.partitioned = true;
    return { ok: 1 };
  }

  shardCollection(body: Doc): Doc {
    const unknown = unknownField('shardCollection', body, this.options.version);
    if (unknown) return unknown;
    const ns = String(body.shardCollection);
    const dot = ns.indexOf('.');
    if (dot <= 0) return err(73, 'InvalidNamespace', `Invalid namespace specified '${ns}'`);
    const dbName = ns.slice(0, dot);
    const key = body.key as Doc | undefined;
    if (!key || typeof key !== 'object' || Object.keys(key).length === 0)
      return err(2, 'BadValue', 'The shard key pattern must be a non-empty object');
    let db = this.databases.get(dbName);
    if (this.f.partitionedField) {
      // 4.4/5.0 cluster_shard_collection_cmd.cpp: uassert(IllegalOperation, "sharding not enabled for db " ...).
      if (!db || db.partitioned !== true)
        return err(20, 'IllegalOperation', `sharding not enabled for db ${dbName}`);
    } else {
      db ??= this.ensureDatabase(dbName);
      if (!db)
        return err(
          70,
          'ShardNotFound',
          `Database ${dbName} could not be created :: caused by :: No shards found`,
        );
    }
    const existing = this.collections.get(ns);
    if (existing && existing.dropped !== true) {
      if (compareDocs(existing.key as Doc, key) === 0) return { collectionsharded: ns, ok: 1 };
      return err(
        23,
        'AlreadyInitialized',
        `sharding already enabled for collection ${ns} with options ${JSON.stringify({ key: existing.key })}`,
      );
    }
    const uuid = new BSON.UUID();
    const coll: Doc = {
      _id: ns,
      lastmodEpoch: new BSON.ObjectId(),
      lastmod: new Date(),
      ...(this.f.chunksByUuid ? { timestamp: this.nextVersion() } : { dropped: false }),
      key,
      unique: body.unique === true,
      uuid,
      noBalance: false,
    };
    this.collections.set(ns, coll);
    this.chunks.push(...this.initialChunks(ns, uuid, key, String(db.primary)));
    return { collectionsharded: ns, ok: 1 };
  }

  /**
   * drop through mongos of a sharded collection removes its sharding metadata: its chunks always;
   * from 5.0 its config.collections entry too (DropCollectionCoordinator,
   * src/mongo/db/s/drop_collection_coordinator.cpp -> sharding_ddl_util removeCollAndChunksMetadataFromConfig),
   * while 4.4 keeps the entry marked `dropped: true` (ShardingCatalogManager::dropCollection,
   * src/mongo/db/s/config/sharding_catalog_manager_collection_operations.cpp). Tested by
   * jstests/sharding/drop_collection.js (assertCollectionDropped: no config.collections entry, no chunks).
   * The database entry stays. Not sharded or absent: nothing to change here.
   */
  dropCollection(ns: string): void {
    const coll = this.collections.get(ns);
    if (!coll) return;
    this.chunks = this.chunks.filter((c) => c.ns !== ns);
    if (this.f.chunksByUuid) this.collections.delete(ns);
    else coll.dropped = true;
  }

  /**
   * dropDatabase through mongos drops every collection of the database with its sharding metadata
   * (as dropCollection above), then deletes the database's config.databases entry: 5.0+
   * DropDatabaseCoordinator::_runImpl (src/mongo/db/s/drop_database_coordinator.cpp: each
   * collection of catalogClient->getCollections -> _dropShardedCollection, then
   * removeDatabaseFromConfigAndUpdatePlacementHistory); 4.4 _configsvrDropDatabase -> dropDatabaseLegacy
   * (src/mongo/db/s/config/configsvr_drop_database_command.cpp). So enableSharding and shardCollection
   * must come after a drop, never before.
   */
  dropDatabase(name: string): void {
    for (const ns of [...this.collections.keys()])
      if (ns.startsWith(`${name}.`)) this.dropCollection(ns);
    this.databases.delete(name);
  }

  /** The collection's entry while it is sharded (a 4.4 entry left `dropped: true` is not). */
  private sharded(ns: string): Doc | undefined {
    const coll = this.collections.get(ns);
    return coll && coll.dropped !== true ? coll : undefined;
  }

  private nextVersion(): BSON.Timestamp {
    return new BSON.Timestamp({ t: this.chunkVersion++, i: 0 });
  }

  /**
   * One chunk on the primary shard for a range key; for a hashed key on an empty collection,
   * numInitialChunks (default 2 per shard) spread round-robin (docs: shardCollection, numInitialChunks).
   */
  private initialChunks(ns: string, uuid: BSON.UUID, key: Doc, primary: string): Chunk[] {
    const fields = Object.keys(key);
    const bound = (v: unknown): Doc =>
      Object.fromEntries(fields.map((f, i) => [f, i === 0 ? v : v]));
    const hashed = key[fields[0]] === 'hashed';
    const make = (min: Doc, max: Doc, shard: string): Chunk => ({
      ns,
      uuid,
      min,
      max,
      shard,
      lastmod: this.nextVersion(),
      _id: new BSON.ObjectId(),
    });
    if (!hashed) return [make(bound(new BSON.MinKey()), bound(new BSON.MaxKey()), primary)];
    const n = this.shards.length * 2;
    const points = Array.from({ length: n - 1 }, (_, i) =>
      BSON.Long.fromBigInt(INT64_MIN + (INT64_SPAN * BigInt(i + 1)) / BigInt(n)),
    );
    const bounds: unknown[] = [new BSON.MinKey(), ...points, new BSON.MaxKey()];
    return Array.from({ length: n }, (_, i) =>
      make(bound(bounds[i]), bound(bounds[i + 1]), String(this.shards[i % this.shards.length]._id)),
    );
  }

  private chunkContaining(ns: string, point: Doc): Chunk | undefined {
    return this.chunks.find(
      (c) => c.ns === ns && compareDocs(c.min, point) <= 0 && compareDocs(point, c.max) < 0,
    );
  }

  /** The chunk a split/moveChunk names: `find` (a document) or `bounds` ([min, max]). */
  private targetChunk(ns: string, body: Doc): Chunk | Doc {
    const key = this.collections.get(ns)?.key as Doc;
    if (Array.isArray(body.bounds)) {
      const [min, max] = body.bounds as Doc[];
      const chunk = this.chunks.find(
        (c) => c.ns === ns && compareDocs(c.min, min) === 0 && compareDocs(c.max, max) === 0,
      );
      return (
        chunk ??
        err(
          2,
          'BadValue',
          `no chunk found with the shard key bounds [${JSON.stringify(min)}, ${JSON.stringify(max)})`,
        )
      );
    }
    const find = (body.find ?? body.middle) as Doc | undefined;
    if (!find) return err(2, 'BadValue', 'need to specify find or bounds');
    const point = Object.fromEntries(Object.keys(key).map((f) => [f, find[f] ?? null]));
    return (
      this.chunkContaining(ns, point) ??
      err(2, 'BadValue', `no chunk contains ${JSON.stringify(point)}`)
    );
  }

  split(body: Doc): Doc {
    const ns = String(body.split);
    if (!this.sharded(ns)) return err(118, 'NamespaceNotSharded', `ns not sharded.`);
    const middle = body.middle as Doc | undefined;
    if (!middle)
      return err(
        2,
        'BadValue',
        'only middle is modelled by the stand-in (the tool splits at a point)',
      );
    const key = this.collections.get(ns)?.key as Doc;
    const point = Object.fromEntries(Object.keys(key).map((f) => [f, middle[f] ?? null]));
    const chunk = this.chunkContaining(ns, point);
    if (!chunk) return err(2, 'BadValue', `no chunk contains ${JSON.stringify(point)}`);
    if (compareDocs(chunk.min, point) === 0) {
      return err(
        2,
        'BadValue',
        `split key ${JSON.stringify(point)} is a boundary key of existing chunk [${JSON.stringify(chunk.min)},${JSON.stringify(chunk.max)})`,
      );
    }
    const right: Chunk = {
      ...chunk,
      min: point,
      lastmod: this.nextVersion(),
      _id: new BSON.ObjectId(),
    };
    chunk.max = point;
    chunk.lastmod = this.nextVersion();
    this.chunks.push(right);
    return { ok: 1 };
  }

  moveChunk(body: Doc): Doc {
    const ns = String(body.moveChunk);
    const coll = this.sharded(ns);
    if (!coll) return err(118, 'NamespaceNotSharded', `ns not sharded.`);
    const to = String(body.to);
    if (!this.shards.some((s) => s._id === to))
      return err(70, 'ShardNotFound', `Could not find shard ${to}`);
    const target = this.targetChunk(ns, body);
    if (!('shard' in target)) return target;
    const chunk = target as Chunk;
    if (chunk.shard === to) return { millis: 0, ok: 1 };
    const racing = this.balancerMigration(ns, coll);
    if (racing) {
      // ActiveMigrationsRegistry::registerDonateChunk -> ActiveMoveChunkState::constructErrorStatus
      // (src/mongo/db/s/active_migrations_registry.cpp).
      return err(
        117,
        'ConflictingOperationInProgress',
        `Unable to start new balancer operation because this shard is currently donating chunk ${rangeString(racing.chunk)} for namespace ${ns} to ${racing.to}`,
      );
    }
    chunk.shard = to;
    chunk.lastmod = this.nextVersion();
    return { millis: 1, ok: 1 };
  }

  /**
   * The migration a running balancer (4.4..6.0.2) holds for this collection, if any: deterministic
   * model of the race - balancer on, collection balanced by it, and its chunk counts per shard
   * differing by the migration threshold or more. The balancer then donates a chunk from the
   * most loaded shard to the least loaded one, and a manual moveChunk from that shard collides.
   */
  private balancerMigration(ns: string, coll: Doc): { chunk: Chunk; to: string } | undefined {
    if (
      !this.f.balancerRacesManualMoveChunk ||
      this.balancerMode === 'off' ||
      coll.noBalance === true
    )
      return undefined;
    const mine = this.chunks.filter((c) => c.ns === ns);
    const counts = new Map(this.shards.map((s) => [String(s._id), 0]));
    for (const c of mine) counts.set(c.shard, (counts.get(c.shard) ?? 0) + 1);
    const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1]);
    const [most, least] = [sorted[0], sorted[sorted.length - 1]];
    if (!most || !least || most[1] - least[1] < migrationThreshold(mine.length)) return undefined;
    const chunk = mine.find((c) => c.shard === most[0]);
    return chunk ? { chunk, to: least[0] } : undefined;
  }

  balancerStatus(): Doc {
    return {
      mode: this.balancerMode,
      inBalancerRound: false,
      numBalancerRounds: BSON.Long.ZERO,
      ok: 1,
    };
  }

  /** balancerStop/balancerStart write config.settings {_id: "balancer", mode, stopped} (balancer_configuration.cpp). */
  setBalancer(on: boolean): Doc {
    this.settings.set('balancer', { _id: 'balancer', mode: on ? 'full' : 'off', stopped: !on });
    return { ok: 1 };
  }

  configureCollectionBalancing(body: Doc): Doc {
    if (!this.f.configureCollectionBalancing)
      return err(59, 'CommandNotFound', "no such command: 'configureCollectionBalancing'");
    const unknown = unknownField('configureCollectionBalancing', body, this.options.version);
    if (unknown) return unknown;
    const ns = String(body.configureCollectionBalancing);
    const coll = this.sharded(ns);
    if (!coll) return err(118, 'NamespaceNotSharded', `${ns} is not sharded`);
    if (body.chunkSize !== undefined) {
      const mb = Number(body.chunkSize);
      if (!(mb >= 0 && mb <= 1024))
        return err(2, 'BadValue', `Invalid chunk size ${mb}, must be between 1 and 1024 MB`);
      if (mb === 0) delete coll.maxChunkSizeBytes;
      else coll.maxChunkSizeBytes = BSON.Long.fromNumber(mb * 1024 * 1024);
    }
    return { ok: 1 };
  }

  /** find on the config database. */
  find(collection: string, filter: Doc | undefined, limit: number): Doc[] {
    let docs: Doc[];
    switch (collection) {
      case 'shards':
        docs = this.shards;
        break;
      case 'databases':
        docs = [...this.databases.values()];
        break;
      case 'collections':
        docs = [...this.collections.values()];
        break;
      case 'chunks':
        docs = this.chunks.map((c) => this.chunkDocument(c));
        break;
      case 'settings':
        docs = [...this.settings.values()];
        break;
      default:
        docs = [];
    }
    const found = docs.filter((d) => matches(d, filter)).map((d) => ({ ...d }));
    return limit > 0 ? found.slice(0, limit) : found;
  }

  /** config.chunks: keyed by ns before 5.0, by the collection uuid from 5.0 (docs 5.0 release notes). */
  private chunkDocument(c: Chunk): Doc {
    const doc: Doc = {
      _id: c._id,
      ...(this.f.chunksByUuid ? { uuid: c.uuid } : { ns: c.ns }),
      min: c.min,
      max: c.max,
      shard: c.shard,
      lastmod: c.lastmod,
    };
    doc.history = [{ validAfter: c.lastmod, shard: c.shard }];
    return doc;
  }

  /** update on config.settings (the pre-6.0 chunk size idiom): {_id} filter, $set or replacement, upsert. */
  updateSettings(updates: Doc[]): Doc {
    let n = 0;
    let nModified = 0;
    const upserted: Doc[] = [];
    updates.forEach((u, index) => {
      const q = (u.q ?? {}) as Doc;
      const id = String(q._id);
      const change = (u.u ?? {}) as Doc;
      const existing = this.settings.get(id);
      if (!existing && u.upsert !== true) return;
      const base = existing ?? { _id: id };
      const next = '$set' in change ? { ...base, ...(change.$set as Doc) } : { _id: id, ...change };
      this.settings.set(id, next);
      n++;
      if (existing) nModified++;
      else upserted.push({ index, _id: id });
    });
    return { n, nModified, ...(upserted.length ? { upserted } : {}), ok: 1 };
  }
}

function rangeString(chunk: Chunk): string {
  const show = (d: Doc) => BSON.EJSON.stringify(d, { relaxed: true });
  return `[${show(chunk.min)}, ${show(chunk.max)})`;
}
