import * as net from 'node:net';
import { BSON, MongoClient, MongoServerError } from 'mongodb';
import { describeNeeding } from './support/servers';
import { RecordedCommand, RecordingServer, startRecordingServer } from './support/recording-server';
import { runMongosh } from './support/mongosh';

const REPL_SET_INITIATE = {
  _id: 'rs0',
  members: [
    { _id: 0, host: '127.0.0.1:27017' },
    { _id: 1, host: '127.0.0.1:27018', priority: 0 },
  ],
};

function named(server: RecordingServer, name: string): RecordedCommand[] {
  return server.commands.filter((c) => c.name === name);
}

describeNeeding(['recording', 'mongosh'], 'recording server with real mongosh', () => {
  let server: RecordingServer;
  afterEach(async () => {
    await server?.stop();
  });

  it('records the commands of a mongosh script, replSetInitiate field by field, after the ping', async () => {
    server = await startRecordingServer();
    const script =
      "db.adminCommand({ping:1}); db.getSiblingDB('admin').runCommand({replSetInitiate: " +
      JSON.stringify(REPL_SET_INITIATE) +
      '})';
    const result = await runMongosh(server.uri, { script });
    expect(result).toMatchObject({ code: 0, timedOut: false, stderr: '' });

    const initiate = named(server, 'replSetInitiate');
    expect(initiate).toHaveLength(1);
    const recorded = initiate[0];
    expect(recorded.db).toBe('admin');
    expect(Object.keys(recorded.body)).toEqual(['replSetInitiate']);
    const config = recorded.body.replSetInitiate as typeof REPL_SET_INITIATE;
    expect(config._id).toBe('rs0');
    expect(config.members).toHaveLength(2);
    expect(config.members[0]).toEqual({ _id: 0, host: '127.0.0.1:27017' });
    expect(config.members[1]._id).toBe(1);
    expect(config.members[1].host).toBe('127.0.0.1:27018');
    expect(config.members[1].priority).toBe(0);

    // The envelope the driver adds is kept apart from the command itself.
    expect(recorded.raw.$db).toBe('admin');
    expect(recorded.raw.lsid).toBeDefined();

    // The handshake is recorded too, and userCommands() leaves it and mongosh's probes out.
    expect(server.commands[0].name.toLowerCase()).toMatch(/^(ismaster|hello)$/);
    expect(server.commands.some((c) => c.name === 'buildInfo')).toBe(true);
    expect(server.userCommands().map((c) => `${c.db}.${c.name}`)).toEqual([
      'admin.ping',
      'admin.replSetInitiate',
    ]);
    const all = server.commands.map((c) => c.name);
    expect(all.indexOf('ping')).toBeLessThan(all.indexOf('replSetInitiate'));
  });

  it('lets a handler fail a command, and mongosh sees the failure', async () => {
    server = await startRecordingServer({
      handlers: {
        replSetInitiate: () => ({
          ok: 0,
          errmsg: 'already initialized',
          code: 23,
          codeName: 'AlreadyInitialized',
        }),
      },
    });
    // mongosh throws on ok: 0; the script turns that into its own exit code.
    const script = `
      let failed = null;
      try {
        const res = db.adminCommand({replSetInitiate: ${JSON.stringify(REPL_SET_INITIATE)}});
        if (!res.ok) failed = 'ok:0';
      } catch (e) { failed = e.codeName + ': ' + e.message; }
      if (failed) { print('FAILED ' + failed); quit(3); }
      print('SUCCEEDED');`;
    const result = await runMongosh(server.uri, { script });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('FAILED AlreadyInitialized: already initialized');
    expect(named(server, 'replSetInitiate')).toHaveLength(1);
  });

  it('kills a mongosh run that outlives its timeout', async () => {
    server = await startRecordingServer();
    const result = await runMongosh(server.uri, {
      eval: "sleep(60000); print('woke')",
      timeoutMs: 2000,
    });
    expect(result).toMatchObject({ code: null, timedOut: true });
    expect(result.stdout).not.toContain('woke');
    expect(result.durationMs).toBeGreaterThanOrEqual(2000);
    expect(result.durationMs).toBeLessThan(10_000);
  });
});

describeNeeding('recording', 'recording server with the Node driver', () => {
  let server: RecordingServer;
  let client: MongoClient | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await server?.stop();
  });

  it('answers commands, returns empty cursors for reads, and records writes with their documents', async () => {
    server = await startRecordingServer({
      handlers: {
        replSetGetStatus: (_body, db, srv) => ({ set: 'rs0', db, seen: srv.commands.length }),
        dropDatabase: () => ({
          ok: 0,
          errmsg: 'not allowed here',
          code: 13,
          codeName: 'Unauthorized',
        }),
        ping: () => undefined, // falls back to the default reply
      },
    });
    client = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 }).connect();
    const admin = client.db('admin');

    expect(await admin.command({ ping: 1 })).toEqual({ ok: 1 });
    const status = await admin.command({ replSetGetStatus: 1 });
    expect(status).toMatchObject({ set: 'rs0', db: 'admin', ok: 1 });
    expect(status.seen).toBeGreaterThan(0);
    await expect(client.db('bench').dropDatabase()).rejects.toMatchObject({
      constructor: MongoServerError,
      code: 13,
      codeName: 'Unauthorized',
    });

    const coll = client.db('bench').collection('items');
    expect(await coll.find({ a: { $gt: 1 } }).toArray()).toEqual([]);
    expect(await coll.aggregate([{ $match: {} }]).toArray()).toEqual([]);
    expect(
      await client.db('config').collection('chunks').findOne({ ns: 'bench.items' }),
    ).toBeNull();
    expect(await client.db('bench').listCollections().toArray()).toEqual([]);

    const inserted = await coll.insertMany([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(inserted.insertedCount).toBe(3);

    const user = server.userCommands();
    const find = user.find((c) => c.name === 'find' && c.db === 'bench');
    expect(find?.body).toMatchObject({ find: 'items', filter: { a: { $gt: 1 } } });
    const insert = user.find((c) => c.name === 'insert');
    expect(insert?.db).toBe('bench');
    expect((insert?.body.documents as Array<{ a: number }>).map((d) => d.a)).toEqual([1, 2, 3]);
    expect(user.map((c) => c.name)).toEqual([
      'ping',
      'replSetGetStatus',
      'dropDatabase',
      'find',
      'aggregate',
      'find',
      'listCollections',
      'insert',
    ]);

    server.clear();
    expect(server.commands).toEqual([]);
  });

  it('records an unacknowledged (w: 0) write without replying to it', async () => {
    server = await startRecordingServer();
    client = await new MongoClient(server.uri).connect();
    await client
      .db('bench')
      .collection('items')
      .insertOne({ a: 1 }, { writeConcern: { w: 0 } });
    // The next acknowledged command on the same pool proves the stream stayed in step.
    expect(await client.db('admin').command({ ping: 1 })).toEqual({ ok: 1 });
    expect(server.userCommands().map((c) => c.name)).toEqual(['insert', 'ping']);
    expect(server.userCommands()[0].body.writeConcern).toEqual({ w: 0 });
  });

  it('turns a throwing handler, or a reply BSON cannot hold, into an ok: 0 reply', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    server = await startRecordingServer({
      handlers: {
        addShard: () => {
          throw new Error('boom');
        },
        balancerStatus: () => circular,
      },
    });
    client = await new MongoClient(server.uri).connect();
    const admin = client.db('admin');
    await expect(admin.command({ addShard: 'rs1/127.0.0.1:27019' })).rejects.toThrow(
      /handler for addShard threw: boom/,
    );
    await expect(admin.command({ balancerStatus: 1 })).rejects.toThrow(
      /reply to balancerStatus is not serializable/,
    );
    expect(await admin.command({ ping: 1 })).toEqual({ ok: 1 }); // the connection survived
  });
});

/** Sends one raw message and resolves with the first complete reply. */
function exchange(port: number, message: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(message));
    let data = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      if (data.length >= 4 && data.length >= data.readInt32LE(0)) {
        socket.destroy();
        resolve(data);
      }
    });
    socket.on('error', reject);
  });
}

function header(length: number, opCode: number): Buffer {
  const h = Buffer.alloc(16);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(42, 4); // requestID
  h.writeInt32LE(opCode, 12);
  return h;
}

describeNeeding('recording', 'recording server wire format', () => {
  let server: RecordingServer;
  beforeEach(async () => {
    server = await startRecordingServer();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('answers a legacy OP_QUERY isMaster with an OP_REPLY carrying a modern wire version', async () => {
    const query = BSON.serialize({ $query: { isMaster: 1, helloOk: true } });
    const ns = Buffer.from('admin.$cmd\0');
    const body = Buffer.concat([
      Buffer.alloc(4),
      ns,
      Buffer.from([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]),
      query,
    ]);
    const reply = await exchange(
      server.port,
      Buffer.concat([header(16 + body.length, 2004), body]),
    );
    expect(reply.readInt32LE(8)).toBe(42); // responseTo
    expect(reply.readInt32LE(12)).toBe(1); // OP_REPLY
    expect(reply.readInt32LE(32)).toBe(1); // numberReturned
    const doc = BSON.deserialize(reply.subarray(36));
    expect(doc).toMatchObject({ ismaster: true, helloOk: true, maxWireVersion: 21, ok: 1 });
    expect(server.commands).toMatchObject([
      { db: 'admin', name: 'isMaster', body: { isMaster: 1, helloOk: true } },
    ]);
  });

  it('merges OP_MSG document sequences into the body and ignores a trailing checksum', async () => {
    const kind0 = Buffer.concat([
      Buffer.from([0]),
      BSON.serialize({ update: 'items', $db: 'bench' }),
    ]);
    const docs = [
      BSON.serialize({ q: { a: 1 }, u: { $set: { b: 1 } } }),
      BSON.serialize({ q: { a: 2 }, u: { $set: { b: 2 } } }),
    ];
    const id = Buffer.from('updates\0');
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + id.length + docs[0].length + docs[1].length);
    const kind1 = Buffer.concat([Buffer.from([1]), size, id, ...docs]);
    const flags = Buffer.alloc(4);
    flags.writeUInt32LE(1); // checksumPresent
    const checksum = Buffer.from([1, 2, 3, 4]); // not verified
    const body = Buffer.concat([flags, kind0, kind1, checksum]);
    const reply = await exchange(
      server.port,
      Buffer.concat([header(16 + body.length, 2013), body]),
    );
    expect(reply.readInt32LE(12)).toBe(2013);
    expect(BSON.deserialize(reply.subarray(21))).toEqual({ n: 0, nModified: 0, ok: 1 });
    expect(server.commands).toHaveLength(1);
    expect(server.commands[0]).toMatchObject({
      db: 'bench',
      name: 'update',
      body: {
        update: 'items',
        updates: [
          { q: { a: 1 }, u: { $set: { b: 1 } } },
          { q: { a: 2 }, u: { $set: { b: 2 } } },
        ],
      },
    });
    expect(server.commands[0].body.$db).toBeUndefined();
  });

  it('unwraps an OP_COMPRESSED message that uses the noop compressor', async () => {
    const msg = Buffer.concat([
      Buffer.alloc(4),
      Buffer.from([0]),
      BSON.serialize({ ping: 1, $db: 'admin' }),
    ]);
    const wrapper = Buffer.alloc(9);
    wrapper.writeInt32LE(2013, 0); // originalOpcode
    wrapper.writeInt32LE(msg.length, 4); // uncompressedSize
    wrapper.writeUInt8(0, 8); // compressorId: noop
    const body = Buffer.concat([wrapper, msg]);
    const reply = await exchange(
      server.port,
      Buffer.concat([header(16 + body.length, 2012), body]),
    );
    expect(BSON.deserialize(reply.subarray(21))).toEqual({ ok: 1 });
    expect(server.commands).toMatchObject([{ db: 'admin', name: 'ping', body: { ping: 1 } }]);
  });

  it('stop() closes open client connections and the listening socket', async () => {
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await server.stop();
    await server.stop(); // a second stop is harmless
    await closed;
    const refused = await new Promise<string>((resolve) => {
      const again = net.connect(server.port, '127.0.0.1');
      again.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? ''));
      again.once('connect', () => {
        again.destroy();
        resolve('connected');
      });
    });
    expect(refused).toBe('ECONNREFUSED');
    server = await startRecordingServer(); // afterEach stops this one
  }, 10_000);
});
