/**
 * Stand-ins for mongod and mongos (test/support/fake-bin/mongod, .../mongos): a behavioural model of
 * the parts of the real servers that mongo-bench relies on, each rule following the server's source
 * (repository mongodb/mongo) or documentation; the table is in docs/testing.md. They store no data.
 *
 *   options.ts      command line: real option sets, refusals and exit codes
 *   fork.ts         --fork: detached child from /, parent waits for readiness
 *   replication.ts  replSetInitiate validation, election, drain mode, secondaries
 *   sharding.ts     mongos catalog: shards, databases, collections, chunks, balancer
 *   strict.ts       IDL strict parsing (40415)
 *   shutdown.ts     step-down and quiesce on a signalled shutdown
 *   auth.ts         localhost exception, SCRAM-SHA-256 users, Unauthorized
 *   commands.ts     the handlers wiring it together
 *   version.ts      MONGO_BENCH_FAKE_VERSION and what depends on it
 *
 * Environment:
 *   MONGO_BENCH_FAKE_VERSION      server version to pose as (4.4.x, 5.0.x, 6.0.x, 7.0.x, 8.0.x; default 7.0.14)
 *   MONGO_BENCH_FAKE_ELECTION_MS  replSetInitiate to PRIMARY (drain mode); default 400
 *   MONGO_BENCH_FAKE_DRAIN_MS     drain mode to writable PRIMARY; default 200
 *   MONGO_BENCH_FAKE_RECORD_DIR   write <dir>/<kind>-<port>.jsonl: one line per command received, plus
 *                                 {"event":"SIGTERM"|"SIGINT"|"shutdown","at":ms} when asked to stop;
 *                                 and <dir>/<kind>-<port>.process.json: {pid, argv}.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startRecordingServer, type RecordingServer } from '../recording-server';
import { AccessControl } from './auth';
import { buildHandlers } from './commands';
import { FORKED_FROM_ENV, forkAndWait, isForkedChild, signalForkSuccess } from './fork';
import { makeLogger, makeRecorder, type Logger } from './log';
import { StartupError, storeOptions, type FakeOptions, type Kind } from './options';
import { helloOn, sleep } from './peers';
import { ReplicaSetNode } from './replication';
import { ShardingCatalog } from './sharding';
import { shutdownWaits, type Quiesce } from './shutdown';
import { fakeVersionFromEnv, type ServerVersion } from './version';

export { storeOptions } from './options';

/** ExitCode values (src/mongo/util/exit_code.h): fail 1, dataDirNotFound ("Data directory ... not found") 100, netError 48. */
const EXIT_FAIL = 1;
const EXIT_NET_ERROR = 48;
const EXIT_DBPATH_NOT_FOUND = 100;

function die(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function parse(kind: Kind): { version: ServerVersion; options: FakeOptions } {
  let version: ServerVersion;
  try {
    version = fakeVersionFromEnv();
  } catch (e) {
    die(`fake ${kind}: ${(e as Error).message}`, 2);
  }
  try {
    // A forked child resolves paths against the parent's folder (made absolute before the fork).
    const options = storeOptions(kind, version, process.argv.slice(2), process.env[FORKED_FROM_ENV] ?? process.cwd());
    return { version, options };
  } catch (e) {
    if (!(e instanceof StartupError)) throw e;
    // options_parser_init.cpp: the reason, then "try '<argv[0]> --help' for more information".
    die(`${e.message}\ntry '${kind} --help' for more information`, e.exitCode);
  }
}

/** Opens the log like the real server: the folder must exist; without --logappend an old log is renamed. */
function openLog(options: FakeOptions): void {
  if (!options.logPath) return;
  if (!fs.existsSync(path.dirname(options.logPath))) {
    die(`Failed global initialization: FileNotOpen: Failed to open "${options.logPath}"`, EXIT_FAIL);
  }
  if (!options.logAppend && fs.existsSync(options.logPath)) {
    fs.renameSync(options.logPath, `${options.logPath}.${new Date().toISOString().replace(/:/g, '-')}`);
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
    log('E', 'CONTROL', 23330, 'ERROR: Cannot write pid file', { path: path.resolve(options.pidFilePath), error: (e as Error).message });
    process.exit(EXIT_FAIL);
  }
}

/**
 * The keyfile is read in initializeServerGlobalState (after the fork, so a --fork parent reports
 * "child process failed, exited with 1") by setUpSecurityKey -> readSecurityFile
 * (src/mongo/db/auth/security_file.cpp): a file that cannot be stat'ed ("Error reading file <f>:
 * <strerror>"), one with any group or other permission bit ("permissions on <f> are too open"), or
 * a character outside base64 and whitespace ("invalid char in key file <f>: <c>") is refused, and
 * the server exits with ExitCode::fail (1).
 */
function checkKeyFile(options: FakeOptions, log: Logger): void {
  if (!options.keyFile) return;
  const file = options.keyFile;
  const refuse = (error: string) => {
    log('E', 'ACCESS', 20255, 'Read security file failed', { error: { code: 2, codeName: 'InvalidPath', errmsg: error } });
    process.exit(EXIT_FAIL);
  };
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return refuse(`Error reading file ${file}: ${code === 'ENOENT' ? 'No such file or directory' : (e as Error).message}`);
  }
  if ((stat.mode & 0o077) !== 0) return refuse(`permissions on ${file} are too open`);
  const bad = /[^A-Za-z0-9+/=\s]/.exec(fs.readFileSync(file, 'latin1'));
  if (bad) return refuse(`invalid char in key file ${file}: ${bad[0]}`);
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
    if (hellos.some((h) => h?.setName === configDb.setName && (h.ismaster === true || h.isWritablePrimary === true))) return;
    if (!logged) {
      log('I', 'SHARDING', 22727, 'Waiting for the config server replica set to be initiated', { configdb: configDb });
      logged = true;
    }
    await sleep(250);
  }
}

export async function main(kind: Kind): Promise<void> {
  const { version, options } = parse(kind);
  if (options.showVersion) {
    // mongodb-memory-server and the launcher run `mongod --version` and parse this line.
    process.stdout.write(`${kind === 'mongod' ? 'db' : 'mongos'} version v${version.text}\n`);
    return;
  }
  if (options.fork && !isForkedChild()) await forkAndWait(process.argv[1], options.argv);

  openLog(options);
  const log = makeLogger(options);
  writePidFile(options, log);
  checkKeyFile(options, log);
  if (kind === 'mongod' && !fs.existsSync(options.dbPath)) {
    // src/mongo/db/mongod_main.cpp (_initAndListen): "Data directory ... not found", ExitCode 100.
    log('E', 'STORAGE', 22312, `Data directory ${options.dbPath} not found. Create the missing directory or specify another path using (1) the --dbpath command line option, or (2) by adding the 'storage.dbPath' option in the configuration file.`);
    process.exit(EXIT_DBPATH_NOT_FOUND);
  }
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
    const waits = why === 'shutdown' ? { stepDownMs: 0, quiesceMs: 0 } : await shutdownWaits(options, repl);
    if (waits.stepDownMs > 0) {
      log('I', 'REPL', 4784900, 'Stepping down the ReplicationCoordinator for shutdown', { waitTime: waits.stepDownMs });
      await sleep(waits.stepDownMs);
      log('W', 'REPL', 4719000, 'Error stepping down during force shutdown', { error: 'ExceededTimeLimit: No electable secondaries caught up' });
    }
    if (waits.quiesceMs > 0) {
      quiesce.active = true;
      log('I', 'REPL', 4695102, 'Entering quiesce mode for shutdown', { quiesceTimeMillis: waits.quiesceMs });
      await sleep(waits.quiesceMs);
    }
    log('I', 'CONTROL', 20565, 'Now exiting', { reason: why });
    if (server) {
      recorder.flush(server);
      await server.stop().catch(() => undefined);
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void exit('SIGTERM'));
  process.on('SIGINT', () => void exit('SIGINT'));

  const handlers = buildHandlers({ options, log, repl, catalog, quiesce, access, exit: (why) => void exit(why) });
  try {
    server = await startRecordingServer({ port: options.port, host: options.listenHost, handlers });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    log('E', 'NETWORK', 22856, 'Error setting up listener', { error: { code: e.code, errmsg: e.message } });
    process.exit(e.code === 'EADDRINUSE' ? EXIT_NET_ERROR : EXIT_FAIL);
  }
  const started = server;
  setInterval(() => recorder.flush(started), 50);
  log('I', 'NETWORK', 23016, 'Waiting for connections', { port: options.port, ssl: 'off' });
  signalForkSuccess();
}
