/**
 * Real MongoDB for the tests, when this machine has one: finds a mongod binary without ever
 * downloading, and starts a standalone or a replica set from it through mongodb-memory-server.
 */
import { spawnSync } from 'child_process';
import { existsSync, statSync } from 'fs';
import path from 'path';
import { DryMongoBinary, MongoMemoryReplSet, MongoMemoryServer } from 'mongodb-memory-server';

export interface MongodBinary {
  path: string;
  /** Where it came from, for the test summary. */
  source: 'MONGOD_BIN' | 'MONGOMS_SYSTEM_BINARY' | 'mongodb-memory-server cache';
}

export type Found<T> = { ok: true; value: T } | { ok: false; reason: string };

const NO_MONGOD = 'no mongod binary; set MONGOD_BIN=/path/to/mongod, tests never download one';

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * MONGOD_BIN, then MONGOMS_SYSTEM_BINARY, then a binary mongodb-memory-server already has in its cache.
 * A variable that is set but points nowhere is reported rather than skipped over, so a typo is visible.
 */
export async function findMongodBinary(
  env: NodeJS.ProcessEnv = process.env,
): Promise<Found<MongodBinary>> {
  for (const name of ['MONGOD_BIN', 'MONGOMS_SYSTEM_BINARY'] as const) {
    const value = env[name];
    if (!value) continue;
    const file = path.resolve(value);
    if (!isFile(file)) return { ok: false, reason: `${name}=${value} is not an existing file` };
    return { ok: true, value: { path: file, source: name } };
  }
  try {
    // Looks in mongodb-memory-server's download/cache directories only; it never downloads.
    const cached = await DryMongoBinary.locateBinary(DryMongoBinary.getEnsuredOptions());
    if (cached && isFile(cached))
      return { ok: true, value: { path: cached, source: 'mongodb-memory-server cache' } };
  } catch {
    // An unknown OS/arch or unreadable cache means the same as an empty cache here.
  }
  return { ok: false, reason: NO_MONGOD };
}

/** mongos for sharded clusters: MONGOS_BIN, else a `mongos` next to the mongod. */
export function findMongosBinary(
  mongod: MongodBinary,
  env: NodeJS.ProcessEnv = process.env,
): Found<string> {
  if (env.MONGOS_BIN) {
    const file = path.resolve(env.MONGOS_BIN);
    return isFile(file)
      ? { ok: true, value: file }
      : { ok: false, reason: `MONGOS_BIN=${env.MONGOS_BIN} is not an existing file` };
  }
  const sibling = path.join(path.dirname(mongod.path), 'mongos');
  if (existsSync(sibling)) return { ok: true, value: sibling };
  return {
    ok: false,
    reason: `no mongos binary; set MONGOS_BIN or put mongos next to ${mongod.path}`,
  };
}

const versions = new Map<string, string | undefined>();

/** "7.0.14" from `mongod --version` ("db version v7.0.14"), or undefined when it does not say. */
export function mongodVersion(binaryPath: string): string | undefined {
  if (!versions.has(binaryPath)) {
    const out = spawnSync(binaryPath, ['--version'], { encoding: 'utf8', timeout: 15_000 });
    versions.set(binaryPath, /db version v(\S+)/.exec(out.stdout ?? '')?.[1]);
  }
  return versions.get(binaryPath);
}

/** Telling mongodb-memory-server the binary's own version stops its "possible version conflict" warning. */
function binaryOptions(binaryPath: string): { systemBinary: string; version?: string } {
  const version = mongodVersion(binaryPath);
  return version ? { systemBinary: binaryPath, version } : { systemBinary: binaryPath };
}

export interface RunningMongo {
  /** mongodb://127.0.0.1:PORT (standalone) or mongodb://127.0.0.1:P1,127.0.0.1:P2/?replicaSet=NAME */
  uri: string;
  stop(): Promise<void>;
}

/** A throwaway standalone mongod on a free loopback port, its data in a temp dir removed on stop. */
export async function startStandalone(
  binaryPath: string,
): Promise<RunningMongo & { port: number }> {
  const server = await MongoMemoryServer.create({
    binary: binaryOptions(binaryPath),
    instance: { ip: '127.0.0.1' },
  });
  const port = server.instanceInfo?.port;
  if (port === undefined) {
    await server.stop({ doCleanup: true, force: true });
    throw new Error(`mongod (${binaryPath}) started but reported no port`);
  }
  return {
    uri: `mongodb://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await server.stop({ doCleanup: true, force: true });
    },
  };
}

/** A throwaway replica set (default 3 members) on free loopback ports; resolves once a primary exists. */
export async function startReplSet(
  binaryPath: string,
  members = 3,
): Promise<RunningMongo & { name: string }> {
  const replSet = await MongoMemoryReplSet.create({
    binary: binaryOptions(binaryPath),
    replSet: { count: members, ip: '127.0.0.1', storageEngine: 'wiredTiger' },
  });
  await replSet.waitUntilRunning();
  const name = replSet.replSetOpts.name ?? 'testset';
  return {
    uri: replSet.getUri(),
    name,
    stop: async () => {
      await replSet.stop({ doCleanup: true, force: true });
    },
  };
}
