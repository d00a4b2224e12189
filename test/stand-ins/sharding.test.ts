/**
 * The mongos catalog model, in process: addShard's checks (against recording servers posing as
 * replica-set members), config.databases/collections/chunks as they change per version, the
 * balancer race of 4.4..6.0.2, IDL parsing (no strict command at 4.4..8.0), configureCollectionBalancing from 6.0.
 */
import { BSON } from 'mongodb';
import { storeOptions } from '../support/fake-bin/options';
import { ShardingCatalog } from '../support/fake-bin/sharding';
import { idlSpec, undeclaredFields } from '../support/fake-bin/strict';
import { parseServerVersion } from '../support/fake-bin/version';
import { startRecordingServer, type RecordingServer } from '../support/recording-server';

type Doc = Record<string, unknown>;

function catalogAt(version: string): ShardingCatalog {
  return new ShardingCatalog(
    storeOptions('mongos', parseServerVersion(version), ['--configdb', 'cfg/127.0.0.1:1']),
  );
}

describe('addShard checks the shard it is given', () => {
  const servers: RecordingServer[] = [];
  afterAll(async () => Promise.all(servers.map((s) => s.stop())));
  const member = async (fields: Doc) => {
    const s = await startRecordingServer({ helloFields: fields });
    servers.push(s);
    return `127.0.0.1:${s.port}`;
  };

  test('an initiated replica set with the named setName and a primary is added; others are refused', async () => {
    const catalog = catalogAt('7.0.14');
    const primary = await member({ setName: 'shard0', ismaster: true, isWritablePrimary: true });
    expect(await catalog.addShard({ addShard: `shard0/${primary}` })).toEqual({
      shardAdded: 'shard0',
      ok: 1,
    });
    expect(await catalog.addShard({ addShard: `wrong/${primary}` })).toMatchObject({
      ok: 0,
      code: 96,
      errmsg: expect.stringMatching(/does not match the actual set name shard0/),
    });
    const uninitiated = await member({ ismaster: false, isreplicaset: true });
    expect(await catalog.addShard({ addShard: `shard1/${uninitiated}` })).toMatchObject({
      ok: 0,
      code: 96,
      errmsg: expect.stringMatching(/did not return a set name/),
    });
    expect(await catalog.addShard({ addShard: 'shard2/127.0.0.1:1' })).toMatchObject({
      ok: 0,
      code: 6,
    });
    expect((catalog.listShards().shards as Doc[]).map((s) => s._id)).toEqual(['shard0']);
  }, 30_000);
});

/** A catalog with shards registered without the network checks (those are tested above). */
function withShards(version: string, n: number): ShardingCatalog {
  const catalog = catalogAt(version);
  const register = (
    catalog as unknown as { registerShard(b: Doc, spec: string, set: string): Doc }
  ).registerShard.bind(catalog);
  for (let i = 0; i < n; i++) register({}, `shard${i}/127.0.0.1:${1000 + i}`, `shard${i}`);
  return catalog;
}

describe('config.databases', () => {
  test('before 6.0: a database created by a write has partitioned: false until enableSharding; shardCollection needs it', () => {
    const catalog = withShards('5.0.31', 2);
    catalog.ensureDatabase('app');
    expect(catalog.find('databases', { _id: 'app' }, 1)[0]).toMatchObject({
      _id: 'app',
      primary: 'shard0',
      partitioned: false,
    });
    expect(catalog.shardCollection({ shardCollection: 'app.docs', key: { _id: 1 } })).toMatchObject(
      { ok: 0, code: 20, errmsg: 'sharding not enabled for db app' },
    );
    expect(catalog.enableSharding({ enableSharding: 'app' }).ok).toBe(1);
    expect(catalog.find('databases', { _id: 'app', partitioned: true }, 1)).toHaveLength(1);
    expect(catalog.shardCollection({ shardCollection: 'app.docs', key: { _id: 1 } }).ok).toBe(1);
  });

  test('from 6.0: no partitioned field; shardCollection creates the database', () => {
    const catalog = withShards('6.0.20', 2);
    expect(catalog.shardCollection({ shardCollection: 'app.docs', key: { _id: 1 } }).ok).toBe(1);
    expect(catalog.find('databases', { _id: 'app' }, 1)[0]).not.toHaveProperty('partitioned');
  });
});

describe('config.chunks after shardCollection, split and moveChunk', () => {
  test('4.4: chunks keyed by ns; 5.0+: by the collection uuid', () => {
    const old = withShards('4.4.29', 2);
    old.enableSharding({ enableSharding: 'app' });
    old.shardCollection({ shardCollection: 'app.docs', key: { g: 1 } });
    expect(old.find('chunks', { ns: 'app.docs' }, 0)).toHaveLength(1);
    const recent = withShards('5.0.31', 2);
    recent.enableSharding({ enableSharding: 'app' });
    recent.shardCollection({ shardCollection: 'app.docs', key: { g: 1 } });
    const coll = recent.find('collections', { _id: 'app.docs' }, 1)[0];
    expect(recent.find('chunks', { ns: 'app.docs' }, 0)).toHaveLength(0);
    expect(recent.find('chunks', { uuid: coll.uuid }, 0)).toHaveLength(1);
  });

  test('split makes a boundary; moveChunk moves the chunk; a hashed key starts with 2 chunks per shard', () => {
    const catalog = withShards('7.0.14', 2);
    catalog.shardCollection({ shardCollection: 'app.docs', key: { g: 1 } });
    expect(catalog.split({ split: 'app.docs', middle: { g: 32 } }).ok).toBe(1);
    expect(catalog.split({ split: 'app.docs', middle: { g: 32 } })).toMatchObject({ ok: 0 });
    expect(catalog.moveChunk({ moveChunk: 'app.docs', find: { g: 40 }, to: 'shard1' }).ok).toBe(1);
    const uuid = catalog.find('collections', { _id: 'app.docs' }, 1)[0].uuid;
    const chunks = catalog.find('chunks', { uuid }, 0).map((c) => [c.min, c.shard]);
    expect(chunks).toEqual([
      [{ g: new BSON.MinKey() }, 'shard0'],
      [{ g: 32 }, 'shard1'],
    ]);
    catalog.shardCollection({ shardCollection: 'app.hashed', key: { _id: 'hashed' } });
    const h = catalog.find('collections', { _id: 'app.hashed' }, 1)[0].uuid;
    expect(catalog.find('chunks', { uuid: h, shard: 'shard1' }, 0)).toHaveLength(2);
  });
});

describe('drop of a sharded collection', () => {
  test('5.0+: its config.collections entry and chunks go; it can be sharded again on another key', () => {
    const catalog = withShards('7.0.14', 2);
    catalog.shardCollection({ shardCollection: 'app.docs', key: { g: 1 } });
    const uuid = catalog.find('collections', { _id: 'app.docs' }, 1)[0].uuid;
    catalog.dropCollection('app.docs');
    expect(catalog.find('collections', { _id: 'app.docs' }, 0)).toEqual([]);
    expect(catalog.find('chunks', { uuid }, 0)).toEqual([]);
    expect(catalog.find('databases', { _id: 'app' }, 0)).toHaveLength(1);
    expect(
      catalog.shardCollection({ shardCollection: 'app.docs', key: { _id: 'hashed' } }),
    ).toMatchObject({ ok: 1 });
  });

  test('4.4: the entry stays, marked dropped: true, its chunks go; split on it is refused; sharding it again works', () => {
    const catalog = withShards('4.4.29', 2);
    catalog.enableSharding({ enableSharding: 'app' });
    catalog.shardCollection({ shardCollection: 'app.docs', key: { g: 1 } });
    catalog.dropCollection('app.docs');
    expect(catalog.find('collections', { _id: 'app.docs' }, 1)[0]).toMatchObject({ dropped: true });
    expect(catalog.find('chunks', { ns: 'app.docs' }, 0)).toEqual([]);
    expect(catalog.split({ split: 'app.docs', middle: { g: 32 } })).toMatchObject({
      ok: 0,
      code: 118,
    });
    expect(
      catalog.shardCollection({ shardCollection: 'app.docs', key: { _id: 'hashed' } }),
    ).toMatchObject({ ok: 1 });
    expect(catalog.find('collections', { _id: 'app.docs' }, 1)[0]).toMatchObject({
      dropped: false,
      key: { _id: 'hashed' },
    });
  });
});

describe('dropDatabase of a database with a sharded collection', () => {
  test.each(['4.4.29', '7.0.14'])(
    "%s: the database entry and its collections' sharding go; shardCollection on 4.4 then needs enableSharding again",
    (version) => {
      const catalog = withShards(version, 2);
      catalog.enableSharding({ enableSharding: 'app' });
      catalog.enableSharding({ enableSharding: 'other' });
      catalog.shardCollection({ shardCollection: 'app.docs', key: { _id: 'hashed' } });
      catalog.shardCollection({ shardCollection: 'other.docs', key: { _id: 'hashed' } });
      catalog.dropDatabase('app');
      expect(catalog.find('databases', { _id: 'app' }, 0)).toEqual([]);
      expect(
        catalog.find('collections', { _id: 'app.docs' }, 0).filter((c) => c.dropped !== true),
      ).toEqual([]);
      expect(catalog.find('collections', { _id: 'other.docs' }, 0)).toHaveLength(1);
      const again = catalog.shardCollection({
        shardCollection: 'app.docs',
        key: { _id: 'hashed' },
      });
      if (version.startsWith('4.4'))
        expect(again).toMatchObject({ ok: 0, codeName: 'IllegalOperation' });
      else expect(again).toMatchObject({ ok: 1 });
    },
  );
});

describe('the balancer and a manual moveChunk', () => {
  function unbalanced(version: string): ShardingCatalog {
    const catalog = withShards(version, 2);
    catalog.enableSharding({ enableSharding: 'app', primaryShard: 'shard0' });
    catalog.shardCollection({ shardCollection: 'app.docs', key: { g: 1 } });
    for (const g of [16, 32, 48]) catalog.split({ split: 'app.docs', middle: { g } });
    return catalog; // 4 chunks on shard0, 0 on shard1: beyond the migration threshold (2)
  }

  test('4.4..6.0.2: with the balancer on, a manual moveChunk collides with its migration (117)', () => {
    for (const version of ['4.4.29', '5.0.31', '6.0.2']) {
      const catalog = unbalanced(version);
      expect(
        catalog.moveChunk({ moveChunk: 'app.docs', find: { g: 40 }, to: 'shard1' }),
      ).toMatchObject({
        ok: 0,
        code: 117,
        codeName: 'ConflictingOperationInProgress',
        errmsg: expect.stringMatching(
          /^Unable to start new balancer operation because this shard is currently donating chunk .* for namespace app\.docs to shard1$/,
        ),
      });
      expect(catalog.setBalancer(false).ok).toBe(1);
      expect(catalog.find('settings', { _id: 'balancer' }, 1)[0]).toMatchObject({
        mode: 'off',
        stopped: true,
      });
      expect(catalog.moveChunk({ moveChunk: 'app.docs', find: { g: 40 }, to: 'shard1' }).ok).toBe(
        1,
      );
    }
  });

  test('from 6.0.3 the race is not modelled (range-based balancer)', () => {
    expect(
      unbalanced('6.0.3').moveChunk({ moveChunk: 'app.docs', find: { g: 40 }, to: 'shard1' }).ok,
    ).toBe(1);
  });
});

describe('IDL parsing and version-gated commands', () => {
  // ShardCollection is strict: false at every version (4.4 shard_collection.idl's generated parser,
  // 5.0-7.0 s/commands/cluster_commands.idl, 8.0+ global_catalog/ddl/shard_collection.idl): an
  // undeclared field is ignored, not refused (the old stand-in answered 40415 from 4.4 on).
  test.each(['4.4.29', '5.0.31', '6.0.20', '7.0.14', '8.0.4'])(
    '%s: an undeclared shardCollection field is ignored, as the server does',
    (version) => {
      const catalog = withShards(version, 1);
      if (version.startsWith('4.4') || version.startsWith('5.0'))
        catalog.enableSharding({ enableSharding: 'app' });
      expect(
        catalog.shardCollection({
          shardCollection: 'app.docs',
          key: { _id: 1 },
          chunkSize: 64,
          writeConcern: { w: 'majority' },
          maxTimeMS: 1000,
        }),
      ).toEqual({ collectionsharded: 'app.docs', ok: 1 });
      expect(catalog.find('collections', { _id: 'app.docs' }, 1)[0]).not.toHaveProperty(
        'chunkSize',
      );
    },
  );

  test('configureCollectionBalancing: CommandNotFound before 6.0; sets maxChunkSizeBytes from 6.0', () => {
    const old = withShards('5.0.31', 1);
    expect(
      old.configureCollectionBalancing({ configureCollectionBalancing: 'app.docs', chunkSize: 64 }),
    ).toMatchObject({ ok: 0, code: 59 });
    const catalog = withShards('6.0.20', 1);
    catalog.shardCollection({ shardCollection: 'app.docs', key: { _id: 1 } });
    expect(
      catalog.configureCollectionBalancing({
        configureCollectionBalancing: 'app.docs',
        chunkSize: 64,
      }).ok,
    ).toBe(1);
    expect(String(catalog.find('collections', { _id: 'app.docs' }, 1)[0].maxChunkSizeBytes)).toBe(
      String(64 * 1024 * 1024),
    );
  });

  // configure_collection_balancing.idl: the public command is strict: false in the 6.0 line and 7.0+;
  // balancerShouldMergeChunks was never its field (the old stand-in declared it for 7.0 and refused
  // anything else with 40415).
  test.each(['6.0.20', '7.0.14', '8.0.4'])(
    '%s: configureCollectionBalancing ignores undeclared fields (balancerShouldMergeChunks, bogus)',
    (version) => {
      const catalog = withShards(version, 1);
      catalog.shardCollection({ shardCollection: 'app.docs', key: { _id: 1 } });
      expect(
        catalog.configureCollectionBalancing({
          configureCollectionBalancing: 'app.docs',
          chunkSize: 32,
          bogus: 1,
          balancerShouldMergeChunks: true,
        }),
      ).toEqual({ ok: 1 });
      const coll = catalog.find('collections', { _id: 'app.docs' }, 1)[0];
      expect(String(coll.maxChunkSizeBytes)).toBe(String(32 * 1024 * 1024));
      expect(coll).not.toHaveProperty('balancerShouldMergeChunks');
    },
  );

  test('the declared fields per version follow the IDL files read', () => {
    const fields = (command: string, version: string) =>
      idlSpec(command, parseServerVersion(version))?.fields ?? [];
    expect(fields('configureCollectionBalancing', '6.0.20')).toEqual(
      expect.arrayContaining(['chunkSize', 'enableAutoSplitter', 'defragmentCollection']),
    );
    expect(fields('configureCollectionBalancing', '6.0.20')).not.toContain('enableAutoMerger');
    expect(fields('configureCollectionBalancing', '7.0.14')).toEqual(
      expect.arrayContaining(['chunkSize', 'enableAutoMerger', 'defragmentCollection']),
    );
    expect(fields('configureCollectionBalancing', '7.0.14')).not.toContain(
      'balancerShouldMergeChunks',
    );
    expect(
      undeclaredFields(
        'configureCollectionBalancing',
        { configureCollectionBalancing: 'a.b', enableAutoMerger: false },
        parseServerVersion('6.0.20'),
      ),
    ).toEqual(['enableAutoMerger']);
    expect(fields('shardCollection', '4.4.29')).not.toContain('timeseries');
    expect(fields('shardCollection', '5.0.31')).toContain('timeseries');
    for (const version of ['4.4.29', '5.0.31', '6.0.20', '7.0.14', '8.0.4']) {
      for (const command of ['shardCollection', 'configureCollectionBalancing'])
        expect(idlSpec(command, parseServerVersion(version))?.strict ?? false).toBe(false);
    }
  });
});
