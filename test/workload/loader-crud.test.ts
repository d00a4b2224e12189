/**
 * The loader's two ways of starting clean: drop the collection (default), or keep it and delete its
 * documents (keepCollection: a collection the setup plan sharded keeps its shard key and chunks).
 * A marker index tells them apart: a drop removes it, deleteMany leaves it.
 */
import { MongoClient } from 'mongodb';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { loadData } from '../../lib/prepare/loader';

describeNeeding('crud', 'loader against the CRUD test server', () => {
  let client: MongoClient;
  beforeAll(async () => {
    client = await new MongoClient(crudUri(), { serverSelectionTimeoutMS: 5000 }).connect();
  });
  afterAll(async () => client?.close());

  async function prepared(db: string) {
    const coll = client.db(db).collection('docs');
    await coll.insertMany([{ _id: 'old-1' }, { _id: 'old-2' }] as never[]);
    await coll.createIndex({ marker: 1 }, { name: 'marker_1' });
    return coll;
  }

  it.each([
    ['keepCollection: empties with deleteMany, the collection (and its marker index) stays', true],
    ['default: drops the collection first (the marker index is gone)', false],
  ])('%s', async (_name, keepCollection) => {
    const db = uniqueDbName(keepCollection ? 'load_keep' : 'load_drop');
    try {
      const coll = await prepared(db);
      // Documents it did not load: refused by default (lib/server/data-guard), replaced with consent.
      await expect(
        loadData(client, {
          ns: { db, coll: 'docs' },
          docs: 50,
          docSize: 128,
          batchSize: 20,
          randomSeed: 3,
          keepCollection,
        }),
      ).rejects.toThrow(/holds 2 documents mongo-bench did not load/);
      expect(await coll.countDocuments({})).toBe(2);
      const guard = { ours: false, consent: true, consentFlag: '--drop' };
      const loaded = await loadData(client, {
        ns: { db, coll: 'docs' },
        docs: 50,
        docSize: 128,
        batchSize: 20,
        randomSeed: 3,
        keepCollection,
        guard,
      });
      expect(loaded).toMatchObject({ docs: 50, complete: true });
      expect(await coll.countDocuments({})).toBe(50);
      expect(await coll.countDocuments({ _id: { $in: ['old-1', 'old-2'] } } as never)).toBe(0);
      const indexes = (await coll.indexes()).map((i) => i.name);
      expect(indexes.includes('marker_1')).toBe(keepCollection);
    } finally {
      await client.db(db).dropDatabase();
    }
  });
});
