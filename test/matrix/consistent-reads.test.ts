import { MongoClient } from 'mongodb';
import { consistentShare, readDescending, runMost, MostParams } from '../../lib/experiments/most';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

describe('consistent reads (MOST): a lookup for a document not yet written counts as inconsistent', () => {
  it('ids above what was written are misses; the rest are hits; every id is looked up once', async () => {
    const written = new Set(Array.from({ length: 60 }, (_, i) => i + 1)); // documents 1..60 of 100
    const looked: number[] = [];
    const tally = await readDescending(100, 3, async (id) => {
      looked.push(id);
      return written.has(id);
    });
    expect(tally).toEqual({
      hits: 60,
      misses: 40,
      errors: 0,
      missedSample: [100, 99, 98, 97, 96, 95, 94, 93, 92, 91],
    });
    expect(consistentShare(tally)).toBe(0.6);
    expect(looked.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('a failing lookup is an error, neither consistent nor inconsistent', async () => {
    const tally = await readDescending(4, 1, async (id) => {
      if (id === 3) throw new Error('boom');
      return id <= 2;
    });
    expect(tally).toMatchObject({ hits: 2, misses: 1, errors: 1 });
    expect(consistentShare(tally)).toBeCloseTo(2 / 3);
  });
});

describeNeeding('crud', 'consistent reads against the CRUD test server', () => {
  let client: MongoClient;
  const db = uniqueDbName('consistent');

  beforeAll(async () => {
    client = await new MongoClient(crudUri(), { serverSelectionTimeoutMS: 5000 }).connect();
  });
  afterAll(async () => {
    await client
      ?.db(db)
      .dropDatabase()
      .catch(() => undefined);
    await client?.close();
  });

  it('half the documents written: readers going N..1 find exactly that half', async () => {
    const coll = client.db(db).collection<{ _id: number; v: string }>('half');
    await coll.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i + 1, v: 'x' })));
    const tally = await readDescending(
      100,
      4,
      async (id) => (await coll.findOne({ _id: id })) !== null,
    );
    expect(tally.hits).toBe(50);
    expect(tally.misses).toBe(50);
    expect(tally.missedSample[0]).toBe(100);
    expect(consistentShare(tally)).toBe(0.5);
  });

  const params: MostParams = {
    docs: 1024,
    docSize: 1024,
    batchSize: 64,
    writers: 1,
    readers: 2,
    readStart: 'after-writes',
    randomSeed: 3,
  };

  it('readers racing the writers (read-start with-writes) miss the documents not yet written', async () => {
    const m = await runMost(
      client,
      db,
      'race',
      { ...params, readStart: 'with-writes' },
      { writeConcern: { w: 1 }, capped: false },
    );
    expect(m.docsWritten).toBe(1024);
    expect(m.reads.hits + m.reads.misses).toBe(1024);
    expect(m.reads.misses).toBeGreaterThan(0);
    expect(m.reads.missedSample[0]).toBe(1024); // the highest id is written last and read first
    expect(m.consistentShare).toBeLessThan(1);
    // What was written is all there afterwards: the misses were timing, not loss.
    expect(await client.db(db).collection('race').countDocuments()).toBe(1024);
  });

  it('readers starting after acknowledged (w:1) writes find every document', async () => {
    const m = await runMost(client, db, 'after', params, { writeConcern: { w: 1 }, capped: false });
    expect(m.reads).toMatchObject({ hits: 1024, misses: 0, errors: 0 });
    expect(m.consistentShare).toBe(1);
    expect(m.writeMiBps).toBeGreaterThan(0);
    expect(m.readMiBps).toBeGreaterThan(0);
    // ~1 KiB documents, 2^20 bytes per MiB: the figures follow from the bytes and the seconds measured.
    expect(m.writeMiBps).toBeCloseTo((1024 * m.docBytes) / 2 ** 20 / m.writeSeconds, 6);
  });
});
