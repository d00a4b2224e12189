/**
 * The test servers themselves: the shared CRUD server answers real driver traffic, the Java
 * launcher starts, reports and stops cleanly, and (where a mongod binary exists) real MongoDB
 * standalones and replica sets come up.
 */
import { existsSync, readdirSync, readFileSync } from 'fs';
import net from 'net';
import { MongoClient, MongoServerError } from 'mongodb';
import {
  JAVA_SERVER_JAR,
  JAVA_SERVER_NOT_BUILT,
  JavaServerNotBuiltError,
  parseListeningLine,
  startJavaServer,
} from './support/crud-server';
import { startReplSet, startStandalone } from './support/mongod';
import {
  crudKind,
  crudUri,
  describeNeeding,
  ENV,
  mongodBinary,
  uniqueDbName,
} from './support/servers';

const CLIENT_OPTIONS = { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 5_000 };

/** Resolves true when something accepts TCP connections on 127.0.0.1:port. */
function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Live launcher processes that are children of this test process (Linux /proc; [] elsewhere). */
function childJavaServers(): number[] {
  if (!existsSync('/proc/self/status')) return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (
        status.includes(`\nPPid:\t${process.pid}\n`) &&
        cmdline.includes('mongo-bench-test-server.jar')
      )
        pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

function sameMembers(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

async function eventually(check: () => boolean, timeoutMs = 3_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** The CRUD operations the workload engine and data loader rely on, through the real driver. */
async function crudRoundTrip(uri: string): Promise<void> {
  const client = new MongoClient(uri, CLIENT_OPTIONS);
  const db = client.db(uniqueDbName('servers'));
  try {
    const coll = db.collection<{ _id: number; group: string; n: number; key?: string }>(
      'roundtrip',
    );
    const inserted = await coll.insertMany([
      { _id: 1, group: 'a', n: 10 },
      { _id: 2, group: 'a', n: 20 },
      { _id: 3, group: 'b', n: 30 },
    ]);
    expect(inserted.insertedCount).toBe(3);

    expect(await coll.find({ group: 'a' }).sort({ n: -1 }).toArray()).toEqual([
      { _id: 2, group: 'a', n: 20 },
      { _id: 1, group: 'a', n: 10 },
    ]);

    const updated = await coll.updateOne({ _id: 1 }, { $inc: { n: 5 } });
    expect(updated).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    expect(await coll.findOne({ _id: 1 })).toEqual({ _id: 1, group: 'a', n: 15 });

    expect(await coll.countDocuments({ group: 'a' })).toBe(2);
    expect(await coll.countDocuments({ n: { $gte: 15 } })).toBe(3);

    expect(await coll.createIndex({ key: 1 }, { unique: true, sparse: true })).toBe('key_1');
    const indexNames = (await coll.indexes()).map((index) => index.name).sort();
    expect(indexNames).toEqual(['_id_', 'key_1']);

    await coll.insertOne({ _id: 4, group: 'c', n: 40, key: 'k' });
    const duplicate = await coll.insertOne({ _id: 5, group: 'c', n: 50, key: 'k' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(duplicate).toBeInstanceOf(MongoServerError);
    expect(duplicate).toMatchObject({ code: 11000 });
    expect((duplicate as MongoServerError).message).toMatch(/duplicate key/);
    const duplicateId = await coll.insertOne({ _id: 1, group: 'z', n: 0 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(duplicateId).toMatchObject({ code: 11000 });
    expect(await coll.countDocuments()).toBe(4);

    const deleted = await coll.deleteMany({ group: 'a' });
    expect(deleted.deletedCount).toBe(2);
    expect(await coll.countDocuments()).toBe(2);
    expect(await coll.findOne({ _id: 1 })).toBeNull();
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
}

describe('test server plumbing', () => {
  test("global setup's choice reaches this test process", () => {
    expect(process.env[ENV.summary]).toMatch(/^crud=.*; recording=in-process; mongosh=/);
  });

  test('parseListeningLine reads the launcher ready line', () => {
    expect(
      parseListeningLine('LISTENING 40123 mongo-java-server/1.47.0 reports=6.0.0/wire17\n'),
    ).toEqual({
      port: 40123,
      version: '1.47.0',
      reports: '6.0.0/wire17',
    });
    expect(parseListeningLine('LISTENING 5')).toEqual({
      port: 5,
      version: undefined,
      reports: undefined,
    });
    expect(parseListeningLine('[main] WARN something')).toBeUndefined();
  });

  test('a missing jar is reported with the build command', async () => {
    await expect(
      startJavaServer({ jar: '/nonexistent/mongo-bench-test-server.jar' }),
    ).rejects.toThrow(JavaServerNotBuiltError);
    await expect(
      startJavaServer({ jar: '/nonexistent/mongo-bench-test-server.jar' }),
    ).rejects.toThrow(JAVA_SERVER_NOT_BUILT);
  });
});

describeNeeding('crud', `shared CRUD server (${process.env[ENV.crudKind] ?? 'none'})`, () => {
  test('CRUD round trip through the mongodb driver', async () => {
    await crudRoundTrip(crudUri());
  });

  test('reports a version the current driver accepts', async () => {
    const client = new MongoClient(crudUri(), CLIENT_OPTIONS);
    try {
      const admin = client.db('admin');
      const isMaster = await admin.command({ isMaster: 1 });
      expect(isMaster.ismaster).toBe(true);
      expect(isMaster.maxWireVersion).toBeGreaterThanOrEqual(17);
      const buildInfo = await admin.command({ buildInfo: 1 });
      if (crudKind() === 'mongo-java-server') expect(buildInfo.version).toBe('6.0.0');
      else expect(buildInfo.versionArray[0]).toBeGreaterThanOrEqual(4);
    } finally {
      await client.close();
    }
  });
});

const jarBuilt = existsSync(JAVA_SERVER_JAR);
(jarBuilt ? describe : describe.skip)(
  `mongo-java-server launcher${jarBuilt ? '' : ` [skipped: ${JAVA_SERVER_NOT_BUILT}]`}`,
  () => {
    test('starts on a free loopback port, serves, and is gone after stop()', async () => {
      // In-band runs share this process with the run's CRUD server: look only at new children.
      const before = childJavaServers();
      const server = await startJavaServer();
      let stopped = false;
      try {
        expect(server.kind).toBe('mongo-java-server');
        expect(server.uri).toBe(`mongodb://127.0.0.1:${server.port}`);
        expect(server.description).toMatch(
          /^mongo-java-server \d+\.\d+\.\d+ \(test double, reports 6\.0\.0\/wire17\) at 127\.0\.0\.1:\d+$/,
        );
        const client = new MongoClient(server.uri, CLIENT_OPTIONS);
        try {
          expect((await client.db('admin').command({ ping: 1 })).ok).toBe(1);
        } finally {
          await client.close();
        }

        // Its port is taken now: a second launcher on it must fail with the launcher's own message.
        await expect(startJavaServer({ port: server.port })).rejects.toThrow(
          new RegExp(
            `exited \\(code 1\\) before listening; stderr: .*cannot listen on 127\\.0\\.0\\.1:${server.port}`,
          ),
        );

        expect(childJavaServers().filter((pid) => !before.includes(pid))).toHaveLength(1);
        await server.stop();
        stopped = true;
        expect(await isListening(server.port)).toBe(false);
        expect(sameMembers(childJavaServers(), before)).toBe(true);
      } finally {
        if (!stopped) await server.stop();
      }
    });

    test('a start that exceeds its timeout fails clearly and leaves no process', async () => {
      const before = childJavaServers();
      await expect(startJavaServer({ startTimeoutMs: 1 })).rejects.toThrow(
        /did not print LISTENING within 1 ms/,
      );
      expect(await eventually(() => sameMembers(childJavaServers(), before))).toBe(true);
    });
  },
);

// Real MongoDB: only where a mongod binary exists (MONGOD_BIN=...); skipped with the reason elsewhere.
describeNeeding('mongod', 'real mongod standalone', () => {
  let mongod: Awaited<ReturnType<typeof startStandalone>> | undefined;
  beforeAll(async () => {
    mongod = await startStandalone(mongodBinary());
  }, 120_000);
  afterAll(async () => {
    await mongod?.stop();
  });

  test('CRUD round trip, and the serverStatus counters the reports read', async () => {
    await crudRoundTrip(mongod!.uri);
    const client = new MongoClient(mongod!.uri, CLIENT_OPTIONS);
    try {
      const status = await client.db('admin').command({ serverStatus: 1 });
      expect(status.opcounters.insert).toBeGreaterThanOrEqual(3);
    } finally {
      await client.close();
    }
  });
});

describeNeeding('replset', 'real MongoDB replica set', () => {
  let replSet: Awaited<ReturnType<typeof startReplSet>> | undefined;
  beforeAll(async () => {
    replSet = await startReplSet(mongodBinary(), 3);
  }, 180_000);
  afterAll(async () => {
    await replSet?.stop();
  });

  test('three members with one primary, and majority writes are acknowledged', async () => {
    const client = new MongoClient(replSet!.uri, CLIENT_OPTIONS);
    try {
      const status = await client.db('admin').command({ replSetGetStatus: 1 });
      expect(status.set).toBe(replSet!.name);
      const states: string[] = status.members.map((m: { stateStr: string }) => m.stateStr);
      expect(states).toHaveLength(3);
      expect(states.filter((s) => s === 'PRIMARY')).toHaveLength(1);
      const coll = client.db(uniqueDbName('replset')).collection('w');
      const result = await coll.insertOne(
        { x: 1 },
        { writeConcern: { w: 'majority', wtimeoutMS: 30_000 } },
      );
      expect(result.acknowledged).toBe(true);
      await coll.drop();
    } finally {
      await client.close();
    }
  });
});
