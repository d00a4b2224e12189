/**
 * The launcher against stand-in binaries (test/support/fake-bin): real processes, real ports,
 * real signals; only the server behind the port is a recording server instead of MongoDB.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { RunError, UsageError } from '../../lib/config/errors';
import { resolveBinaries } from '../../lib/launcher/binaries';
import { liveChildCount } from '../../lib/launcher/children';
import { launchProcesses, type LaunchedProcess } from '../../lib/launcher/launch';
import type { ProcessSpec } from '../../lib/launcher/spec';
import {
  expectGone,
  FAKE_BIN,
  freePorts,
  initiateAndWaitForPrimary,
  tempDir,
  writeScript,
} from '../support/processes';

const fakeBinaries = resolveBinaries({ binDir: FAKE_BIN, env: {} });

async function hello(uri: string): Promise<Record<string, unknown>> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 3000 });
  try {
    return await client.db('admin').command({ hello: 1 });
  } finally {
    await client.close();
  }
}

function readJsonLines(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** When the stand-in on `port` says it got SIGTERM (its own clock, sub-millisecond). */
function sigtermAt(recordDir: string, kind: string, port: number): number {
  const event = readJsonLines(path.join(recordDir, `${kind}-${port}.jsonl`)).find(
    (l) => l.event === 'SIGTERM',
  );
  if (!event) throw new Error(`${kind} on ${port} recorded no SIGTERM`);
  return event.at as number;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the launch to fail');
}

describe('launchProcesses with stand-in mongod/mongos', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('launch');
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    expect(liveChildCount()).toBe(0);
  });

  it('starts 3 mongods then a mongos, each answers hello on its port, logs command lines in order, stops mongos -> shards -> config', async () => {
    const [cfgPort, sh0Port, sh1Port, mongosPort] = await freePorts(4);
    const recordDir = path.join(dir, 'record');
    // An initiated member (5.0+) and a mongos quiesce on SIGTERM, 15 s by default; 1 s here, as the plan sets it.
    const quiesce = ['--setParameter', 'shutdownTimeoutMillisForSignaledShutdown=1000'];
    const mongosQuiesce = ['--setParameter', 'mongosShutdownTimeoutMillisForSignaledShutdown=1000'];
    const mongods: ProcessSpec[] = [
      {
        name: 'config-0',
        kind: 'mongod',
        args: ['--configsvr', '--replSet', 'cfg', ...quiesce],
        host: '127.0.0.1',
        port: cfgPort,
        dbPath: path.join(dir, 'data', 'config-0'),
      },
      {
        name: 'shard0-0',
        kind: 'mongod',
        args: ['--shardsvr', '--replSet', 'sh0'],
        host: '127.0.0.1',
        port: sh0Port,
        dbPath: path.join(dir, 'data', 'shard0-0'),
      },
      {
        name: 'shard0-1',
        kind: 'mongod',
        args: ['--shardsvr', '--replSet', 'sh0'],
        host: '127.0.0.1',
        port: sh1Port,
        dbPath: path.join(dir, 'data', 'shard0-1'),
        logPath: path.join(dir, 'logs', 'shard0-1.log'),
      },
    ];
    const mongos: ProcessSpec = {
      name: 'mongos-0',
      kind: 'mongos',
      args: ['--configdb', `cfg/127.0.0.1:${cfgPort}`, ...mongosQuiesce],
      host: '127.0.0.1',
      port: mongosPort,
      logPath: path.join(dir, 'logs', 'mongos-0.log'),
    };
    const lines: string[] = [];
    const group = await launchProcesses(mongods, {
      binaries: fakeBinaries,
      readyTimeoutMs: 20_000,
      env: { ...process.env, MONGO_BENCH_FAKE_RECORD_DIR: recordDir },
      onCommandLine: (line, spec) => lines.push(`${spec.name}: ${line}`),
    });
    let stopped = false;
    try {
      // A mongos only starts listening once its config server replica set is initiated and answers,
      // so, as a user would: initiate cfg, wait for a writable primary, then the second phase.
      await initiateAndWaitForPrimary(group.processes[0].uri, {
        _id: 'cfg',
        configsvr: true,
        members: [{ _id: 0, host: `127.0.0.1:${cfgPort}` }],
      });
      await group.launch([mongos]);
      expect(lines).toEqual([
        `config-0: ${FAKE_BIN}/mongod --configsvr --replSet cfg --setParameter shutdownTimeoutMillisForSignaledShutdown=1000 --port ${cfgPort} --bind_ip 127.0.0.1 --dbpath ${dir}/data/config-0`,
        `shard0-0: ${FAKE_BIN}/mongod --shardsvr --replSet sh0 --port ${sh0Port} --bind_ip 127.0.0.1 --dbpath ${dir}/data/shard0-0`,
        `shard0-1: ${FAKE_BIN}/mongod --shardsvr --replSet sh0 --port ${sh1Port} --bind_ip 127.0.0.1 --dbpath ${dir}/data/shard0-1 --logpath ${dir}/logs/shard0-1.log`,
        `mongos-0: ${FAKE_BIN}/mongos --configdb cfg/127.0.0.1:${cfgPort} --setParameter mongosShutdownTimeoutMillisForSignaledShutdown=1000 --port ${mongosPort} --bind_ip 127.0.0.1 --logpath ${dir}/logs/mongos-0.log`,
      ]);
      expect(group.processes.map((p) => [p.name, p.port, p.uri])).toEqual([
        ['config-0', cfgPort, `mongodb://127.0.0.1:${cfgPort}/?directConnection=true`],
        ['shard0-0', sh0Port, `mongodb://127.0.0.1:${sh0Port}/?directConnection=true`],
        ['shard0-1', sh1Port, `mongodb://127.0.0.1:${sh1Port}/?directConnection=true`],
        ['mongos-0', mongosPort, `mongodb://127.0.0.1:${mongosPort}/?directConnection=true`],
      ]);

      for (const p of group.processes) {
        const reply = await hello(p.uri);
        expect(reply.ok).toBe(1);
        if (p.kind === 'mongos') expect(reply.msg).toBe('isdbgrid');
        else if (p.name === 'config-0')
          expect(reply).toMatchObject({ setName: 'cfg', isWritablePrimary: true }); // initiated above
        else expect(reply.isreplicaset).toBe(true); // --replSet reached the process (not initiated)
        // The process behind the port is the one we spawned with these args.
        const seen = JSON.parse(
          fs.readFileSync(path.join(recordDir, `${p.kind}-${p.port}.process.json`), 'utf8'),
        );
        expect(seen).toEqual({ pid: p.pid, argv: p.args });
      }
      for (const name of ['config-0', 'shard0-0', 'shard0-1'])
        expect(fs.statSync(path.join(dir, 'data', name)).isDirectory()).toBe(true);
      expect(fs.readFileSync(path.join(dir, 'logs', 'mongos-0.log'), 'utf8')).toMatch(
        /Waiting for connections/,
      );

      const pids = group.processes.map((p) => p.pid);
      const report = await group.stop();
      stopped = true;
      expect(report.map((r) => [r.name, r.killed, r.code])).toEqual([
        ['mongos-0', false, 0],
        ['shard0-0', false, 0],
        ['shard0-1', false, 0],
        ['config-0', false, 0],
      ]);
      expectGone(pids);
      // Order as the processes themselves saw it: mongos, then both shards, then the config server.
      const mongosAt = sigtermAt(recordDir, 'mongos', mongosPort);
      const shardAt = [
        sigtermAt(recordDir, 'mongod', sh0Port),
        sigtermAt(recordDir, 'mongod', sh1Port),
      ];
      const configAt = sigtermAt(recordDir, 'mongod', cfgPort);
      expect(mongosAt).toBeLessThan(Math.min(...shardAt));
      expect(Math.max(...shardAt)).toBeLessThan(configAt);
      expect(await group.stop()).toBe(report); // idempotent
    } finally {
      if (!stopped) await group.stop();
    }
  });

  it('fails fast, naming the port and the process, when a port is already in use; nothing is started', async () => {
    const [freePort, busyPort] = await freePorts(2);
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(busyPort, '127.0.0.1', resolve));
    const lines: string[] = [];
    try {
      const err = await rejection(
        launchProcesses(
          [
            {
              name: 'a',
              kind: 'mongod',
              args: [],
              host: '127.0.0.1',
              port: freePort,
              dbPath: path.join(dir, 'a'),
            },
            {
              name: 'b',
              kind: 'mongod',
              args: [],
              host: '127.0.0.1',
              port: busyPort,
              dbPath: path.join(dir, 'b'),
            },
          ],
          { binaries: fakeBinaries, readyTimeoutMs: 20_000, onCommandLine: (l) => lines.push(l) },
        ),
      );
      expect(err).toBeInstanceOf(RunError);
      expect(err.message).toBe(
        `port ${busyPort} on 127.0.0.1 is already in use; mongod "b" needs it\nNothing was started. Stop whatever listens there or choose other ports.`,
      );
      expect(lines).toEqual([]);
      expect(fs.existsSync(path.join(dir, 'a'))).toBe(false);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('times out on a process that never answers, names it with its port and log tail, and stops the whole group (SIGKILL if need be)', async () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(path.join(FAKE_BIN, 'mongod'), path.join(bin, 'mongod'));
    // A mongos that never listens and ignores SIGTERM, so stop() has to escalate.
    writeScript(
      bin,
      'mongos',
      [
        "process.on('SIGTERM', () => console.log('ignoring SIGTERM'));",
        "console.log('stand-in mongos: starting, but never listening');",
        'setInterval(() => {}, 1000);',
      ].join('\n'),
    );
    const [p1, p2, p3] = await freePorts(3);
    const spawned: LaunchedProcess[] = [];
    // The good processes first, with time to spare on a busy machine; then the bad one with a short timeout.
    const group = await launchProcesses(
      [
        {
          name: 'rs0-0',
          kind: 'mongod',
          args: [],
          host: '127.0.0.1',
          port: p1,
          dbPath: path.join(dir, 'rs0-0'),
        },
        {
          name: 'rs0-1',
          kind: 'mongod',
          args: [],
          host: '127.0.0.1',
          port: p2,
          dbPath: path.join(dir, 'rs0-1'),
        },
      ],
      {
        binaries: resolveBinaries({ binDir: bin, env: {} }),
        readyTimeoutMs: 30_000,
        stopGraceMs: 300,
        onSpawned: (p) => spawned.push(p),
      },
    );
    const started = Date.now();
    const err = await rejection(
      group.launch(
        [
          {
            name: 'router',
            kind: 'mongos',
            args: ['--configdb', 'x/127.0.0.1:1'],
            host: '127.0.0.1',
            port: p3,
          },
        ],
        { readyTimeoutMs: 2500 },
      ),
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(err).toBeInstanceOf(RunError);
    expect(err.message).toMatch(
      new RegExp(
        `^mongos "router" did not answer hello on 127\\.0\\.0\\.1:${p3} within 2\\.5 s; last lines of its output:\n`,
      ),
    );
    expect(err.message).toMatch(/stand-in mongos: starting, but never listening/);
    expect(err.message).toMatch(
      new RegExp(
        `command: ${bin}/mongos --configdb x/127.0.0.1:1 --port ${p3} --bind_ip 127.0.0.1$`,
      ),
    );
    expect(spawned.map((p) => p.name)).toEqual(['rs0-0', 'rs0-1', 'router']);
    // The failed phase took the whole group down, the SIGTERM-deaf mongos by SIGKILL.
    const report = await group.stop();
    expect(report.map((r) => [r.name, r.killed])).toEqual([
      ['router', true],
      ['rs0-0', false],
      ['rs0-1', false],
    ]);
    expectGone(spawned.map((p) => p.pid));
  });

  it('reports a process that exits before it is ready, with the end of its log', async () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    writeScript(
      bin,
      'mongod',
      "console.log('stand-in mongod: cannot start: bad option'); process.exit(2);",
    );
    const [port] = await freePorts(1);
    const spawned: LaunchedProcess[] = [];
    const err = await rejection(
      launchProcesses(
        [
          {
            name: 'solo',
            kind: 'mongod',
            args: [],
            host: '127.0.0.1',
            port,
            dbPath: path.join(dir, 'solo'),
          },
        ],
        {
          binaries: resolveBinaries({ binDir: bin, env: {} }),
          readyTimeoutMs: 20_000,
          onSpawned: (p) => spawned.push(p),
        },
      ),
    );
    expect(err.message).toMatch(
      new RegExp(
        `^mongod "solo" exited with code 2 before it answered hello on 127\\.0\\.0\\.1:${port}; last lines of its output:\n  stand-in mongod: cannot start: bad option\n`,
      ),
    );
    expectGone(spawned.map((p) => p.pid));
  });

  it('stops everything it started when aborted', async () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(path.join(FAKE_BIN, 'mongod'), path.join(bin, 'mongod'));
    writeScript(bin, 'mongos', 'setInterval(() => {}, 1000);');
    const [p1, p2] = await freePorts(2);
    const controller = new AbortController();
    const spawned: LaunchedProcess[] = [];
    const launching = launchProcesses(
      [
        {
          name: 'm',
          kind: 'mongod',
          args: [],
          host: '127.0.0.1',
          port: p1,
          dbPath: path.join(dir, 'm'),
        },
        {
          name: 's',
          kind: 'mongos',
          args: ['--configdb', 'x/127.0.0.1:1'],
          host: '127.0.0.1',
          port: p2,
        },
      ],
      {
        binaries: resolveBinaries({ binDir: bin, env: {} }),
        readyTimeoutMs: 30_000,
        signal: controller.signal,
        onSpawned: (p) => {
          spawned.push(p);
          if (spawned.length === 2) setTimeout(() => controller.abort(), 300);
        },
      },
    );
    const err = await rejection(launching);
    expect([err.name, err.message]).toEqual([
      'AbortError',
      'launch interrupted; every process it started was stopped',
    ]);
    expectGone(spawned.map((p) => p.pid));
  });

  it('reports a ready process that dies on its own through onUnexpectedExit', async () => {
    const [port] = await freePorts(1);
    let died: ((value: [string, NodeJS.Signals | null]) => void) | undefined;
    const death = new Promise<[string, NodeJS.Signals | null]>((resolve) => (died = resolve));
    const group = await launchProcesses(
      [
        {
          name: 'fragile',
          kind: 'mongod',
          args: [],
          host: '127.0.0.1',
          port,
          dbPath: path.join(dir, 'f'),
        },
      ],
      {
        binaries: fakeBinaries,
        readyTimeoutMs: 20_000,
        onUnexpectedExit: (p, exit) => died?.([p.name, exit.signal]),
      },
    );
    try {
      process.kill(group.processes[0].pid, 'SIGKILL');
      expect(await death).toEqual(['fragile', 'SIGKILL']);
    } finally {
      const report = await group.stop();
      expect(report).toEqual([
        {
          name: 'fragile',
          pid: group.processes[0].pid,
          code: null,
          signal: 'SIGKILL',
          killed: false,
          durationMs: expect.any(Number) as number,
        },
      ]);
      // Already gone: nothing to wait for (a millisecond or so of bookkeeping, on a loaded machine more).
      expect(report[0].durationMs).toBeLessThan(500);
    }
  });

  it('refuses bad specs before starting anything, naming the process', async () => {
    const [port, port2] = await freePorts(2);
    const base: ProcessSpec = {
      name: 'x',
      kind: 'mongod',
      args: [],
      host: '127.0.0.1',
      port,
      dbPath: path.join(dir, 'x'),
    };
    const launch = (specs: ProcessSpec[]) =>
      rejection(launchProcesses(specs, { binaries: fakeBinaries, readyTimeoutMs: 1000 }));

    const noDbPath = await launch([{ ...base, dbPath: undefined }]);
    expect(noDbPath).toBeInstanceOf(UsageError);
    expect(noDbPath.message).toMatch(/^process\[0\] "x": a mongod needs a data directory/);
    expect(
      (await launch([base, { ...base, name: 'y', dbPath: path.join(dir, 'y') }])).message,
    ).toBe(`process[1] "y": port ${port} is also used by "x"`);
    expect((await launch([{ ...base, args: ['--fork'] }])).message).toMatch(
      /^process\[0\] "x": --fork is not allowed/,
    );
    expect((await launch([{ ...base, args: ['--port', String(port2)] }])).message).toBe(
      `process[0] "x": args say --port ${port2} but port is ${port}`,
    );

    fs.mkdirSync(path.join(dir, 'x'));
    fs.writeFileSync(path.join(dir, 'x', 'mongod.lock'), '');
    const existing = await launch([base]);
    expect(existing).toBeInstanceOf(UsageError);
    expect(existing.message).toBe(
      `data directory ${dir}/x of mongod "x" is not empty (left from an earlier run?): remove it or choose another directory`,
    );

    const onlyMongod = path.join(dir, 'only-mongod');
    fs.mkdirSync(onlyMongod);
    fs.symlinkSync(path.join(FAKE_BIN, 'mongod'), path.join(onlyMongod, 'mongod'));
    const noMongos = await rejection(
      launchProcesses([{ name: 'r', kind: 'mongos', args: [], host: '127.0.0.1', port }], {
        binaries: resolveBinaries({ binDir: onlyMongod, env: {} }),
        readyTimeoutMs: 1000,
      }),
    );
    expect(noMongos).toBeInstanceOf(UsageError);
    expect(noMongos.message).toMatch(
      /^a sharded cluster needs mongos, but option --bin-dir .*only-mongod has no executable mongos beside it/,
    );
  });
});
