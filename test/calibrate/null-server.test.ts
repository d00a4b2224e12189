/** The null server answers the Node driver (handshake, find, update, insert, getMore) and leaves nothing behind. */
import { MongoClient } from 'mongodb';
import { NULL_SERVER_VERSION, startNullServer } from '../../lib/calibrate/null-server';
import { spawnNullServer } from '../../lib/calibrate/null-server-process';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('null server', () => {
  it('in its own process, answers the driver: connect, findOne, find, update, insert, delete, buildInfo', async () => {
    const server = await spawnNullServer({ docBytes: 300 });
    const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 3000 });
    try {
      expect(server.uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\//);
      await client.connect();
      const coll = client.db('any').collection<{ _id?: number; a?: number }>('thing');
      const doc = await coll.findOne({ _id: 5 });
      expect(doc).toMatchObject({ _id: 0, counter: 0 });
      expect((await coll.find({}).toArray()).length).toBe(1);
      expect(await coll.updateOne({ _id: 1 }, { $set: { a: 1 } })).toMatchObject({
        acknowledged: true,
        matchedCount: 1,
        modifiedCount: 1,
      });
      expect(await coll.insertOne({ a: 1 })).toMatchObject({ acknowledged: true });
      expect(await coll.insertMany([{ a: 1 }, { a: 2 }, { a: 3 }])).toMatchObject({
        insertedCount: 3,
      });
      expect(await coll.deleteOne({ _id: 1 })).toMatchObject({ deletedCount: 1 });
      expect(await client.db('admin').command({ buildInfo: 1 })).toMatchObject({
        version: NULL_SERVER_VERSION,
        ok: 1,
      });
      await expect(client.db('admin').command({ serverStatus: 1 })).rejects.toMatchObject({
        codeName: 'CommandNotFound',
      });
      const usage = await server.usage();
      expect(usage.answered).toBeGreaterThanOrEqual(8);
      expect(usage.cpuMicros).toBeGreaterThan(0);
    } finally {
      await client.close();
      await server.stop();
    }
    expect(alive(server.pid)).toBe(false);
  });

  it('the document find returns has the size asked for', async () => {
    const server = await startNullServer({ docBytes: 2000 });
    const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 3000 });
    try {
      const reply = await client
        .db('x')
        .command({ find: 'y', filter: {}, limit: 1, singleBatch: true });
      const [doc] = reply.cursor.firstBatch as Record<string, unknown>[];
      const { BSON } = await import('mongodb');
      expect(BSON.calculateObjectSize(doc)).toBe(2000);
      expect(Number(reply.cursor.id)).toBe(0);
    } finally {
      await client.close();
      await server.stop();
    }
  });

  it('listens on loopback only', async () => {
    await expect(startNullServer({ host: '0.0.0.0' as '127.0.0.1' })).rejects.toThrow(
      /loopback only/,
    );
  });
});
