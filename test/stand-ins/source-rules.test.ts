/**
 * Rules of the stand-ins read from the server's source in the third reading (issue 24): what
 * ReplSetConfig::validate refuses, the default config of an empty replSetInitiate, hello's member
 * lists, the localhost exception's few privileges, the keyfile checks, and mongos waiting for a
 * writable config server primary. Each test fails on a stand-in that accepts what the server refuses.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePorts, tempDir } from '../support/processes';
import { command, runStandIn, sleep, startStandIn, stop, type Started } from './helpers';

const FAST = { MONGO_BENCH_FAKE_ELECTION_MS: '150', MONGO_BENCH_FAKE_DRAIN_MS: '100' };

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('replSetInitiate: what ReplSetConfig::validate and MemberConfig refuse', () => {
  let dir: string;
  let port: number;
  let node: Started | undefined;
  beforeAll(async () => {
    dir = tempDir('validate');
    [port] = await freePorts(1);
    node = await startStandIn(
      'mongod',
      ['--port', String(port), '--dbpath', dir, '--replSet', 'rs9'],
      FAST,
    );
  });
  afterAll(async () => {
    await stop(node);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const me = () => `127.0.0.1:${port}`;
  /** `n` members, this node first; the others on ports nothing listens on (validate runs before the quorum check). */
  const members = (n: number, extra: (i: number) => Record<string, unknown> = () => ({})) =>
    Array.from({ length: n }, (_, i) => ({
      _id: i,
      host: i === 0 ? me() : `127.0.0.1:${(port % 60000) + 1000 + i}`,
      ...extra(i),
    }));
  const initiate = (config: Record<string, unknown>) =>
    command(port, { replSetInitiate: { _id: 'rs9', ...config } });

  test('more than 7 voting members', async () => {
    expect(await initiate({ members: members(8) })).toMatchObject({
      ok: 0,
      code: 93,
      errmsg:
        'Replica set configuration contains 8 voting members, but must be at least 1 and no more than 7',
    });
    // Members past the 7th with votes: 0, priority: 0 pass validation (they fail the quorum check here only because nothing listens).
    expect(
      await initiate({ members: members(9, (i) => (i >= 7 ? { votes: 0, priority: 0 } : {})) }),
    ).toMatchObject({ ok: 0, code: 74 });
    // --replicas 7 --arbiter: the arbiter must vote, so 8 voters unless a data member gives up its vote.
    expect(
      await initiate({ members: members(8, (i) => (i === 7 ? { arbiterOnly: true } : {})) }),
    ).toMatchObject({ ok: 0, errmsg: expect.stringMatching(/8 voting members/) });
  });

  test('more than 50 members, a non-voting member with a priority, an arbiter without a vote, no electable member', async () => {
    expect(
      await initiate({ members: members(51, (i) => (i >= 7 ? { votes: 0, priority: 0 } : {})) }),
    ).toMatchObject({
      ok: 0,
      errmsg: expect.stringMatching(
        /contains 51 members, but must have at least 1 and no more than {2}50/,
      ),
    });
    expect(
      await initiate({ members: members(2, (i) => (i === 1 ? { votes: 0 } : {})) }),
    ).toMatchObject({ ok: 0, errmsg: 'priority must be 0 when non-voting (votes:0)' });
    expect(
      await initiate({
        members: members(2, (i) => (i === 1 ? { arbiterOnly: true, votes: 0 } : {})),
      }),
    ).toMatchObject({ ok: 0, errmsg: 'Arbiter must vote (cannot have 0 votes)' });
    expect(await initiate({ members: members(1, () => ({ priority: 0 })) })).toMatchObject({
      ok: 0,
      errmsg: expect.stringMatching(/at least one non-arbiter member with priority > 0/),
    });
    expect(
      await initiate({ members: members(2, (i) => (i === 1 ? { hidden: true } : {})) }),
    ).toMatchObject({ ok: 0, errmsg: 'priority must be 0 when hidden=true' });
  });

  test('localhost mixed with other host names', async () => {
    const mixed = [
      { _id: 0, host: me() },
      { _id: 1, host: 'db1.example.net:27017' },
    ];
    expect(await initiate({ members: mixed })).toMatchObject({
      ok: 0,
      errmsg:
        'Either all host names in a replica set configuration must be localhost references, or none must be; found 1 out of 2',
    });
    expect((await command(port, { replSetGetStatus: 1 })).code).toBe(94);
  });
});

describe('an empty replSetInitiate uses this node and the --replSet seed hosts (repl_set_commands.cpp)', () => {
  let dir: string;
  let ports: number[];
  const nodes: Started[] = [];
  beforeAll(async () => {
    dir = tempDir('seeds');
    ports = await freePorts(2);
    for (const [i, p] of ports.entries()) {
      fs.mkdirSync(path.join(dir, String(i)));
      // The first names the second as a seed: rs1/<host>.
      const replSet = i === 0 ? `rs1/127.0.0.1:${ports[1]}` : 'rs1';
      nodes.push(
        await startStandIn(
          'mongod',
          ['--port', String(p), '--dbpath', path.join(dir, String(i)), '--replSet', replSet],
          FAST,
        ),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(nodes.map(stop));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the config has this node as member 0 and the seed as member 1', async () => {
    expect(await command(ports[0], { replSetInitiate: {} })).toMatchObject({ ok: 1 });
    const { config } = (await command(ports[0], { replSetGetConfig: 1 })) as {
      config: { members: { _id: number; host: string }[] };
    };
    expect(config.members).toEqual([
      { _id: 0, host: `127.0.0.1:${ports[0]}` },
      { _id: 1, host: `127.0.0.1:${ports[1]}` },
    ]);
    await until(
      async () => (await command(ports[1], { hello: 1 })).setName === 'rs1',
      'the seed to learn the config',
    );
  });
});

describe("hello's member lists (TopologyCoordinator::fillHelloForReplSet)", () => {
  let dir: string;
  let ports: number[];
  const nodes: Started[] = [];
  const host = (i: number) => `127.0.0.1:${ports[i]}`;
  beforeAll(async () => {
    dir = tempDir('hello-lists');
    ports = await freePorts(4);
    for (const [i, p] of ports.entries()) {
      fs.mkdirSync(path.join(dir, String(i)));
      nodes.push(
        await startStandIn(
          'mongod',
          ['--port', String(p), '--dbpath', path.join(dir, String(i)), '--replSet', 'rs2'],
          FAST,
        ),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(nodes.map(stop));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('electable members in hosts, priority 0 in passives, arbiters in arbiters, hidden ones nowhere', async () => {
    const members = [
      { _id: 0, host: host(0) },
      { _id: 1, host: host(1), priority: 0 },
      { _id: 2, host: host(2), arbiterOnly: true },
      { _id: 3, host: host(3), priority: 0, hidden: true },
    ];
    expect(await command(ports[0], { replSetInitiate: { _id: 'rs2', members } })).toMatchObject({
      ok: 1,
    });
    await until(
      async () => (await command(ports[3], { hello: 1 })).setName === 'rs2',
      'the members to learn the config',
    );
    const hello = await command(ports[0], { hello: 1 });
    expect(hello).toMatchObject({ hosts: [host(0)], passives: [host(1)], arbiters: [host(2)] });
    expect(JSON.stringify(hello)).not.toContain(host(3));
    expect(await command(ports[1], { hello: 1 })).toMatchObject({ passive: true });
    expect(await command(ports[2], { hello: 1 })).toMatchObject({ arbiterOnly: true });
    expect(await command(ports[3], { hello: 1 })).toMatchObject({ hidden: true, passive: true });
  });
});

describe('access control: the localhost exception grants only _getDefaultPrivileges', () => {
  let dir: string;
  let port: number;
  let node: Started | undefined;
  beforeAll(async () => {
    dir = tempDir('localhost-exception');
    [port] = await freePorts(1);
    const keyFile = path.join(dir, 'keyfile');
    fs.writeFileSync(keyFile, 'c2VjcmV0a2V5Zm9ydGVzdHM=\n', { mode: 0o600 });
    node = await startStandIn(
      'mongod',
      ['--port', String(port), '--dbpath', dir, '--replSet', 'rs3', '--keyFile', keyFile],
      FAST,
    );
  });
  afterAll(async () => {
    await stop(node);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('before the first user: hello, replSetGetStatus, replSetInitiate and createUser on admin only', async () => {
    const unauthorized = { ok: 0, code: 13, codeName: 'Unauthorized' };
    expect(await command(port, { find: 'c' }, 'test')).toMatchObject(unauthorized);
    expect(await command(port, { find: 'system.replset' }, 'local')).toMatchObject(unauthorized);
    expect(await command(port, { serverStatus: 1 })).toMatchObject(unauthorized);
    expect(await command(port, { listDatabases: 1 })).toMatchObject(unauthorized);
    expect(await command(port, { createUser: 'u', pwd: 'p', roles: [] }, 'test')).toMatchObject(
      unauthorized,
    );
    expect(await command(port, { hello: 1 })).toMatchObject({ ok: 1 });
    // Allowed, and answered by the replication code: not initiated yet.
    expect(await command(port, { replSetGetStatus: 1 })).toMatchObject({ ok: 0, code: 94 });
    expect(await command(port, { replSetInitiate: {} })).toMatchObject({ ok: 1 });
    await until(
      async () => (await command(port, { hello: 1 })).isWritablePrimary === true,
      'a writable primary',
    );
    expect(
      await command(port, { createUser: 'admin', pwd: 'secret', roles: ['root'] }),
    ).toMatchObject({ ok: 1 });
    // With a user the exception is closed: replSetGetStatus now needs a login.
    expect(await command(port, { replSetGetStatus: 1 })).toMatchObject(unauthorized);
  });
});

describe('--keyFile is read as security_file.cpp reads it', () => {
  let dir: string;
  let port: number;
  beforeAll(async () => {
    dir = tempDir('keyfile');
    [port] = await freePorts(1);
  });
  afterAll(() => {
    // A stand-in that wrongly accepted the keyfile may have forked a child: never leave it behind.
    const pidFile = path.join(dir, 'fork.pid');
    if (fs.existsSync(pidFile)) {
      try {
        process.kill(Number(fs.readFileSync(pidFile, 'utf8').trim()), 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = (keyFile: string, extra: string[] = []) =>
    runStandIn(
      'mongod',
      ['--port', String(port), '--dbpath', dir, '--replSet', 'rs4', '--keyFile', keyFile, ...extra],
      {},
      dir,
    );

  /** The structured log line with `id`, parsed from the stand-in's stdout (no --logpath: the log goes there). */
  const logLine = (stdout: string, id: number): Record<string, unknown> | undefined =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.id === id);

  test('a missing keyfile, one others may read: InvalidPath (30), logged as 20254, exit 1', () => {
    const missing = start(path.join(dir, 'nope'));
    expect(missing.code).toBe(1);
    expect(logLine(missing.stdout, 20254)).toMatchObject({
      s: 'I',
      msg: 'Read security file failed',
      attr: {
        error: {
          code: 30,
          codeName: 'InvalidPath',
          errmsg: `Error reading file ${path.join(dir, 'nope')}: No such file or directory`,
        },
      },
    });

    const open = path.join(dir, 'open');
    fs.writeFileSync(open, 'c2VjcmV0a2V5\n');
    fs.chmodSync(open, 0o640);
    const tooOpen = start(open);
    expect(tooOpen.code).toBe(1);
    expect(logLine(tooOpen.stdout, 20254)).toMatchObject({
      attr: {
        error: { code: 30, codeName: 'InvalidPath', errmsg: `permissions on ${open} are too open` },
      },
    });
  });

  // security_file.cpp (YAML version) stripString: UnsupportedFormat, with the key as YAML read it
  // (the old stand-in said InvalidPath and named the character alone, as the pre-4.2 byte loop did).
  test('a character outside base64 and whitespace, or an empty file: UnsupportedFormat (12), exit 1', () => {
    const bad = path.join(dir, 'bad');
    fs.writeFileSync(bad, 'not base64!\n', { mode: 0o600 });
    const r = start(bad);
    expect(r.code).toBe(1);
    expect(logLine(r.stdout, 20254)).toMatchObject({
      attr: {
        error: {
          code: 12,
          codeName: 'UnsupportedFormat',
          errmsg: `invalid char in key file ${bad}: not base64!`,
        },
      },
    });

    const empty = path.join(dir, 'empty');
    fs.writeFileSync(empty, '\n', { mode: 0o600 });
    const e = start(empty);
    expect(e.code).toBe(1);
    expect(logLine(e.stdout, 20254)).toMatchObject({
      attr: {
        error: { code: 12, errmsg: 'Only strings and sequences are supported for YAML key files' },
      },
    });
  });

  // security_key.cpp CredentialsGenerator::generate: kMinKeyLength 6, kMaxKeyLength 1024, whitespace
  // stripped first (the old stand-in accepted any length).
  test('a key shorter than 6 or longer than 1024 characters: 20255, exit 1; 1024 over wrapped lines starts', async () => {
    for (const [name, content] of [
      ['short', 'abcde\n'],
      ['long', `${'A'.repeat(1025)}\n`],
    ] as const) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, content, { mode: 0o600 });
      const r = start(file);
      expect(r.code).toBe(1);
      expect(logLine(r.stdout, 20255)).toMatchObject({
        s: 'E',
        msg: 'Security key size is out range',
        attr: {
          filename: file,
          size: content.trim().length,
          minimumLength: 6,
          maximumLength: 1024,
        },
      });
    }
    // 1024 characters over 16 wrapped lines (as openssl rand -base64 writes them): the line breaks do not count.
    const wrapped = path.join(dir, 'wrapped');
    fs.writeFileSync(wrapped, `${Array.from({ length: 16 }, () => 'B'.repeat(64)).join('\n')}\n`, {
      mode: 0o600,
    });
    const [p] = await freePorts(1);
    await stop(
      await startStandIn(
        'mongod',
        ['--port', String(p), '--dbpath', dir, '--replSet', 'rs5', '--keyFile', wrapped],
        FAST,
      ),
    );
  });

  test('with --fork the parent reports the child that failed', () => {
    const open = path.join(dir, 'open-fork');
    fs.writeFileSync(open, 'c2VjcmV0a2V5\n');
    fs.chmodSync(open, 0o644);
    const r = start(open, [
      '--fork',
      '--logpath',
      path.join(dir, 'fork.log'),
      '--pidfilepath',
      path.join(dir, 'fork.pid'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('ERROR: child process failed, exited with 1');
    expect(fs.readFileSync(path.join(dir, 'fork.log'), 'utf8')).toContain('are too open');
  });
});

describe('mongos waits for a writable config server primary (mongos_main.cpp initializeSharding)', () => {
  let dir: string;
  let ports: number[];
  let config: Started | undefined;
  let mongos: Promise<Started> | undefined;
  beforeAll(async () => {
    dir = tempDir('mongos-wait');
    ports = await freePorts(2);
    // A slow election: the config server answers as SECONDARY for 2 s after replSetInitiate.
    config = await startStandIn(
      'mongod',
      ['--port', String(ports[0]), '--dbpath', dir, '--replSet', 'cfg', '--configsvr'],
      {
        MONGO_BENCH_FAKE_ELECTION_MS: '2000',
        MONGO_BENCH_FAKE_DRAIN_MS: '300',
      },
    );
  });
  afterAll(async () => {
    await stop(await mongos?.catch(() => undefined));
    await stop(config);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('it does not listen while the only config server is SECONDARY, and does once it is a writable PRIMARY', async () => {
    expect(
      await command(ports[0], {
        replSetInitiate: {
          _id: 'cfg',
          configsvr: true,
          members: [{ _id: 0, host: `127.0.0.1:${ports[0]}` }],
        },
      }),
    ).toMatchObject({ ok: 1 });
    expect(await command(ports[0], { hello: 1 })).toMatchObject({ secondary: true });
    let listening = false;
    const started = Date.now();
    mongos = startStandIn('mongos', [
      '--port',
      String(ports[1]),
      '--configdb',
      `cfg/127.0.0.1:${ports[0]}`,
    ]);
    void mongos.then(
      () => (listening = true),
      () => undefined,
    );
    await sleep(1000);
    expect((await command(ports[0], { hello: 1 })).secondary).toBe(true);
    expect(listening).toBe(false);
    await mongos;
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(await command(ports[0], { hello: 1 })).toMatchObject({ isWritablePrimary: true });
  });
});

describe('a signalled shutdown steps down first (commands/shutdown.cpp stepDownForShutdown)', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('shutdown');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function replicaSet(
    name: string,
    count: number,
    env: NodeJS.ProcessEnv,
    extra: string[] = [],
  ): Promise<{ nodes: Started[]; ports: number[] }> {
    const ports = await freePorts(count);
    const nodes: Started[] = [];
    for (const [i, p] of ports.entries()) {
      const dbPath = path.join(dir, `${name}-${i}`);
      fs.mkdirSync(dbPath);
      nodes.push(
        await startStandIn(
          'mongod',
          ['--port', String(p), '--dbpath', dbPath, '--replSet', name, ...extra],
          { ...FAST, ...env },
        ),
      );
    }
    const members = ports.map((p, i) => ({ _id: i, host: `127.0.0.1:${p}` }));
    expect(await command(ports[0], { replSetInitiate: { _id: name, members } })).toMatchObject({
      ok: 1,
    });
    await until(
      async () => (await command(ports[0], { hello: 1 })).isWritablePrimary === true,
      'a writable primary',
    );
    return { nodes, ports };
  }

  test('5.0+: the primary of a one-member set skips the step-down and does not quiesce', async () => {
    const { nodes } = await replicaSet('solo', 1, {}, [
      '--setParameter',
      'shutdownTimeoutMillisForSignaledShutdown=3000',
    ]);
    const started = Date.now();
    nodes[0].child.kill('SIGTERM');
    expect(await nodes[0].exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(nodes[0].output()).not.toContain('Entering quiesce mode');
  });

  test('4.4: a primary whose secondaries are gone tries to step down for 10 s (no quiesce mode)', async () => {
    const { nodes } = await replicaSet('old', 2, { MONGO_BENCH_FAKE_VERSION: '4.4.29' });
    try {
      nodes[1].child.kill('SIGTERM');
      // A 4.4 secondary has nothing to wait for.
      expect(await nodes[1].exited).toBe(0);
      nodes[0].child.kill('SIGTERM');
      await until(
        async () =>
          nodes[0].output().includes('Stepping down the ReplicationCoordinator for shutdown'),
        'the step-down attempt',
        3000,
      );
      expect(nodes[0].output()).toMatch(/"waitTime":10000/);
      await sleep(500);
      expect(nodes[0].child.exitCode).toBeNull();
    } finally {
      await Promise.all(nodes.map(stop));
    }
  });
});
