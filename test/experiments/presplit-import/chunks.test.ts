/**
 * The chunk-distribution reader against a recording server posing as a mongos whose config
 * database holds chunks the 5.0+ way (by collection uuid) and the older way (by namespace).
 */
import { BSON, MongoClient } from 'mongodb';
import { describeNeeding } from '../../support/servers';
import { startFakeShardedCluster } from './fake-sharded-cluster';
import { readChunkDistribution } from '../../../lib/experiments/presplit-import';

describeNeeding('recording', 'the chunk-distribution reader', () => {
  it('counts the chunks per shard, by uuid (5.0+) or by namespace (before), listing shards that hold none', async () => {
    const cluster = await startFakeShardedCluster({ shards: 3 });
    const client = new MongoClient(cluster.mongos.uri);
    try {
      const { state } = cluster;
      const uuidNew = new BSON.UUID('00000000-0000-4000-8000-00000000aaaa');
      const uuidOld = new BSON.UUID('00000000-0000-4000-8000-00000000bbbb');
      state.collections.set('db.new', { _id: 'db.new', key: { g: 1 }, uuid: uuidNew });
      state.collections.set('db.old', { _id: 'db.old', key: { g: 1 }, uuid: uuidOld });
      const chunk = (i: number, shard: string) => ({ min: { g: i }, max: { g: i + 1 }, shard });
      // 5.0+: chunks carry the uuid only. 150 of them: more than one reply's worth for a limit-1 reader.
      for (let i = 0; i < 150; i++)
        state.chunks.push({ uuid: uuidNew, ...chunk(i, i < 100 ? 'shard0' : 'shard2') } as never);
      // Before 5.0: chunks carry the namespace only.
      for (let i = 0; i < 4; i++)
        state.chunks.push({ ns: 'db.old', ...chunk(i, `shard${i % 2}`) } as never);
      // Another collection's chunks must not count.
      state.chunks.push({ ns: 'db.other', uuid: new BSON.UUID(), ...chunk(0, 'shard1') } as never);

      const shardIds = ['shard0', 'shard1', 'shard2'];
      const byUuid = await readChunkDistribution(client, 'db.new', shardIds);
      expect(byUuid).toMatchObject({
        sharded: true,
        total: 150,
        perShard: { shard0: 100, shard1: 0, shard2: 50 },
      });
      const byNs = await readChunkDistribution(client, 'db.old', shardIds);
      expect(byNs).toMatchObject({
        sharded: true,
        total: 4,
        perShard: { shard0: 2, shard1: 2, shard2: 0 },
      });
      const none = await readChunkDistribution(client, 'db.missing', shardIds);
      expect(none).toMatchObject({
        sharded: false,
        total: 0,
        perShard: { shard0: 0, shard1: 0, shard2: 0 },
      });
      expect(Number.isNaN(Date.parse(byUuid.at))).toBe(false);

      // It asked the config database through the mongos, for the collection's uuid and then its chunks.
      const reads = cluster.mongos
        .userCommands()
        .filter((c) => c.db === 'config' && c.name === 'find');
      expect(reads.map((c) => c.body.find)).toEqual([
        'collections',
        'chunks',
        'collections',
        'chunks',
        'collections',
      ]);
      expect(reads[1].body.filter).toEqual({ $or: [{ uuid: uuidNew }, { ns: 'db.new' }] });
    } finally {
      await client.close();
      await cluster.stop();
    }
  });
});
