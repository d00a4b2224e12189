/**
 * Start-up of the stand-ins as the real binaries: command line refusals, --fork (detached child
 * from /, parent waits for readiness, relative pid file fails), --dbpath, port in use, version.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { storeOptions, StartupError } from '../support/fake-bin/options';
import { parseServerVersion } from '../support/fake-bin/version';
import { freePorts, tempDir } from '../support/processes';
import { command, runStandIn, startStandIn, stop, type Started } from './helpers';

const v = (text: string) => parseServerVersion(text);

function refusal(fn: () => unknown): { message: string; exitCode: number } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StartupError);
    return { message: (e as StartupError).message, exitCode: (e as StartupError).exitCode };
  }
  throw new Error('expected a StartupError');
}

describe('command line (pure)', () => {
  test('an unknown option is refused with boost::program_options words and exit 2', () => {
    expect(refusal(() => storeOptions('mongod', v('7.0.14'), ['--foo']))).toEqual({
      message: "Error parsing command line: unrecognised option '--foo'",
      exitCode: 2,
    });
    // mongos has no storage options.
    expect(
      refusal(() =>
        storeOptions('mongos', v('7.0.14'), ['--configdb', 'cfg/h:1', '--dbpath', '/x']),
      ).message,
    ).toBe("Error parsing command line: unrecognised option '--dbpath'");
  });

  test('--nojournal exists until 6.0 and is refused from 7.0 (removed in 6.1)', () => {
    expect(storeOptions('mongod', v('6.0.20'), ['--nojournal']).kind).toBe('mongod');
    expect(refusal(() => storeOptions('mongod', v('7.0.14'), ['--nojournal'])).message).toBe(
      "Error parsing command line: unrecognised option '--nojournal'",
    );
  });

  test('--fork needs --logpath; --configsvr needs --replSet; unknown --setParameter refused', () => {
    expect(refusal(() => storeOptions('mongod', v('7.0.14'), ['--fork'])).message).toBe(
      'BadValue: --fork has to be used with --logpath or --syslog',
    );
    expect(refusal(() => storeOptions('mongod', v('7.0.14'), ['--configsvr'])).message).toMatch(
      /Cannot start a configsvr as a standalone server/,
    );
    expect(
      refusal(() => storeOptions('mongod', v('7.0.14'), ['--setParameter', 'noSuchParam=1']))
        .message,
    ).toBe('Illegal --setParameter parameter: "noSuchParam"');
    // The mongos quiesce parameter is not a mongod one.
    expect(
      refusal(() =>
        storeOptions('mongod', v('7.0.14'), [
          '--setParameter',
          'mongosShutdownTimeoutMillisForSignaledShutdown=1',
        ]),
      ).exitCode,
    ).toBe(2);
  });

  test('the quiesce parameters exist from 4.5: a 4.4 mongod and mongos refuse them, 5.0 takes them', () => {
    expect(
      refusal(() =>
        storeOptions('mongod', v('4.4.29'), [
          '--setParameter',
          'shutdownTimeoutMillisForSignaledShutdown=1000',
        ]),
      ).message,
    ).toBe('Illegal --setParameter parameter: "shutdownTimeoutMillisForSignaledShutdown"');
    expect(
      refusal(() =>
        storeOptions('mongos', v('4.4.29'), [
          '--configdb',
          'cfg/127.0.0.1:1',
          '--setParameter',
          'mongosShutdownTimeoutMillisForSignaledShutdown=1000',
        ]),
      ).exitCode,
    ).toBe(2);
    expect(
      storeOptions('mongod', v('5.0.30'), [
        '--setParameter',
        'shutdownTimeoutMillisForSignaledShutdown=1000',
      ]).setParameters.get('shutdownTimeoutMillisForSignaledShutdown'),
    ).toBe('1000');
  });

  test('dbpath, logpath and keyFile are made absolute before the fork; pidfilepath is kept as given', () => {
    const o = storeOptions(
      'mongod',
      v('7.0.14'),
      [
        '--dbpath',
        'd',
        '--logpath',
        'd/log',
        '--keyFile',
        'k',
        '--pidfilepath',
        'd/p.pid',
        '--fork',
      ],
      '/work/here',
    );
    expect([o.dbPath, o.logPath, o.keyFile, o.pidFilePath]).toEqual([
      '/work/here/d',
      '/work/here/d/log',
      '/work/here/k',
      'd/p.pid',
    ]);
  });

  test('mongos needs a replica-set --configdb', () => {
    expect(refusal(() => storeOptions('mongos', v('7.0.14'), [])).message).toBe(
      'BadValue: error: no args for --configdb',
    );
    expect(
      refusal(() => storeOptions('mongos', v('7.0.14'), ['--configdb', '127.0.0.1:1'])).message,
    ).toMatch(/only replica set connection string/);
  });
});

describe('the binaries', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('startup');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('an unknown option: stderr names it, then the --help hint; exit 2', () => {
    const r = runStandIn('mongod', ['--foo']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "Error parsing command line: unrecognised option '--foo'\ntry 'mongod --help' for more information\n",
    );
  });

  test('--version prints the version chosen by MONGO_BENCH_FAKE_VERSION', () => {
    expect(runStandIn('mongod', ['--version'], { MONGO_BENCH_FAKE_VERSION: '5.0.31' }).stdout).toBe(
      'db version v5.0.31\n',
    );
    expect(runStandIn('mongos', ['--version'], { MONGO_BENCH_FAKE_VERSION: '8.0.4' }).stdout).toBe(
      'mongos version v8.0.4\n',
    );
  });

  test('--fork with a relative --pidfilepath: the child (running from /) cannot write it; the parent reports its exit', async () => {
    const [port] = await freePorts(1);
    fs.mkdirSync(path.join(dir, 'a'));
    const r = runStandIn(
      'mongod',
      [
        '--port',
        String(port),
        '--dbpath',
        'a',
        '--logpath',
        'a/mongod.log',
        '--fork',
        '--pidfilepath',
        'a/mongod.pid',
      ],
      {},
      dir,
    );
    expect(r.stdout).toMatch(
      /^about to fork child process, waiting until server is ready for connections\.\nforked process: \d+\n/,
    );
    expect(r.stdout).toContain('ERROR: child process failed, exited with 1\n');
    expect(r.code).toBe(1);
    expect(fs.readFileSync(path.join(dir, 'a/mongod.log'), 'utf8')).toContain(
      'Cannot write pid file',
    );
  });

  test('--fork with absolute paths: the parent returns once the child listens; the child runs from / and outlives it', async () => {
    const [port] = await freePorts(1);
    fs.mkdirSync(path.join(dir, 'a'));
    const pidFile = path.join(dir, 'a/mongod.pid');
    const r = runStandIn(
      'mongod',
      [
        '--port',
        String(port),
        '--dbpath',
        'a',
        '--logpath',
        'a/mongod.log',
        '--fork',
        '--pidfilepath',
        pidFile,
      ],
      {},
      dir,
    );
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    try {
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(
        `forked process: ${pid}\nchild process started successfully, parent exiting\n`,
      );
      expect(fs.readlinkSync(`/proc/${pid}/cwd`)).toBe('/');
      expect((await command(port, { ping: 1 })).ok).toBe(1);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  test('--fork: a missing --dbpath makes the child exit 100, reported by the parent', async () => {
    const [port] = await freePorts(1);
    const r = runStandIn('mongod', [
      '--port',
      String(port),
      '--dbpath',
      path.join(dir, 'missing'),
      '--logpath',
      path.join(dir, 'log'),
      '--fork',
    ]);
    expect(r.code).toBe(100);
    expect(r.stdout).toContain('ERROR: child process failed, exited with 100');
  });

  test('a port in use: exit 48, before the lock file; a locked dbpath on a free port: exit 100', async () => {
    const [port, other] = await freePorts(2);
    let first: Started | undefined;
    try {
      first = await startStandIn('mongod', ['--port', String(port), '--dbpath', dir]);
      expect(runStandIn('mongod', ['--port', String(port), '--dbpath', dir]).code).toBe(48);
      const locked = runStandIn('mongod', ['--port', String(other), '--dbpath', dir]);
      expect(locked.code).toBe(100);
      expect(locked.stdout + locked.stderr).toContain('DBPathInUse: Unable to lock the lock file');
    } finally {
      await stop(first);
    }
  });

  test('mongos --fork: the parent waits (no limit) until the config servers are an initiated replica set', async () => {
    const [cfgPort, mongosPort] = await freePorts(2);
    let cfg: Started | undefined;
    try {
      cfg = await startStandIn(
        'mongod',
        ['--port', String(cfgPort), '--dbpath', dir, '--replSet', 'cfg', '--configsvr'],
        { MONGO_BENCH_FAKE_ELECTION_MS: '100', MONGO_BENCH_FAKE_DRAIN_MS: '50' },
      );
      const args = [
        '--port',
        String(mongosPort),
        '--configdb',
        `cfg/127.0.0.1:${cfgPort}`,
        '--logpath',
        path.join(dir, 'mongos.log'),
        '--fork',
        '--pidfilepath',
        path.join(dir, 'mongos.pid'),
      ];
      // Not initiated: the parent is still waiting after 3 s.
      expect(runStandIn('mongos', args, {}, dir, 3_000).timedOut).toBe(true);
      for (const pid of fs.existsSync(path.join(dir, 'mongos.pid'))
        ? [Number(fs.readFileSync(path.join(dir, 'mongos.pid'), 'utf8'))]
        : [])
        process.kill(pid, 'SIGKILL');
      expect(
        (
          await command(cfgPort, {
            replSetInitiate: {
              _id: 'cfg',
              configsvr: true,
              members: [{ _id: 0, host: `127.0.0.1:${cfgPort}` }],
            },
          })
        ).ok,
      ).toBe(1);
      const r = runStandIn('mongos', args, {}, dir);
      const pid = Number(fs.readFileSync(path.join(dir, 'mongos.pid'), 'utf8'));
      try {
        expect(r.code).toBe(0);
        expect((await command(mongosPort, { hello: 1 })).msg).toBe('isdbgrid');
      } finally {
        process.kill(pid, 'SIGKILL');
      }
    } finally {
      await stop(cfg);
    }
  });
});
