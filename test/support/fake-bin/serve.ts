/**
 * The stand-in server after its command line was accepted (and, with --fork, in the forked child):
 * log and pid file, key file, listener, replication and sharding state, signalled shutdown. See
 * fake-server.ts, which loads this module only once it is needed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startRecordingServer, type RecordingServer } from '../recording-server';
import { AccessControl } from './auth';
import { buildHandlers } from './commands';
import { signalForkSuccess } from './fork';
import { makeLogger, makeRecorder, type Logger } from './log';
import type { FakeOptions, Kind } from './options';
import { helloOn, sleep } from './peers';
import { ReplicaSetNode } from './replication';
import { ShardingCatalog } from './sharding';
import { shutdownWaits, type Quiesce } from './shutdown';
import { lockDataDir } from './lock-file';

/** ExitCode values (src/mongo/util/exit_code.h): fail 1, dataDirNotFound ("Data directory ... not found") 100, netError 48. */
const EXIT_FAIL = 1;
const EXIT_NET_ERROR = 48;
const EXIT_DBPATH_NOT_FOUND = 100;

/** Opens the log like the real server: the folder must exist; without --logappend an old log is renamed. */
function openLog(options: FakeOptions): void {
  if (!options.logPath) return;
  if (!fs.existsSync(path.dirname(options.logPath))) {
    process.stderr.write(
      `Failed global initialization: FileNotOpen: Failed to open "${options.logPath}"\n`,
    );
    process.exit(EXIT_FAIL);
  }
  if (!options.logAppend && fs.existsSync(options.logPath)) {
    fs.renameSync(
      options.logPath,
      `${options.logPath}.${new Date().toISOString().replace(/:/g, '-')}`,
    );
  }
}

/**
 * writePidFile (src/mongo/util/processinfo.cpp), called from initializeServerGlobalState after the
 * fork: opens the path as given, relative to the current folder, which is / in a forked child.
 */
function writePidFile(options: FakeOptions, log: Logger): void {
  if (!options.pidFilePath) return;
  try {
    fs.writeFileSync(options.pidFilePath, `${process.pid}\n`);
  } catch (e) {
    log('E', 'CONTROL', 23330, 'ERROR: Cannot write pid file', {
      path: path.resolve(options.pidFilePath),
      error: (e as Error).message,
    });
    process.exit(EXIT_FAIL);
  }
}

/** The keyfile's length limits: kMinKeyLength, kMaxKeyLength (src/mongo/db/auth/security_key.cpp). */
export const KEY_MIN_LENGTH = 6;
export const KEY_MAX_LENGTH = 1024;

/**
 * The keyfile is read in initializeServerGlobalState (after the fork, so a --fork parent reports
 * "child process failed, exited with 1") by setUpSecurityKey -> readSecurityFile
 * (src/mongo/db/auth/security_file.cpp, the YAML version of 4.2+), and the server exits with
 * ExitCode::fail (1) when it fails:
 * - a file that cannot be stat'ed: InvalidPath (30) "Error reading file <f>: <strerror>";
 * - any group or other permission bit: InvalidPath "permissions on <f> are too open";
 * - YAML that is neither a string nor a sequence (an empty file is a null node): UnsupportedFormat (12)
 *   "Only strings and sequences are supported for YAML key files";
 * - a character outside base64 and whitespace in the key: UnsupportedFormat
 *   "invalid char in key file <f>: <the key as YAML read it>" (stripString; the newest source read
 *   drops the ": <key>" part, in a release after 8.0 not pinned);
 * these are logged as id 20254 "Read security file failed" (severity I) with the error, as real
 * servers log them. Then setUpSecurityKey's CredentialsGenerator (security_key.cpp) refuses a key
 * (whitespace stripped) shorter than 6 or longer than 1024 characters: LOGV2_ERROR 20255 "Security
 * key size is out range". A plain one-line file is one YAML scalar; its lines are folded with spaces
 * (a YAML plain scalar), which stripString then removes.
 */
function checkKeyFile(options: FakeOptions, log: Logger): void {
  if (!options.keyFile) return;
  const file = options.keyFile;
  const refuse = (code: number, codeName: string, errmsg: string) => {
    log('I', 'ACCESS', 20254, 'Read security file failed', { error: { code, codeName, errmsg } });
    process.exit(EXIT_FAIL);
  };
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return refuse(
      30,
      'InvalidPath',
      `Error reading file ${file}: ${code === 'ENOENT' ? 'No such file or directory' : (e as Error).message}`,
    );
  }
  if ((stat.mode & 0o077) !== 0)
    return refuse(30, 'InvalidPath', `permissions on ${file} are too open`);
  const scalar = fs
    .readFileSync(file, 'latin1')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join(' ');
  if (scalar === '')
    return refuse(
      12,
      'UnsupportedFormat',
      'Only strings and sequences are supported for YAML key files',
    );
  if (/[^A-Za-z0-9+/=\s]/.test(scalar))
    return refuse(12, 'UnsupportedFormat', `invalid char in key file ${file}: ${scalar}`);
  const key = scalar.replace(/\s/g, '');
  if (key.length < KEY_MIN_LENGTH || key.length > KEY_MAX_LENGTH) {
    log('E', 'ACCESS', 20255, 'Security key size is out range', {
      filename: file,
      size: key.length,
      minimumLength: KEY_MIN_LENGTH,
      maximumLength: KEY_MAX_LENGTH,
    });
    process.exit(EXIT_FAIL);
  }
}

/**
 * mongos loads the cluster settings from the config servers before it listens and before it
 * releases a --fork parent (src/mongo/s/mongos_main.cpp, runMongosServer -> initializeSharding),
 * retrying without a limit. initializeSharding waits in loadGlobalSettingsFromConfigServer for
 * config.version (the cluster id) and in waitForSigningKeys for admin.system.keys: both are
 * written by the config server replica set's PRIMARY once it is writable (the cluster id on its
 * first step-up; the keys by its KeysCollectionManager), so a config server that answers only as
 * SECONDARY is not enough. Modelled as: it goes on once a member of the named set is a writable primary.
 */
async function waitForConfigServers(options: FakeOptions, log: Logger): Promise<void> {
  const configDb = options.configDb!;
  let logged = false;
  for (;;) {
    const hellos = await Promise.all(configDb.hosts.map((h) => helloOn(h)));
    if (
      hellos.some(
        (h) =>
          h?.setName === configDb.setName && (h.ismaster === true || h.isWritablePrimary === true),
      )
    )
      return;
    if (!logged) {
      log('I', 'SHARDING', 22727, 'Waiting for the config server replica set to be initiated', {
        configdb: configDb,
      });
      logged = true;
    }
    await sleep(250);
  }
}

export async function serve(kind: Kind, options: FakeOptions): Promise<void> {
  openLog(options);
  const log = makeLogger(options);
  writePidFile(options, log);
  checkKeyFile(options, log);
  if (kind === 'mongod' && !fs.existsSync(options.dbPath)) {
    // src/mongo/db/mongod_main.cpp (_initAndListen): "Data directory ... not found", ExitCode 100.
    log(
      'E',
      'STORAGE',
      22312,
      `Data directory ${options.dbPath} not found. Create the missing directory or specify another path using (1) the --dbpath command line option, or (2) by adding the 'storage.dbPath' option in the configuration file.`,
    );
    process.exit(EXIT_DBPATH_NOT_FOUND);
  }
  // Taken once the listener is set up, as mongod does (src/mongo/db/mongod_main.cpp, _initAndListen: the
  // transport layer's setup(), "Error setting up listener" and netError 48, comes before the storage
  // engine's start and its lock file): a second mongod on the same port and dbpath exits 48, not 100.
  let unlock = (): void => undefined;
  if (kind === 'mongos') await waitForConfigServers(options, log);

  const recorder = makeRecorder(options);
  const access = new AccessControl(options.auth);
  const repl = new ReplicaSetNode(options, log, access);
  const catalog = kind === 'mongos' ? new ShardingCatalog(options) : undefined;
  const quiesce: Quiesce = { active: false };
  let server: RecordingServer | undefined;
  let exiting = false;
  const exit = async (why: string) => {
    if (exiting) return;
    exiting = true;
    recorder.event(why);
    if (why === 'shutdown') {
      // The shutdown command has begun shutting down before it replies, so a signal that arrives now
      // joins it instead of starting a quiesce (src/mongo/util/exit.cpp, shutdown(): "an additional
      // shutdown request arrived"). The short wait only lets the reply go out.
      await sleep(20);
    }
    const waits =
      why === 'shutdown' ? { stepDownMs: 0, quiesceMs: 0 } : await shutdownWaits(options, repl);
    if (waits.stepDownMs > 0) {
      log('I', 'REPL', 4784900, 'Stepping down the ReplicationCoordinator for shutdown', {
        waitTime: waits.stepDownMs,
      });
      await sleep(waits.stepDownMs);
      log('W', 'REPL', 4719000, 'Error stepping down during force shutdown', {
        error: 'ExceededTimeLimit: No electable secondaries caught up',
      });
    }
    if (waits.quiesceMs > 0) {
      quiesce.active = true;
      log('I', 'REPL', 4695102, 'Entering quiesce mode for shutdown', {
        quiesceTimeMillis: waits.quiesceMs,
      });
      await sleep(waits.quiesceMs);
    }
    log('I', 'CONTROL', 20565, 'Now exiting', { reason: why });
    if (server) {
      recorder.flush(server);
      await server.stop().catch(() => undefined);
    }
    unlock();
    process.exit(0);
  };
  process.on('SIGTERM', () => void exit('SIGTERM'));
  process.on('SIGINT', () => void exit('SIGINT'));

  const handlers = buildHandlers({
    options,
    log,
    repl,
    catalog,
    quiesce,
    access,
    exit: (why) => void exit(why),
  });
  try {
    server = await startRecordingServer({ port: options.port, host: options.listenHost, handlers });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    log('E', 'NETWORK', 22856, 'Error setting up listener', {
      error: { code: e.code, errmsg: e.message },
    });
    process.exit(e.code === 'EADDRINUSE' ? EXIT_NET_ERROR : EXIT_FAIL);
  }
  if (kind === 'mongod') unlock = lockDataDir(options.dbPath, log);
  const started = server;
  setInterval(() => recorder.flush(started), 50);
  repl.rejoin();
  log('I', 'NETWORK', 23016, 'Waiting for connections', { port: options.port, ssl: 'off' });
  signalForkSuccess();
}
