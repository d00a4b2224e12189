/**
 * The launcher with access control and its loopback rule, against the stand-in mongod/mongos
 * (real processes on real ports; they record their argv and every command they receive).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../../lib/config/errors';
import { resolveBinaries } from '../../lib/launcher/binaries';
import { liveChildCount } from '../../lib/launcher/children';
import { startEmbedded } from '../../lib/launcher/embedded';
import { clusterKeyFile, ensureKeyFile } from '../../lib/launcher/keyfile';
import { isLoopbackAddress, launchProcesses } from '../../lib/launcher/launch';
import type { ProcessSpec } from '../../lib/launcher/spec';
import { buildTopology, resolveTopologyOptions } from '../../lib/topology';
import {
  expectGone,
  FAKE_BIN,
  freePorts,
  initiateAndWaitForPrimary,
  tempDir,
} from '../support/processes';

const binaries = resolveBinaries({ binDir: FAKE_BIN, env: {} });
const RECORD_ENV = 'MONGO_BENCH_FAKE_RECORD_DIR';

function argvOf(recordDir: string, kind: string, port: number): string[] {
  return (
    JSON.parse(fs.readFileSync(path.join(recordDir, `${kind}-${port}.process.json`), 'utf8')) as {
      argv: string[];
    }
  ).argv;
}

function recordedCommands(recordDir: string): Record<string, unknown>[] {
  return fs
    .readdirSync(recordDir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => fs.readFileSync(path.join(recordDir, f), 'utf8').split('\n'))
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('launcher: keyfile auth and loopback binding', () => {
  let dir: string;
  let recordDir: string;
  beforeEach(() => {
    dir = tempDir('launch-auth');
    recordDir = path.join(dir, 'record');
    fs.mkdirSync(recordDir);
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    expect(liveChildCount()).toBe(0);
  });

  it('creates the keyfile in the data dir (mode 600) and passes --keyFile to every process', async () => {
    const [a, b, r] = await freePorts(3);
    const keyFile = clusterKeyFile(path.join(dir, 'data'));
    // Initiated members and mongos quiesce on SIGTERM (15 s by default since 5.0); 1 s here, as the plan sets it.
    const quiesce = ['--setParameter', 'shutdownTimeoutMillisForSignaledShutdown=1000'];
    const mongods: ProcessSpec[] = [
      {
        name: 'cfg-0',
        kind: 'mongod',
        args: ['--configsvr', '--replSet', 'cfg', ...quiesce],
        host: '127.0.0.1',
        port: a,
        dbPath: path.join(dir, 'data', 'cfg-0'),
      },
      {
        name: 'cfg-1',
        kind: 'mongod',
        args: ['--configsvr', '--replSet', 'cfg', ...quiesce],
        host: '127.0.0.1',
        port: b,
        dbPath: path.join(dir, 'data', 'cfg-1'),
      },
    ];
    const mongos: ProcessSpec = {
      name: 'mongos-0',
      kind: 'mongos',
      args: [
        '--configdb',
        `cfg/127.0.0.1:${a},127.0.0.1:${b}`,
        '--setParameter',
        'mongosShutdownTimeoutMillisForSignaledShutdown=1000',
      ],
      host: '127.0.0.1',
      port: r,
    };
    const lines: string[] = [];
    const group = await launchProcesses(mongods, {
      binaries,
      readyTimeoutMs: 15_000,
      keyFile,
      env: { ...process.env, [RECORD_ENV]: recordDir },
      onCommandLine: (line) => lines.push(line),
    });
    try {
      // A mongos listens only once its config server replica set answers: initiate it (through the
      // localhost exception, no user yet), wait for a writable primary, then start the mongos.
      await initiateAndWaitForPrimary(group.processes[0].uri, {
        _id: 'cfg',
        configsvr: true,
        members: [
          { _id: 0, host: `127.0.0.1:${a}` },
          { _id: 1, host: `127.0.0.1:${b}` },
        ],
      });
      await group.launch([mongos]);
      expect(lines).toHaveLength(3);
      const stat = fs.statSync(keyFile);
      expect((stat.mode & 0o777).toString(8)).toBe('600');
      const content = fs.readFileSync(keyFile, 'utf8').trim();
      expect(content).toMatch(/^[A-Za-z0-9+/=]{1008}$/);
      expect(group.keyFiles).toEqual([keyFile]);
      for (const [kind, port] of [
        ['mongod', a],
        ['mongod', b],
        ['mongos', r],
      ] as const) {
        const argv = argvOf(recordDir, kind, port);
        expect(argv.slice(argv.indexOf('--keyFile'), argv.indexOf('--keyFile') + 2)).toEqual([
          '--keyFile',
          keyFile,
        ]);
      }
      // The command lines name the keyfile, never its content.
      for (const line of lines) {
        expect(line).toContain(`--keyFile ${keyFile}`);
        expect(line).not.toContain(content.slice(0, 40));
      }
    } finally {
      const pids = group.processes.map((p) => p.pid);
      await group.stop();
      expectGone(pids);
    }
  });

  it('the topology model with --auth gives every process --keyFile; the launcher creates that file', async () => {
    const [base] = await freePorts(1);
    const { options } = resolveTopologyOptions({
      topology: 'replset',
      replicas: 1,
      auth: true,
      basePort: base,
      dataDir: path.join(dir, 'cluster'),
    });
    const topology = buildTopology(options);
    expect(topology.auth).toEqual({ user: 'admin', keyFile: path.join(dir, 'cluster', 'keyfile') });
    const group = await launchProcesses(topology.processes, {
      binaries,
      readyTimeoutMs: 15_000,
      env: { ...process.env, [RECORD_ENV]: recordDir },
    });
    try {
      expect((fs.statSync(topology.auth!.keyFile!).mode & 0o777).toString(8)).toBe('600');
      expect(argvOf(recordDir, 'mongod', base)).toEqual(
        expect.arrayContaining(['--keyFile', topology.auth!.keyFile!]),
      );
    } finally {
      await group.stop();
    }
  });

  it('keeps an existing private keyfile and refuses one others can read', () => {
    const file = path.join(dir, 'keyfile');
    expect(ensureKeyFile(file)).toBe(true);
    const content = fs.readFileSync(file, 'utf8');
    expect(ensureKeyFile(file)).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe(content);
    fs.chmodSync(file, 0o644);
    expect(() => ensureKeyFile(file)).toThrow(
      new UsageError(
        `keyfile ${file} can be read by others (mode 644); mongod refuses it: chmod 600 ${file}`,
      ),
    );
  });

  it.each([
    [
      { args: ['--bind_ip_all'] },
      'would listen on 0.0.0.0 (--bind_ip_all), reachable from other machines',
    ],
    [{ args: ['--bind_ip', '127.0.0.1,0.0.0.0'] }, 'would listen on 0.0.0.0, reachable'],
    [{ args: [], host: '10.1.2.3' }, 'would listen on 10.1.2.3, reachable'],
  ] as const)(
    'refuses a non-loopback bind unless asked explicitly: %j',
    async (change, message) => {
      const [port] = await freePorts(1);
      const spec: ProcessSpec = {
        name: 'solo',
        kind: 'mongod',
        host: '127.0.0.1',
        port,
        dbPath: path.join(dir, 'solo'),
        ...change,
        args: [...change.args],
      };
      const err = await rejection(launchProcesses([spec], { binaries, readyTimeoutMs: 5000 }));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toContain(`mongod "solo" ${message}`);
      expect(fs.existsSync(path.join(dir, 'solo'))).toBe(false); // nothing was prepared or started
    },
  );

  it('allows a non-loopback bind when asked (the stand-in itself still listens on loopback)', async () => {
    const [port] = await freePorts(1);
    const group = await launchProcesses(
      [
        {
          name: 'wide',
          kind: 'mongod',
          args: ['--bind_ip_all'],
          host: '127.0.0.1',
          port,
          dbPath: path.join(dir, 'wide'),
        },
      ],
      { binaries, readyTimeoutMs: 15_000, allowNonLoopbackBind: true },
    );
    await group.stop();
  });

  it('knows loopback addresses', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      expect(isLoopbackAddress(a)).toBe(true);
    for (const a of ['0.0.0.0', '10.0.0.1', '::', 'example.com', '128.0.0.1'])
      expect(isLoopbackAddress(a)).toBe(false);
  });
});

describe('startEmbedded with auth (mongodb-memory-server, stand-in mongod)', () => {
  let dir: string;
  let recordDir: string;
  let mongod: string;
  beforeEach(() => {
    dir = tempDir('embedded-auth');
    recordDir = path.join(dir, 'record');
    // mongodb-memory-server spawns with the worker's real environment, not jest's copy: a wrapper sets the record dir.
    mongod = path.join(dir, 'mongod');
    fs.writeFileSync(
      mongod,
      `#!/bin/sh\n${RECORD_ENV}='${recordDir}' exec '${path.join(FAKE_BIN, 'mongod')}' "$@"\n`,
      { mode: 0o755 },
    );
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('standalone: mongod runs with --auth and the root user is created with the given name and password', async () => {
    const password = 'Emb3dded:p@ss/word';
    const server = await startEmbedded({
      topology: 'standalone',
      binary: mongod,
      auth: { username: 'benchroot', password },
    });
    try {
      expect(server.uri).not.toContain(password);
      const port = Number(/:(\d+)\//.exec(server.uri)![1]);
      expect(argvOf(recordDir, 'mongod', port)).toContain('--auth');
    } finally {
      await server.stop();
    }
    const created = recordedCommands(recordDir).filter(
      (c) =>
        (c.body as Record<string, unknown> | undefined)?.createUser !== undefined ||
        c.name === 'createUser',
    );
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(created[0])).toContain('"createUser":"benchroot"');
    expect(JSON.stringify(created[0])).toContain(JSON.stringify(password));
  });
});
