/**
 * Replica sets on the mongod stand-in: replSetInitiate validation, election then drain mode then a
 * writable primary, secondaries that learn the config, NotWritablePrimary, the driver's replicaSet=
 * URI, replSetStepDown, hello per version, quiesce on SIGTERM.
 */
import * as fs from 'node:fs';
import { MongoClient } from 'mongodb';
import { freePorts, tempDir } from '../support/processes';
import { command, sleep, startStandIn, stop, type Started } from './helpers';

const TIMING = { MONGO_BENCH_FAKE_ELECTION_MS: '600', MONGO_BENCH_FAKE_DRAIN_MS: '600' };

describe('replica set of three stand-ins (7.0)', () => {
  let dir: string;
  let ports: number[];
  let nodes: Started[] = [];
  const host = (i: number) => `127.0.0.1:${ports[i]}`;

  beforeAll(async () => {
    dir = tempDir('repl');
    ports = await freePorts(3);
    nodes = await Promise.all(
      ports.map((p, i) => {
        fs.mkdirSync(`${dir}/${i}`);
        return startStandIn(
          'mongod',
          [
            '--port',
            String(p),
            '--dbpath',
            `${dir}/${i}`,
            '--replSet',
            'rs0',
            '--setParameter',
            'shutdownTimeoutMillisForSignaledShutdown=700',
          ],
          TIMING,
        );
      }),
    );
  });
  afterAll(async () => {
    await Promise.all(nodes.map(stop));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('replSetInitiate refuses invalid configs as repl_set_config.cpp does', async () => {
    const members = (ids: number[], hosts: string[]) =>
      ids.map((_id, i) => ({ _id, host: hosts[i] }));
    const bad = async (config: Record<string, unknown>) =>
      command(ports[0], { replSetInitiate: config });
    expect(await bad({ _id: 'other', members: members([0], [host(0)]) })).toMatchObject({
      ok: 0,
      code: 93,
      errmsg: expect.stringMatching(/name other, but command line reports rs0/),
    });
    expect(await bad({ _id: 'rs0', members: members([0, 0], [host(0), host(1)]) })).toMatchObject({
      ok: 0,
      code: 93,
      errmsg: expect.stringMatching(/same _id field/),
    });
    expect(await bad({ _id: 'rs0', members: members([0, 1], [host(1), host(2)]) })).toMatchObject({
      ok: 0,
      code: 74,
      errmsg: expect.stringMatching(/maps to this node/),
    });
    expect(
      await bad({ _id: 'rs0', configsvr: true, members: members([0], [host(0)]) }),
    ).toMatchObject({ ok: 0, code: 93, errmsg: expect.stringMatching(/--configsvr flag/) });
    expect(
      await bad({ _id: 'rs0', members: members([0, 1], [host(0), '127.0.0.1:1']) }),
    ).toMatchObject({ ok: 0, code: 74, errmsg: expect.stringMatching(/quorum check failed/) });
    // Nothing was initiated by the refusals.
    expect((await command(ports[0], { replSetGetStatus: 1 })).code).toBe(94);
  });

  test('initiate: SECONDARY, then PRIMARY in drain mode (not writable), then writable; others SECONDARY', async () => {
    const config = { _id: 'rs0', members: [0, 1, 2].map((i) => ({ _id: i, host: host(i) })) };
    expect((await command(ports[0], { replSetInitiate: config })).ok).toBe(1);
    expect(await command(ports[0], { replSetInitiate: config })).toMatchObject({ ok: 0, code: 23 });
    const first = await command(ports[0], { hello: 1 });
    expect(first).toMatchObject({ setName: 'rs0', isWritablePrimary: false, secondary: true });
    // Writes on a node that is not a writable primary: NotWritablePrimary (10107).
    expect(await command(ports[0], { createUser: 'u', pwd: 'p', roles: [] })).toMatchObject({
      ok: 0,
      code: 10107,
      codeName: 'NotWritablePrimary',
    });
    let drain: Record<string, unknown> | undefined;
    for (let i = 0; i < 40 && !drain; i++) {
      const h = await command(ports[0], { hello: 1 });
      if (h.primary === host(0)) drain = h;
      else await sleep(50);
    }
    expect(drain).toMatchObject({ primary: host(0), isWritablePrimary: false, secondary: false });
    // Then writable, once the 600 ms drain is over: asked until it says so (within 8 s), where a fixed
    // 900 ms left a loaded machine 300 ms for the stand-in's drain timer.
    let writable: Record<string, unknown> = {};
    for (let i = 0; i < 160 && writable.isWritablePrimary !== true; i++) {
      writable = await command(ports[0], { hello: 1 });
      if (writable.isWritablePrimary !== true) await sleep(50);
    }
    expect(writable).toMatchObject({ isWritablePrimary: true, primary: host(0) });
    const secondary = await command(ports[1], { hello: 1 });
    expect(secondary).toMatchObject({
      setName: 'rs0',
      secondary: true,
      isWritablePrimary: false,
      primary: host(0),
      hosts: [host(0), host(1), host(2)],
    });
    expect(await command(ports[1], { insert: 'c', documents: [{ a: 1 }] }, 'test')).toMatchObject({
      ok: 0,
      code: 10107,
    });
    const status = await command(ports[1], { replSetGetStatus: 1 });
    expect((status.members as { stateStr: string }[]).map((m) => m.stateStr)).toEqual([
      'PRIMARY',
      'SECONDARY',
      'SECONDARY',
    ]);
  });

  test('the Node driver connects with replicaSet= and writes to the primary', async () => {
    const client = new MongoClient(`mongodb://${host(1)},${host(2)}/?replicaSet=rs0`, {
      serverSelectionTimeoutMS: 5000,
    });
    try {
      const reply = await client.db('test').collection('c').insertOne({ a: 1 });
      expect(reply.acknowledged).toBe(true);
    } finally {
      await client.close();
    }
  });

  // repl_set_commands.cpp CmdReplSetStepDown::run and ReplicationCoordinatorImpl::stepDown (the old
  // stand-in had no replSetStepDown: any call answered ok, a 5 s one too, and nothing changed).
  test('replSetStepDown: the refusals, then ok: 1 on the same connection and an electable member takes over', async () => {
    expect(await command(ports[1], { replSetStepDown: 60 })).toMatchObject({
      ok: 0,
      code: 10107,
      errmsg: "not primary so can't step down",
    });
    expect(await command(ports[0], { replSetStepDown: 5 })).toMatchObject({
      ok: 0,
      code: 2,
      errmsg: 'stepdown period must be longer than secondaryCatchUpPeriodSecs',
    });
    expect(await command(ports[0], { replSetStepDown: -1 })).toMatchObject({
      ok: 0,
      code: 2,
      errmsg: 'stepdown period must be a positive integer',
    });
    expect(
      await command(ports[0], { replSetStepDown: 20, secondaryCatchUpPeriodSecs: -1 }),
    ).toMatchObject({
      ok: 0,
      code: 2,
      errmsg: 'secondaryCatchUpPeriodSecs period must be a positive or absent',
    });
    expect(await command(ports[0], { hello: 1 })).toMatchObject({
      isWritablePrimary: true,
      primary: host(0),
    });
    // 5 s with a catch-up period of 5 s or less is taken.
    expect(await command(ports[0], { replSetStepDown: 5, secondaryCatchUpPeriodSecs: 2 })).toEqual({
      ok: 1,
    });
    expect(await command(ports[0], { hello: 1 })).toMatchObject({
      isWritablePrimary: false,
      secondary: true,
      primary: host(1),
    });
    let next: Record<string, unknown> = {};
    for (let i = 0; i < 60 && next.isWritablePrimary !== true; i++) {
      next = await command(ports[1], { hello: 1 });
      if (next.isWritablePrimary !== true) await sleep(50);
    }
    expect(next).toMatchObject({ isWritablePrimary: true, primary: host(1) });
  });

  test('SIGTERM (5.0+): a member quiesces for shutdownTimeoutMillisForSignaledShutdown, hello fails meanwhile, then exit 0', async () => {
    // Connected before: in quiesce mode every hello fails, so a new connection's handshake would too.
    const client = new MongoClient(`mongodb://${host(2)}/?directConnection=true`, {
      serverSelectionTimeoutMS: 3000,
    });
    await client.connect();
    const started = Date.now();
    nodes[2].child.kill('SIGTERM');
    // Asked once it says it quiesces (its log line), not after a fixed 200 ms that a loaded machine could
    // place before the signal was handled or after the 700 ms of quiesce.
    for (let i = 0; i < 60 && !nodes[2].output().includes('Entering quiesce mode'); i++)
      await sleep(50);
    expect(nodes[2].output()).toContain('Entering quiesce mode');
    const during = await client
      .db('admin')
      .command({ hello: 1 })
      .catch((e: { code?: number; codeName?: string }) => ({
        ok: 0,
        code: e.code,
        codeName: e.codeName,
      }));
    await client.close();
    expect(during).toMatchObject({ ok: 0, code: 91, codeName: 'ShutdownInProgress' });
    expect(await nodes[2].exited).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(650);
  });
});

describe('version-dependent answers', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('versions');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test.each([
    ['4.4.1', 9, false],
    ['4.4.29', 9, true],
    ['5.0.31', 13, true],
    ['6.0.20', 17, true],
    ['7.0.14', 21, true],
    ['8.0.4', 25, true],
  ])(
    '%s: maxWireVersion %d, hello %s; buildInfo reports the version',
    async (version, wire, hasHello) => {
      const [port] = await freePorts(1);
      let node: Started | undefined;
      try {
        node = await startStandIn('mongod', ['--port', String(port), '--dbpath', dir], {
          MONGO_BENCH_FAKE_VERSION: version,
        });
        expect(await command(port, { isMaster: 1 })).toMatchObject({
          ismaster: true,
          maxWireVersion: wire,
        });
        const hello = await command(port, { hello: 1 });
        expect(hello.ok === 1).toBe(hasHello);
        if (!hasHello) expect(hello).toMatchObject({ code: 59, codeName: 'CommandNotFound' });
        expect((await command(port, { buildInfo: 1 })).version).toBe(version);
      } finally {
        await stop(node);
      }
    },
  );

  test('SIGTERM on 4.4 (no quiesce mode) and on a standalone: exit 0 at once', async () => {
    const ports = await freePorts(2);
    // Two processes, two data directories: a second mongod on a locked dbpath exits 100 (lock-file.ts).
    const [memberDir, standaloneDir] = ['member', 'standalone'].map((name) => {
      fs.mkdirSync(`${dir}/${name}`);
      return `${dir}/${name}`;
    });
    const member = await startStandIn(
      'mongod',
      ['--port', String(ports[0]), '--dbpath', memberDir, '--replSet', 'rs'],
      { MONGO_BENCH_FAKE_VERSION: '4.4.29' },
    );
    const standalone = await startStandIn('mongod', [
      '--port',
      String(ports[1]),
      '--dbpath',
      standaloneDir,
    ]);
    expect((await command(ports[0], { replSetInitiate: {} })).ok).toBe(1);
    const started = Date.now();
    member.child.kill('SIGTERM');
    standalone.child.kill('SIGTERM');
    expect(await Promise.all([member.exited, standalone.exited])).toEqual([0, 0]);
    expect(Date.now() - started).toBeLessThan(3000); // not the 15 s default quiesce
  });
});
