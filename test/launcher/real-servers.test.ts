/**
 * The launcher with real MongoDB binaries (MONGOD_BIN / MONGOMS_SYSTEM_BINARY, mongos beside
 * mongod). Skipped, with the reason in the title, where there is no mongod (as on the dev machine).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { resolveBinaries } from '../../lib/launcher/binaries';
import { startEmbedded } from '../../lib/launcher/embedded';
import { launchProcesses } from '../../lib/launcher/launch';
import { describeNeeding } from '../support/servers';
import { expectGone, freePorts, initiateAndWaitForPrimary, tempDir } from '../support/processes';

async function withClient<T>(uri: string, fn: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 30_000 });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

describeNeeding('mongod', 'launcher with a real mongod', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('real');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('starts a standalone, it answers hello, stop() ends it cleanly', async () => {
    const binaries = resolveBinaries({ env: process.env });
    const [port] = await freePorts(1);
    const group = await launchProcesses(
      [
        {
          name: 'standalone',
          kind: 'mongod',
          args: [],
          host: '127.0.0.1',
          port,
          dbPath: path.join(dir, 'db'),
          logPath: path.join(dir, 'mongod.log'),
        },
      ],
      { binaries, readyTimeoutMs: 60_000 },
    );
    const pids = group.processes.map((p) => p.pid);
    try {
      const hello = await withClient(group.processes[0].uri, (c) =>
        c.db('admin').command({ hello: 1 }),
      );
      expect(hello.isWritablePrimary).toBe(true);
    } finally {
      const report = await group.stop();
      expect(report.map((r) => [r.name, r.killed, r.code])).toEqual([['standalone', false, 0]]);
    }
    expectGone(pids);
  });

  it('startEmbedded with the given binary gives a working standalone', async () => {
    const binaries = resolveBinaries({ env: process.env });
    const server = await startEmbedded({ topology: 'standalone', binary: binaries.mongod });
    try {
      const reply = await withClient(server.uri, (c) => c.db('admin').command({ ping: 1 }));
      expect(reply.ok).toBe(1);
    } finally {
      await server.stop();
    }
  });
});

describeNeeding('sharded', 'launcher with real mongod and mongos', () => {
  it('config server set + one shard set, then mongos in a second phase; addShard works; all stopped', async () => {
    const dir = tempDir('real-sharded');
    const binaries = resolveBinaries({ env: process.env });
    const [cfgPort, shardPort, mongosPort] = await freePorts(3);
    const group = await launchProcesses(
      [
        {
          name: 'config-0',
          kind: 'mongod',
          args: ['--configsvr', '--replSet', 'cfg'],
          host: '127.0.0.1',
          port: cfgPort,
          dbPath: path.join(dir, 'cfg'),
          logPath: path.join(dir, 'cfg.log'),
        },
        {
          name: 'shard0-0',
          kind: 'mongod',
          args: ['--shardsvr', '--replSet', 'sh0'],
          host: '127.0.0.1',
          port: shardPort,
          dbPath: path.join(dir, 'sh0'),
          logPath: path.join(dir, 'sh0.log'),
        },
      ],
      { binaries, readyTimeoutMs: 60_000 },
    );
    try {
      await initiateAndWaitForPrimary(group.processes[0].uri, {
        _id: 'cfg',
        configsvr: true,
        members: [{ _id: 0, host: `127.0.0.1:${cfgPort}` }],
      });
      await initiateAndWaitForPrimary(group.processes[1].uri, {
        _id: 'sh0',
        members: [{ _id: 0, host: `127.0.0.1:${shardPort}` }],
      });
      const [mongos] = await group.launch([
        {
          name: 'mongos-0',
          kind: 'mongos',
          args: ['--configdb', `cfg/127.0.0.1:${cfgPort}`],
          host: '127.0.0.1',
          port: mongosPort,
          logPath: path.join(dir, 'mongos.log'),
        },
      ]);
      const shards = await withClient(mongos.uri, async (c) => {
        await c.db('admin').command({ addShard: `sh0/127.0.0.1:${shardPort}` });
        return (await c.db('admin').command({ listShards: 1 })).shards as { _id: string }[];
      });
      expect(shards.map((s) => s._id)).toEqual(['sh0']);
    } finally {
      const pids = group.processes.map((p) => p.pid);
      const report = await group.stop();
      const mongosStarted = group.processes.some((p) => p.kind === 'mongos');
      expect(report.map((r) => r.name)).toEqual(
        mongosStarted ? ['mongos-0', 'shard0-0', 'config-0'] : ['shard0-0', 'config-0'],
      );
      expectGone(pids);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
