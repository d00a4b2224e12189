import * as fs from 'node:fs';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { RunError } from '../../lib/config/errors';
import { startEmbedded } from '../../lib/launcher/embedded';
import { fakeVersionFromEnv } from '../support/fake-bin/version';
import { availability } from '../support/servers';
import { expectGone, FAKE_BIN, pidsWithCommandLine } from '../support/processes';

const FAKE_MONGOD = path.join(FAKE_BIN, 'mongod');

function portsOf(uri: string): string[] {
  return [...uri.matchAll(/:(\d+)/g)].map((m) => m[1]);
}

async function helloAt(uri: string): Promise<Record<string, unknown>> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    return await client.db('admin').command({ hello: 1 });
  } finally {
    await client.close();
  }
}

// Offline with no binary is exactly this machine; where a real mongod can be had, the embedded
// server would simply start, so the failure cannot be shown there.
const mongod = availability('mongod');
const describeOffline = mongod.ok ? describe.skip : describe;
describeOffline(
  `startEmbedded with no mongod and no internet${mongod.ok ? ' [skipped: a real mongod is available here, so the embedded server would start]' : ''}`,
  () => {
    it('fails within seconds with the three ways forward, and starts nothing', async () => {
      const saved = { MONGOMS_SYSTEM_BINARY: process.env.MONGOMS_SYSTEM_BINARY };
      delete process.env.MONGOMS_SYSTEM_BINARY;
      const started = Date.now();
      let error: unknown;
      try {
        const server = await startEmbedded({ topology: 'standalone' });
        await server.stop(); // should not happen here; never leave it running
      } catch (err) {
        error = err;
      } finally {
        if (saved.MONGOMS_SYSTEM_BINARY !== undefined)
          process.env.MONGOMS_SYSTEM_BINARY = saved.MONGOMS_SYSTEM_BINARY;
      }
      const elapsed = Date.now() - started;
      process.stdout.write(`embedded offline failure after ${elapsed} ms\n`);
      expect(error).toBeInstanceOf(RunError);
      const message = (error as Error).message;
      expect(message).toMatch(
        /^no mongod binary for the embedded MongoDB: mongodb-memory-server could not download https:\/\/\S+ \(\w+; offline\?\)\. Nothing was run\.\n/,
      );
      expect(message).toContain('--uri URI');
      expect(message).toContain('--mongod-bin PATH');
      expect(message).toContain('MONGOMS_SYSTEM_BINARY=/path/to/mongod');
      expect(elapsed).toBeLessThan(30_000);
    }, 60_000);
  },
);

/**
 * The data roots (mongo-bench-embedded-*) of the given members, read from their `--dbpath`: each member's
 * directory is `<root>/member-<i>`. Other test files start embedded servers in the same temporary folder
 * at the same time (and setting TMPDIR inside a jest test does not reach os.tmpdir()), so only these
 * servers' own roots say whether stop() removed what it made.
 */
function dataRootsOf(pids: number[]): string[] {
  const roots = pids.map((pid) => {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const dbPath = args[args.indexOf('--dbpath') + 1];
    expect(path.basename(dbPath)).toMatch(/^member-\d+$/);
    return path.dirname(dbPath);
  });
  const unique = [...new Set(roots)];
  for (const root of unique) expect(path.basename(root)).toMatch(/^mongo-bench-embedded-/);
  return unique;
}

describe('startEmbedded through mongodb-memory-server with the stand-in mongod', () => {
  it('standalone: answers hello at its uri, stop() leaves no process behind', async () => {
    const server = await startEmbedded({ topology: 'standalone', binary: FAKE_MONGOD });
    const [port] = portsOf(server.uri);
    const pids = pidsWithCommandLine(FAKE_MONGOD, `--port ${port}`);
    const roots = dataRootsOf(pids);
    try {
      // What the stand-in reports (`mongod --version`): MONGO_BENCH_FAKE_VERSION, else its default.
      expect(server.version).toBe(fakeVersionFromEnv().text);
      expect(server.uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
      expect(pids).toHaveLength(1);
      expect((await helloAt(server.uri)).ok).toBe(1);
    } finally {
      await server.stop();
    }
    expectGone(pids);
    expect(roots).toHaveLength(1);
    expect(roots.filter((root) => fs.existsSync(root))).toEqual([]);
  });

  it('replset: a set of 3 at a replicaSet uri, all stopped afterwards', async () => {
    const server = await startEmbedded({ topology: 'replset', replicas: 3, binary: FAKE_MONGOD });
    const ports = portsOf(server.uri);
    const pids = ports.flatMap((port) => pidsWithCommandLine(FAKE_MONGOD, `--port ${port}`));
    const roots = dataRootsOf(pids);
    try {
      expect(server.uri).toMatch(
        /^mongodb:\/\/127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+\/\?replicaSet=\w+$/,
      );
      expect(pids).toHaveLength(3);
      const reply = await helloAt(`mongodb://127.0.0.1:${ports[0]}/?directConnection=true`);
      expect(reply.setName).toBeDefined();
    } finally {
      await server.stop();
    }
    expectGone(pids);
    expect(roots).toHaveLength(1);
    expect(roots.filter((root) => fs.existsSync(root))).toEqual([]);
  });

  it('says so when the binary is not a mongod', async () => {
    await expect(startEmbedded({ topology: 'standalone', binary: '/bin/true' })).rejects.toThrow(
      /^\/bin\/true does not look like a mongod: `\/bin\/true --version` gave no "db version vX.Y.Z" line/,
    );
  });
});
