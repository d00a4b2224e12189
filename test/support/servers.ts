/**
 * The one small API tests use to get a server. A test declares what it needs; when the need
 * cannot be met on this machine the test is skipped and the reason is part of its title, so the
 * summary reporter prints it.
 *
 * Needs:
 *  - 'crud':      a server for CRUD (a real mongod if one is obtainable, else mongo-java-server)
 *  - 'mongod':    a real MongoDB standalone (MONGOD_BIN / MONGOMS_SYSTEM_BINARY / mongodb-memory-server cache)
 *  - 'replset':   a real MongoDB replica set (same binary)
 *  - 'sharded':   a real MongoDB sharded cluster (mongod + mongos binaries)
 *  - 'recording': the in-process recording server (always available)
 *  - 'mongosh':   the real mongosh CLI (a dev dependency)
 *  - 'toxiproxy': the Toxiproxy binary .ci/go-tools built (start one with go-servers.ts)
 *  - 'ferretdb':  the FerretDB binary .ci/go-tools built (a real third-party server, not MongoDB)
 *
 * The jest globalSetup (global-setup.ts) decides once per run and passes the answer to the test
 * workers in the environment variables below; this module only reads them, so it stays synchronous
 * (describeNeeding runs while jest collects tests).
 */
import { existsSync } from 'fs';
import path from 'path';
import { findGoTool } from './go-servers';

export type Need =
  'crud' | 'mongod' | 'replset' | 'sharded' | 'recording' | 'mongosh' | 'toxiproxy' | 'ferretdb';

export interface Availability {
  ok: boolean;
  reason?: string;
}

export type CrudKind = 'mongo-java-server' | 'mongod';

/** What global-setup.ts exports to the workers. */
export const ENV = {
  crudUri: 'MONGO_BENCH_CRUD_URI',
  crudKind: 'MONGO_BENCH_CRUD_KIND',
  crudUnavailable: 'MONGO_BENCH_CRUD_UNAVAILABLE',
  mongodBin: 'MONGO_BENCH_MONGOD_BIN',
  mongodUnavailable: 'MONGO_BENCH_MONGOD_UNAVAILABLE',
  mongosBin: 'MONGO_BENCH_MONGOS_BIN',
  mongosUnavailable: 'MONGO_BENCH_MONGOS_UNAVAILABLE',
  /** One line naming the servers of this run; the summary reporter prints it. */
  summary: 'MONGO_BENCH_TEST_SERVERS',
} as const;

const NOT_SET_UP =
  'test servers not set up (jest globalSetup test/support/global-setup.ts did not run)';

/** The mongosh entry script when the dev dependency is installed. */
export function mongoshScript(): string | undefined {
  try {
    const script = path.join(
      path.dirname(require.resolve('mongosh/package.json')),
      'bin',
      'mongosh.js',
    );
    return existsSync(script) ? script : undefined;
  } catch {
    return undefined;
  }
}

function fromEnv(value: string | undefined, unavailable: string | undefined): Availability {
  if (value) return { ok: true };
  return { ok: false, reason: unavailable ?? NOT_SET_UP };
}

export function availability(need: Need): Availability {
  const env = process.env;
  switch (need) {
    case 'crud':
      return fromEnv(env[ENV.crudUri], env[ENV.crudUnavailable]);
    case 'mongod':
    case 'replset':
      return fromEnv(env[ENV.mongodBin], env[ENV.mongodUnavailable]);
    case 'sharded': {
      const mongod = fromEnv(env[ENV.mongodBin], env[ENV.mongodUnavailable]);
      return mongod.ok ? fromEnv(env[ENV.mongosBin], env[ENV.mongosUnavailable]) : mongod;
    }
    case 'recording':
      return { ok: true }; // in-process, nothing to install
    case 'mongosh':
      return mongoshScript()
        ? { ok: true }
        : {
            ok: false,
            reason:
              'mongosh not installed (node_modules/mongosh/bin/mongosh.js missing: run npm ci)',
          };
    case 'toxiproxy':
    case 'ferretdb': {
      const found = findGoTool(need);
      return found.ok ? { ok: true } : { ok: false, reason: found.reason };
    }
  }
}

/** describe() when every need is met, otherwise describe.skip with the reason in the title. */
export function describeNeeding(needs: Need | Need[], title: string, fn: () => void): void {
  const list = Array.isArray(needs) ? needs : [needs];
  const missing = list.map((n) => ({ n, a: availability(n) })).filter((x) => !x.a.ok);
  if (missing.length === 0) {
    describe(title, fn);
  } else {
    const reason = missing.map((m) => `${m.n}: ${m.a.reason}`).join('; ');
    describe.skip(`${title} [skipped: ${reason}]`, fn);
  }
}

function required(name: string, need: Need): string {
  const value = process.env[name];
  if (!value)
    throw new Error(
      `${need} server unavailable: ${availability(need).reason} (declare it with describeNeeding)`,
    );
  return value;
}

/** mongodb://127.0.0.1:PORT of the run's shared CRUD server. Shared by all test files: use your own database. */
export function crudUri(): string {
  return required(ENV.crudUri, 'crud');
}

/** Which server crudUri() is: a real mongod, or the mongo-java-server test double. */
export function crudKind(): CrudKind {
  const kind = required(ENV.crudKind, 'crud');
  if (kind !== 'mongo-java-server' && kind !== 'mongod')
    throw new Error(`${ENV.crudKind} has an unknown value '${kind}'`);
  return kind;
}

/** Path of the real mongod binary, for tests that start their own standalone or replica set (see mongod.ts). */
export function mongodBinary(): string {
  return required(ENV.mongodBin, 'mongod');
}

/** Path of the mongos binary, for sharded tests. */
export function mongosBinary(): string {
  return required(ENV.mongosBin, 'sharded');
}

let dbCounter = 0;

/** A database name no other test (file, worker or run) uses on the shared CRUD server. */
export function uniqueDbName(label: string): string {
  dbCounter += 1;
  const safe = label.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 24);
  return `mbtest_${safe}_${process.pid}_${Date.now().toString(36)}_${dbCounter}`;
}
