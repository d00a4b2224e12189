/**
 * The wire client (lib/wire, `--driver wire`) on its own: SCRAM on the RFC's and the drivers'
 * specification's vectors; the handshake and authentication against the SCRAM-SHA-256 stand-in mongod;
 * a replica set's primary found from its seed list; waiting up to the server-selection timeout for a
 * server (and using one that comes up meanwhile); the errors the driver throws for a failed command, a
 * write concern error, a lost server and no server; TLS with the driver path's options, against a node:tls
 * front of the null server (no other server here offers TLS).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { MongoServerError, MongoWriteConcernError } from 'mongodb';
import { startNullServer, NullServer } from '../../lib/calibrate/null-server';
import { startEmbedded } from '../../lib/launcher/embedded';
import { isLostServerError } from '../../lib/workload/engine/step-tally';
import { runParallelStep } from '../../lib/workload/engine/parallel-step';
import { unplannedWrites } from '../../lib/workload/engine/write-handles';
import { WireClient } from '../../lib/wire/client';
import { ScramConversation } from '../../lib/wire/scram';
import { startRecordingServer } from '../support/recording-server';
import { FAKE_BIN, freePorts, tempDir } from '../support/processes';

/** The TLS test makes its certificate with the openssl command (on every machine of this kind). */
const itWithOpenssl = spawnSync('openssl', ['version']).status === 0 ? it : it.skip;

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('SCRAM (lib/wire/scram.ts)', () => {
  it('SCRAM-SHA-256: the RFC 7677 section 3 exchange', () => {
    const c = new ScramConversation('SCRAM-SHA-256', 'user', 'pencil', 'rOprNGfwEbeRWgbNEkqO');
    expect(c.clientFirst()).toBe('n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
    expect(
      c.clientFinal(
        'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
      ),
    ).toBe(
      'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
    );
    expect(() =>
      c.checkServerFinal('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4='),
    ).not.toThrow();
    expect(() => c.checkServerFinal('v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')).toThrow(
      /does not match/,
    );
  });

  it("SCRAM-SHA-1: the drivers' authentication specification's exchange (MongoDB's hashed password)", () => {
    const c = new ScramConversation('SCRAM-SHA-1', 'user', 'pencil', 'fyko+d2lbbFgONRv9qkxdawL');
    expect(
      c.clientFinal(
        'r=fyko+d2lbbFgONRv9qkxdawLHo+Vgk7qvUOKUwuWLIWg4l/9SraGMHEE,s=rQ9ZY3MntBeuP3E1TDVC4w==,i=10000',
      ),
    ).toBe(
      'c=biws,r=fyko+d2lbbFgONRv9qkxdawLHo+Vgk7qvUOKUwuWLIWg4l/9SraGMHEE,p=MC2T8BvbmWRckDw8oWl5IVghwCY=',
    );
    expect(() => c.checkServerFinal('v=UMWeI25JD1yNYZRMpZ4VHvhZ9e0=')).not.toThrow();
  });

  it('refuses a server nonce that does not extend its own, and too few iterations', () => {
    const c = new ScramConversation('SCRAM-SHA-256', 'user', 'pencil', 'abc');
    expect(() => c.clientFinal('r=xyz,s=AAAA,i=4096')).toThrow(/nonce/);
    expect(() => c.clientFinal('r=abcdef,s=AAAA,i=1000')).toThrow(/iteration/);
  });
});

describe('the wire client against test servers', () => {
  let server: NullServer;
  beforeAll(async () => {
    server = await startNullServer({});
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('sends each command with $db to the selected server and answers as raw: true does', async () => {
    const recording = await startRecordingServer({
      handlers: {
        insert: () => ({
          n: 1,
          ok: 1,
          writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' },
        }),
        fail: () => ({
          ok: 0,
          code: 59,
          codeName: 'CommandNotFound',
          errmsg: 'no such command',
          errorLabels: ['X'],
        }),
      },
    });
    const client = new WireClient(recording.uri, { serverSelectionTimeoutMS: 2000, maxClients: 2 });
    try {
      await client.connect();
      const reply = await client.db('shop').command({ find: 'docs', filter: { a: 1 } });
      expect(reply.ok).toBe(1);
      // Nested documents stay bytes, as the driver's raw replies.
      expect(reply.cursor).toBeInstanceOf(Uint8Array);
      const sent = recording.userCommands().find((c) => c.name === 'find')!;
      expect(sent.db).toBe('shop');
      expect(sent.raw).toMatchObject({ find: 'docs', filter: { a: 1 }, $db: 'shop' });
      // No session: the wire client never sends lsid.
      expect(sent.raw.lsid).toBeUndefined();

      const failed = await rejection(client.db('shop').command({ fail: 1 }));
      expect(failed).toBeInstanceOf(MongoServerError);
      expect(failed).toMatchObject({
        name: 'MongoServerError',
        code: 59,
        codeName: 'CommandNotFound',
      });
      expect((failed as MongoServerError).hasErrorLabel('X')).toBe(true);
      const wce = await rejection(client.db('shop').command({ insert: 'docs', documents: [{}] }));
      expect(wce).toBeInstanceOf(MongoWriteConcernError);
      expect(wce).toMatchObject({ name: 'MongoWriteConcernError', code: 64 });
    } finally {
      await client.close();
      await recording.stop();
    }
  });

  it('mongos routers: every router of the seed list is used, in turn', async () => {
    const routers = await Promise.all(
      [0, 1].map(() => startRecordingServer({ helloFields: { msg: 'isdbgrid' } })),
    );
    const uri = `mongodb://${routers.map((r) => `127.0.0.1:${r.port}`).join(',')}/`;
    const client = new WireClient(uri, { serverSelectionTimeoutMS: 2000, maxClients: 1 });
    try {
      for (let i = 0; i < 6; i++) await client.db('x').command({ ping: 1 });
      expect(routers.map((r) => r.userCommands().filter((c) => c.name === 'ping').length)).toEqual([
        3, 3,
      ]);
    } finally {
      await client.close();
      await Promise.all(routers.map((r) => r.stop()));
    }
  });

  it('a "not primary" reply fails its op and sends the client back to server selection (no retry)', async () => {
    let refused = 0;
    const recording = await startRecordingServer({
      handlers: {
        insert: () =>
          refused++ === 0
            ? { ok: 0, code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' }
            : { n: 1 },
      },
    });
    const client = new WireClient(recording.uri, { serverSelectionTimeoutMS: 2000, maxClients: 1 });
    try {
      await client.connect();
      expect(client.probes).toBe(1);
      const err = await rejection(client.db('x').command({ insert: 'c', documents: [{}] }));
      expect(err).toMatchObject({ name: 'MongoServerError', code: 10107 });
      expect((await client.db('x').command({ insert: 'c', documents: [{}] })).n).toBe(1);
      // Probed again; the failed insert was sent once.
      expect(client.probes).toBe(2);
      expect(recording.userCommands().filter((c) => c.name === 'insert')).toHaveLength(2);
    } finally {
      await client.close();
      await recording.stop();
    }
  });

  it('reads a cursor to its end on the same connection pool, counting documents', async () => {
    const client = new WireClient(server.uri, { serverSelectionTimeoutMS: 2000, maxClients: 1 });
    try {
      const docs = await client.db('x').runCursorCommand({ find: 'c', filter: {} }).toArray();
      expect(docs).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('waits up to the server-selection timeout for a server, then fails as the driver does', async () => {
    const [port] = await freePorts(1);
    const client = new WireClient(`mongodb://127.0.0.1:${port}/`, {
      serverSelectionTimeoutMS: 400,
      maxClients: 1,
    });
    const started = performance.now();
    const err = await rejection(client.db('x').command({ ping: 1 }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(err.name).toBe('MongoServerSelectionError');
    expect(isLostServerError(err)).toBe(true);
    await client.close();

    // A server that comes up within the timeout is used: the op does not fail on the first refusal.
    const later = new WireClient(`mongodb://127.0.0.1:${port}/`, {
      serverSelectionTimeoutMS: 5000,
      maxClients: 1,
    });
    const op = later.db('x').command({ ping: 1 });
    const up = await startNullServer({ port });
    try {
      expect((await op).ok).toBe(1);
    } finally {
      await later.close();
      await up.stop();
    }
  });

  it('a server lost mid-op fails the op with MongoNetworkError (the engine reads a lost server)', async () => {
    const own = await startNullServer({});
    const client = new WireClient(own.uri, { serverSelectionTimeoutMS: 300, maxClients: 1 });
    try {
      await client.connect();
      own.stall(60_000);
      const op = client.db('x').command({ ping: 1 });
      await own.stop();
      const err = await rejection(op);
      expect(err.name).toBe('MongoNetworkError');
      expect(isLostServerError(err)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('the engine through the wire client: a server gone mid-step fails the step with lostServer, errors counted', async () => {
    const own = await startNullServer({});
    let stopped: Promise<void> | undefined;
    const m = await runParallelStep(
      {
        uri: own.uri,
        driver: 'wire',
        serverSelectionTimeoutMS: 500,
        workload: {
          ops: [{ op: 'findOne', ns: 'gone.docs', query: { _id: 1 } }],
          ns: 'gone.docs',
          writes: unplannedWrites('test/wire/wire-client.test.ts'),
        },
        plan: { clients: 2, seconds: 3, warmupSeconds: 0, randomSeed: 1 },
        workers: 1,
      },
      {
        onTick: (t) => {
          if (!stopped && t.phase === 'measure' && t.measured.reads > 0) stopped = own.stop();
        },
      },
    );
    await stopped;
    expect(stopped).toBeDefined();
    expect(m.lostServer).toMatch(/MongoNetworkError|MongoServerSelectionError/);
    expect(m.reads).toBeGreaterThan(0);
    expect(m.errors).toBeGreaterThan(0);
  }, 30_000);

  itWithOpenssl(
    'TLS: connects with the CA file, and refuses an untrusted certificate unless told to allow it',
    async () => {
      const dir = tempDir('wire-tls');
      const key = path.join(dir, 'server.pem');
      const cert = path.join(dir, 'ca.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=DNS:localhost,IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      // A TLS front of the null server: the same protocol over node:tls.
      const front = tls.createServer(
        { key: fs.readFileSync(key), cert: fs.readFileSync(cert) },
        (s) => {
          const back = net.connect(server.port, '127.0.0.1');
          s.pipe(back).pipe(s);
          s.on('error', () => back.destroy());
          back.on('error', () => s.destroy());
        },
      );
      await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
      const uri = `mongodb://localhost:${(front.address() as net.AddressInfo).port}/?directConnection=true`;
      try {
        const trusted = new WireClient(uri, {
          serverSelectionTimeoutMS: 2000,
          maxClients: 1,
          clientOptions: { tls: true, tlsCAFile: cert },
        });
        expect((await trusted.db('x').command({ ping: 1 })).ok).toBe(1);
        await trusted.close();

        const untrusted = new WireClient(uri, {
          serverSelectionTimeoutMS: 300,
          maxClients: 1,
          clientOptions: { tls: true },
        });
        const err = await rejection(untrusted.db('x').command({ ping: 1 }));
        expect(err.name).toBe('MongoServerSelectionError');
        expect(err.message).toMatch(/certificate/);
        await untrusted.close();

        const allowed = new WireClient(uri, {
          serverSelectionTimeoutMS: 2000,
          maxClients: 1,
          clientOptions: { tls: true, tlsAllowInvalidCertificates: true },
        });
        expect((await allowed.db('x').command({ ping: 1 })).ok).toBe(1);
        await allowed.close();
      } finally {
        await new Promise((resolve) => front.close(resolve));
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('the wire client against the stand-in mongod (SCRAM-SHA-256, replica sets)', () => {
  const password = 'W1re:p@ss/word';

  it("authenticates with SCRAM-SHA-256 on every connection; a wrong password is the server's error", async () => {
    const embedded = await startEmbedded({
      topology: 'standalone',
      binary: path.join(FAKE_BIN, 'mongod'),
      auth: { username: 'benchroot', password },
    });
    try {
      const client = new WireClient(embedded.uri, {
        serverSelectionTimeoutMS: 3000,
        maxClients: 3,
        clientOptions: { auth: { username: 'benchroot', password }, authSource: 'admin' },
      });
      await client.warm(3);
      const reply = await client.db('admin').command({ connectionStatus: 1 });
      expect(reply.ok).toBe(1);
      // A command that needs authentication succeeds on each of the three connections.
      await Promise.all(
        [1, 2, 3].map(() => client.db('shop').command({ insert: 'docs', documents: [{ a: 1 }] })),
      );
      await client.close();

      const wrong = new WireClient(embedded.uri, {
        serverSelectionTimeoutMS: 3000,
        maxClients: 1,
        clientOptions: { auth: { username: 'benchroot', password: 'nope' }, authSource: 'admin' },
      });
      const err = await rejection(wrong.db('shop').command({ find: 'docs', filter: {} }));
      expect(err).toBeInstanceOf(MongoServerError);
      expect((err as MongoServerError).code).toBe(18);
      await wrong.close();
    } finally {
      await embedded.stop();
    }
  }, 60_000);

  it("a replica set: ops go to the primary, found from the seed list through a secondary's hello", async () => {
    const embedded = await startEmbedded({
      topology: 'replset',
      replicas: 3,
      binary: path.join(FAKE_BIN, 'mongod'),
    });
    try {
      const client = new WireClient(embedded.uri, {
        serverSelectionTimeoutMS: 5000,
        maxClients: 1,
      });
      const hello = await client.db('admin').command({ hello: 1 });
      expect(hello.isWritablePrimary).toBe(true);
      expect((await client.db('shop').command({ insert: 'docs', documents: [{ a: 1 }] })).n).toBe(
        1,
      );
      await client.close();
    } finally {
      await embedded.stop();
    }
  }, 60_000);
});
