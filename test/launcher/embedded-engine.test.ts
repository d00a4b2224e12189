/**
 * The embedded server always runs WiredTiger, and the members of an embedded replica set share the
 * host's cache budget. mongodb-memory-server's getStorageEngine (lib/util/utils.js) picks
 * "ephemeralForTest" below 7.0 when no engine is given, and each mongod's default cache is half of
 * (RAM - 1 GB) (src/mongo/db/storage/wiredtiger/wiredtiger_kv_engine.cpp, getCacheSizeMB). The
 * stand-in poses as 6.0 here, where the old default would have measured the in-memory test engine.
 * The result also records the engine the server reports (serverStatus.storageEngine.name).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbedded } from '../../lib/launcher/embedded';
import { cacheSizeGbPerMongod } from '../../lib/topology/cache-size';
import { describeTarget } from '../../lib/server/connect';
import { startRecordingServer } from '../support/recording-server';
import { expectGone, FAKE_BIN, pidsWithCommandLine } from '../support/processes';

const FAKE_MONGOD = path.join(FAKE_BIN, 'mongod');

function portsOf(uri: string): string[] {
  return [...uri.matchAll(/:(\d+)/g)].map((m) => m[1]);
}

function commandLineOf(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
}

const argAfter = (argv: string[], name: string) => argv[argv.indexOf(name) + 1];

describe('the embedded server at 6.0 (stand-in)', () => {
  // A mongod-6.0 wrapper: the stand-in reads its version from the environment, which a child of
  // mongodb-memory-server inherits from the real process, not from jest's copy of process.env.
  let dir: string;
  let mongod60: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mongo-bench-embedded-60-'));
    mongod60 = path.join(dir, 'mongod');
    fs.writeFileSync(
      mongod60,
      `#!/bin/sh\nMONGO_BENCH_FAKE_VERSION=6.0.19 exec "${FAKE_MONGOD}" "$@"\n`,
      { mode: 0o755 },
    );
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('standalone: mongod gets --storageEngine wiredTiger, not ephemeralForTest', async () => {
    const server = await startEmbedded({ topology: 'standalone', binary: mongod60 });
    const pids = pidsWithCommandLine(FAKE_MONGOD, `--port ${portsOf(server.uri)[0]}`);
    try {
      expect(server.version).toBe('6.0.19');
      expect(pids).toHaveLength(1);
      expect(argAfter(commandLineOf(pids[0]), '--storageEngine')).toBe('wiredTiger');
      expect(server.storageEngine).toBe('wiredTiger');
    } finally {
      await server.stop();
    }
    expectGone(pids);
  }, 60_000);

  it("replset of 3: every member runs wiredTiger with a third of the host's cache budget", async () => {
    const server = await startEmbedded({ topology: 'replset', replicas: 3, binary: mongod60 });
    const pids = portsOf(server.uri).flatMap((port) =>
      pidsWithCommandLine(FAKE_MONGOD, `--port ${port}`),
    );
    try {
      expect(pids).toHaveLength(3);
      expect(server.version).toBe('6.0.19');
      const share = cacheSizeGbPerMongod(os.totalmem(), 3);
      for (const pid of pids) {
        const argv = commandLineOf(pid);
        expect(argAfter(argv, '--storageEngine')).toBe('wiredTiger');
        expect(Number(argAfter(argv, '--wiredTigerCacheSizeGB'))).toBe(share);
      }
      expect(server.cacheSizeGb).toBe(share);
    } finally {
      await server.stop();
    }
    expectGone(pids);
  }, 60_000);
});

describe("the result's target names the storage engine the server reports", () => {
  it('serverStatus.storageEngine.name goes to target.storageEngine; absent when not reported', async () => {
    for (const engine of ['wiredTiger', undefined]) {
      const server = await startRecordingServer({
        handlers: {
          buildInfo: () => ({ version: '6.0.19', ok: 1 }),
          serverStatus: () => ({
            process: 'mongod',
            ...(engine ? { storageEngine: { name: engine, persistent: true } } : {}),
            ok: 1,
          }),
        },
      });
      const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 3000 });
      try {
        const target = await describeTarget(client, server.uri, false);
        expect(target.storageEngine).toBe(engine);
      } finally {
        await client.close();
        await server.stop();
      }
    }
  });
});
