/**
 * The embedded default: a throwaway standalone or replica set through mongodb-memory-server.
 *
 * The mongod binary is settled first, in a step of its own (the given one, else
 * MONGOMS_SYSTEM_BINARY / mongodb-memory-server's cache / its download), so that "no binary" is
 * one clear error with the ways forward, and never anything else silently.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoBinary, MongoMemoryReplSet, MongoMemoryServer } from 'mongodb-memory-server';
import { RunError, UsageError } from '../config/errors';
import { redactText, redactUri } from '../security/redact';
import { newKeyFileContent } from './keyfile';
import { CACHE_SIZE_ARG, cacheSizeGbPerMongod } from '../topology/cache-size';
import { dropUndefined, isAbortError, messageOf } from '../common/values';

export interface EmbeddedOptions {
  topology: 'standalone' | 'replset';
  /** Replica-set members (replset only); default 3. */
  replicas?: number;
  /** A mongod to use (from resolveBinaries); without it mongodb-memory-server finds or downloads one. */
  binary?: string;
  signal?: AbortSignal;
  /**
   * Access control: mongodb-memory-server starts mongod with --auth (a replica set also with a
   * random keyfile) and creates this root user through the localhost exception. The returned URI
   * carries no credentials: connect with them as driver options.
   */
  auth?: { username: string; password: string };
}

export interface EmbeddedServer {
  uri: string;
  /** The mongod that runs it, and its version as `mongod --version` prints it. */
  binary: string;
  version: string;
  /** The storage engine asked for: always wiredTiger. */
  storageEngine: typeof EMBEDDED_STORAGE_ENGINE;
  /** A replica set's --wiredTigerCacheSizeGB per member (its share of this host's memory). */
  cacheSizeGb?: number;
  stop(): Promise<void>;
}

export const EMBEDDED_STORAGE_ENGINE = 'wiredTiger';

/** What to do when no mongod can be had; the wording the issue asks for. */
export const NO_MONGOD_HELP = [
  'To proceed, do one of:',
  '  --uri URI                                benchmark an existing deployment',
  '  --mongod-bin PATH                        use a local mongod binary (or --bin-dir DIR with mongod and mongos)',
  '  MONGOMS_SYSTEM_BINARY=/path/to/mongod    the same, through mongodb-memory-server',
].join('\n');

export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const replicas = options.replicas ?? 3;
  if (
    options.topology === 'replset' &&
    (!Number.isInteger(replicas) || replicas < 1 || replicas > 50)
  ) {
    throw new UsageError(`option --replicas must be an integer from 1 to 50, got ${replicas}`);
  }
  throwIfAborted(options.signal);
  const binary = options.binary ?? (await untilAborted(locateMongod(), options.signal));
  throwIfAborted(options.signal);
  // Passing the binary's own version keeps mongodb-memory-server from warning about a "version conflict".
  const version = mongodVersion(binary);
  const binaryOptions = { systemBinary: binary, version };

  // Our own data directories: mongodb-memory-server keeps its temporary ones after a failed start
  // ("for investigation"); these go in every case.
  const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'mongo-bench-embedded-'));
  const removeData = () => fs.rmSync(dataRoot, { recursive: true, force: true });
  // mongodb-memory-server's default is 10 s; a first start on a slow disk or a busy machine can take longer.
  const launchTimeout = 60_000;
  const memberDir = (i: number) => {
    const dir = path.join(dataRoot, `member-${i}`);
    fs.mkdirSync(dir);
    return dir;
  };

  const auth = options.auth
    ? {
        enable: true,
        customRootName: options.auth.username,
        customRootPwd: options.auth.password,
        // mongodb-memory-server's default keyfile content is a fixed "0123456789".
        keyfileContent: newKeyFileContent(),
      }
    : undefined;
  // Always WiredTiger: without an engine, mongodb-memory-server's getStorageEngine (lib/util/utils.js)
  // picks "ephemeralForTest" below 7.0, an in-memory test engine nobody runs in production.
  const storageEngine = EMBEDDED_STORAGE_ENGINE;
  // Every member of the set runs on this host: each gets its share of the WiredTiger cache, as launched
  // clusters do (cache-size.ts), instead of mongod's default half of (RAM - 1 GB) each.
  const cacheSizeGb =
    options.topology === 'replset' ? cacheSizeGbPerMongod(os.totalmem(), replicas) : undefined;
  const starting: Promise<{ uri: string; stop: () => Promise<unknown> }> =
    options.topology === 'standalone'
      ? MongoMemoryServer.create({
          binary: binaryOptions,
          instance: { ip: '127.0.0.1', dbPath: memberDir(0), launchTimeout, storageEngine },
          ...(auth ? { auth } : {}),
        }).then((server) => ({
          uri: server.getUri(),
          stop: () => server.stop({ doCleanup: true, force: true }),
        }))
      : MongoMemoryReplSet.create({
          binary: binaryOptions,
          replSet: {
            count: replicas,
            ip: '127.0.0.1',
            storageEngine,
            args: [CACHE_SIZE_ARG, String(cacheSizeGb)],
            ...(auth ? { auth } : {}),
          },
          instanceOpts: Array.from({ length: replicas }, (_, i) => ({
            dbPath: memberDir(i),
            launchTimeout,
            storageEngine,
          })),
        }).then((set) => ({
          uri: set.getUri(),
          stop: () => set.stop({ doCleanup: true, force: true }),
        }));

  let started: { uri: string; stop: () => Promise<unknown> };
  try {
    started = await untilAborted(starting, options.signal);
  } catch (err) {
    if (isAbortError(err)) {
      // Whatever still comes up is stopped, and its data removed, once it is there.
      void starting
        .then(
          (late) => late.stop(),
          () => undefined,
        )
        .catch(() => undefined)
        .finally(removeData);
      throw err;
    }
    removeData();
    throw new RunError(
      redactText(
        `the embedded ${options.topology === 'standalone' ? 'MongoDB' : `replica set (${replicas} members)`} did not start with ${binary}: ${firstLineOf(err)}`,
        [options.auth?.password, auth?.keyfileContent],
      ),
    );
  }
  let stopped: Promise<void> | undefined;
  return {
    uri: redactUri(started.uri),
    binary,
    version,
    storageEngine,
    ...dropUndefined({ cacheSizeGb }),
    stop: () =>
      (stopped ??= started.stop().then(removeData, (err: unknown) => {
        removeData();
        throw err;
      })),
  };
}

/** "7.0.14" from `mongod --version` ("db version v7.0.14"); a UsageError when it is not a mongod. */
export function mongodVersion(binary: string): string {
  return serverBinaryVersion(binary, 'mongod');
}

/**
 * The version a mongod or mongos binary prints with --version: "db version v7.0.14" for mongod,
 * "mongos version v7.0.14" for mongos (src/mongo/util/version.cpp, mongodVersion and mongosVersion).
 */
export function serverBinaryVersion(binary: string, kind: 'mongod' | 'mongos'): string {
  const run = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 15_000 });
  const label = kind === 'mongod' ? 'db' : 'mongos';
  const match = new RegExp(`^\\s*${label}\\s+version\\s+v?(\\d+\\.\\d+\\.\\d+)`, 'im').exec(
    run.stdout ?? '',
  );
  if (match) return match[1];
  const why = run.error
    ? run.error.message
    : `it printed ${JSON.stringify((run.stdout || run.stderr || '').trim().slice(0, 200))}`;
  throw new UsageError(
    `${binary} does not look like a ${kind}: \`${binary} --version\` gave no "${label} version vX.Y.Z" line (${why})`,
  );
}

/** MONGOMS_SYSTEM_BINARY, mongodb-memory-server's cache, or its download; else the clear error. */
async function locateMongod(): Promise<string> {
  try {
    return await MongoBinary.getPath();
  } catch (err) {
    throw new RunError(
      `no mongod binary for the embedded MongoDB: ${describeDownloadFailure(err)}. Nothing was run.\n${NO_MONGOD_HELP}`,
    );
  }
}

function describeDownloadFailure(err: unknown): string {
  const e = err as { message?: string; code?: string; url?: string };
  if (e.url && e.code)
    return `mongodb-memory-server could not download ${e.url} (${e.code}; offline?)`;
  return `mongodb-memory-server could not provide one (${firstLineOf(err)})`;
}

/** An error's first line (mongodb-memory-server's messages carry its whole log). */
function firstLineOf(err: unknown): string {
  return messageOf(err).split('\n')[0];
}

function abortError(): RunError {
  const err = new RunError('embedded MongoDB start interrupted');
  err.name = 'AbortError';
  return err;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError();
}

/** Resolves like `work`, or rejects as soon as `signal` aborts (the work itself carries on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError());
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (!signal.aborted) resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (!signal.aborted) reject(err);
      },
    );
  });
}
