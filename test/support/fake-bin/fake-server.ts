/**
 * Stand-ins for mongod and mongos (test/support/fake-bin/mongod, .../mongos): they take the
 * command line a real one would, start the recording server on --port, log like mongod
 * ("Waiting for connections", JSON, to stdout or --logpath), answer the few replica-set and
 * sharding commands a setup plan sends, and exit cleanly on SIGTERM/SIGINT or `shutdown`.
 * They are NOT MongoDB: no data, no elections, no replication. See docs/launcher.md.
 *
 * Environment:
 *   MONGO_BENCH_FAKE_RECORD_DIR  write <dir>/<kind>-<port>.jsonl: one line per command received,
 *                                plus {"event":"SIGTERM"|"SIGINT"|"shutdown","at":ms} when asked to stop;
 *                                and <dir>/<kind>-<port>.process.json: {pid, argv}.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BSON } from 'mongodb';
import { startRecordingServer, type RecordingServer } from '../recording-server';

type Doc = Record<string, unknown>;
type Kind = 'mongod' | 'mongos';

interface FakeOptions {
  kind: Kind;
  port: number;
  /** Where we listen: loopback only, whatever --bind_ip says (test servers never leave the machine). */
  listenHost: string;
  /** The host:port we call ourselves (`me` in hello, members in replSetGetStatus). */
  me: string;
  logPath?: string;
  dbPath?: string;
  replSet?: string;
  clusterRole?: 'configsvr' | 'shardsvr';
  configDb?: string;
  version: boolean;
  fork: boolean;
  argv: string[];
}

const VERSION = '7.0.0';
const MAX_WIRE_VERSION = 21;

export function parseArgs(kind: Kind, argv: string[]): FakeOptions {
  const value = (name: string): string | undefined => {
    for (let i = 0; i < argv.length; i++) {
      if (argv[i] === name) return argv[i + 1];
      if (argv[i].startsWith(`${name}=`)) return argv[i].slice(name.length + 1);
    }
    return undefined;
  };
  const flag = (name: string) => argv.includes(name);
  const port = Number(value('--port') ?? (kind === 'mongod' && flag('--configsvr') ? 27019 : 27017));
  const bindIp = value('--bind_ip')?.split(',')[0]?.trim();
  const advertised = bindIp && bindIp !== '0.0.0.0' && bindIp !== '::' ? bindIp : '127.0.0.1';
  return {
    kind,
    port,
    listenHost: advertised === 'localhost' || advertised.startsWith('127.') ? advertised : '127.0.0.1',
    me: `${advertised}:${port}`,
    logPath: value('--logpath'),
    dbPath: value('--dbpath'),
    replSet: value('--replSet'),
    clusterRole: flag('--configsvr') ? 'configsvr' : flag('--shardsvr') ? 'shardsvr' : undefined,
    configDb: value('--configdb'),
    version: flag('--version'),
    fork: flag('--fork'),
    argv,
  };
}

/** Writes mongod-style JSON log lines to --logpath (appending) or stdout. */
function makeLogger(options: FakeOptions): (severity: string, component: string, id: number, msg: string, attr?: Doc) => void {
  return (severity, component, id, msg, attr = {}) => {
    const line = `${JSON.stringify({ t: { $date: new Date().toISOString() }, s: severity, c: component, id, ctx: 'listener', msg, attr })}\n`;
    if (options.logPath) fs.appendFileSync(options.logPath, line);
    else process.stdout.write(line);
  };
}

/** Appends what the server receives to <dir>/<kind>-<port>.jsonl, when asked to. */
function makeRecorder(options: FakeOptions): { event(name: string): void; flush(server: RecordingServer): void } {
  const dir = process.env.MONGO_BENCH_FAKE_RECORD_DIR;
  if (!dir) return { event: () => undefined, flush: () => undefined };
  fs.mkdirSync(dir, { recursive: true });
  const base = path.join(dir, `${options.kind}-${options.port}`);
  fs.writeFileSync(`${base}.process.json`, JSON.stringify({ pid: process.pid, argv: options.argv }));
  let written = 0;
  return {
    // performance.timeOrigin + now(): sub-millisecond, comparable across processes.
    event: (name) => fs.appendFileSync(`${base}.jsonl`, `${JSON.stringify({ event: name, at: performance.timeOrigin + performance.now() })}\n`),
    flush: (server) => {
      const fresh = server.commands.slice(written);
      written = server.commands.length;
      if (fresh.length === 0) return;
      const lines = fresh.map((c) => BSON.EJSON.stringify({ db: c.db, name: c.name, body: c.body, at: c.at }, { relaxed: true }));
      fs.appendFileSync(`${base}.jsonl`, `${lines.join('\n')}\n`);
    },
  };
}

interface ReplState {
  config?: Doc;
}

function memberHosts(config: Doc | undefined): string[] {
  const members = Array.isArray(config?.members) ? (config.members as Doc[]) : [];
  return members.map((m) => String(m.host));
}

export async function main(kind: Kind): Promise<void> {
  const options = parseArgs(kind, process.argv.slice(2));
  if (options.version) {
    // mongodb-memory-server runs `mongod --version` and parses this line.
    process.stdout.write(`${kind === 'mongod' ? 'db' : 'mongos'} version v${VERSION}\n`);
    return;
  }
  const log = makeLogger(options);
  if (options.fork) {
    process.stderr.write('fake server: --fork is not supported\n');
    process.exit(2);
  }
  if (options.logPath && !fs.existsSync(path.dirname(options.logPath))) {
    process.stderr.write(`Failed to open log file ${options.logPath}: No such file or directory\n`);
    process.exit(1);
  }
  if (kind === 'mongod') {
    // A real mongod refuses to start without its data directory; so do we (the launcher must create it).
    const dbPath = options.dbPath ?? '/data/db';
    if (!fs.existsSync(dbPath)) {
      log('E', 'STORAGE', 22312, `Data directory ${dbPath} not found. Create the missing directory or specify another path using (1) the --dbpath command line option, or (2) by adding the 'storage.dbPath' option in the configuration file.`);
      process.exit(100);
    }
  }
  if (kind === 'mongos' && !options.configDb) {
    process.stderr.write('BadValue: error: no args for --configdb\n');
    process.exit(2);
  }

  const recorder = makeRecorder(options);
  const repl: ReplState = {};
  const shards: Doc[] = [];
  let connectionIds = 1;
  const processId = new BSON.ObjectId();
  let server: RecordingServer | undefined;

  const helloReply = (legacy: boolean): Doc => {
    const reply: Doc = {
      ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
      helloOk: true,
      topologyVersion: { processId, counter: BSON.Long.ZERO },
      maxBsonObjectSize: 16 * 1024 * 1024,
      maxMessageSizeBytes: 48_000_000,
      maxWriteBatchSize: 100_000,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: 30,
      connectionId: connectionIds++,
      minWireVersion: 0,
      maxWireVersion: MAX_WIRE_VERSION,
      readOnly: false,
      ok: 1,
    };
    if (kind === 'mongos') return { ...reply, msg: 'isdbgrid' };
    if (options.clusterRole === 'configsvr') reply.configsvr = 2;
    if (!options.replSet) return reply;
    const primaryKey = legacy ? 'ismaster' : 'isWritablePrimary';
    if (!repl.config) {
      // What a replica-set member answers before replSetInitiate.
      return { ...reply, [primaryKey]: false, secondary: false, isreplicaset: true, info: 'Does not have a valid replica set config' };
    }
    return {
      ...reply,
      [primaryKey]: true,
      secondary: false,
      setName: options.replSet,
      setVersion: 1,
      hosts: memberHosts(repl.config),
      primary: options.me,
      me: options.me,
    };
  };

  const notReplSet = { ok: 0, errmsg: 'not running with --replSet', code: 76, codeName: 'NoReplicationEnabled' };
  const mongosOnly = (name: string) => ({ ok: 0, errmsg: `no such command: '${name}'`, code: 59, codeName: 'CommandNotFound' });

  let balancerMode: 'full' | 'off' = 'full';

  const handlers: Record<string, (body: Doc, db: string) => Doc | undefined> = {
    hello: () => helloReply(false),
    isMaster: () => helloReply(true),
    ismaster: () => helloReply(true),
    getCmdLineOpts: () => ({
      argv: [kind, ...options.argv],
      parsed: {
        net: { port: options.port, bindIp: options.listenHost },
        ...(options.dbPath ? { storage: { dbPath: options.dbPath } } : {}),
        ...(options.replSet ? { replication: { replSet: options.replSet } } : {}),
        ...(options.clusterRole ? { sharding: { clusterRole: options.clusterRole } } : {}),
        ...(options.configDb ? { sharding: { configDB: options.configDb } } : {}),
      },
      ok: 1,
    }),
    replSetInitiate: (body) => {
      if (kind === 'mongos') return mongosOnly('replSetInitiate');
      if (!options.replSet) return notReplSet;
      if (repl.config) return { ok: 0, errmsg: 'already initialized', code: 23, codeName: 'AlreadyInitialized' };
      const given = body.replSetInitiate;
      // Like mongod, an empty or missing config means "a set of just me".
      const config: Doc = {
        _id: options.replSet,
        members: [{ _id: 0, host: options.me }],
        ...(given && typeof given === 'object' ? (given as Doc) : {}),
      };
      if (config._id !== options.replSet) {
        return { ok: 0, errmsg: `Attempting to initiate a replica set with name ${String(config._id)}, but command line reports ${options.replSet}; rejecting`, code: 93, codeName: 'InvalidReplicaSetConfig' };
      }
      repl.config = { version: 1, term: 1, ...config };
      // The line mongodb-memory-server waits for; a real node logs it once elected.
      log('I', 'REPL', 21331, 'Transition to primary complete; database writes are now permitted', {});
      return { ok: 1 };
    },
    replSetGetConfig: () => {
      if (!options.replSet) return notReplSet;
      if (!repl.config) return { ok: 0, errmsg: 'no replset config has been received', code: 94, codeName: 'NotYetInitialized' };
      return { config: repl.config, ok: 1 };
    },
    replSetGetStatus: () => {
      if (kind === 'mongos') return mongosOnly('replSetGetStatus');
      if (!options.replSet) return notReplSet;
      if (!repl.config) return { ok: 0, errmsg: 'no replset config has been received', code: 94, codeName: 'NotYetInitialized' };
      // The node that took replSetInitiate calls itself PRIMARY, the others SECONDARY: enough for
      // "wait until a primary" loops; there is no real election or replication behind it.
      const members = (repl.config.members as Doc[]).map((m, i) => {
        const self = m.host === options.me;
        return { _id: m._id ?? i, name: m.host, health: 1, state: self ? 1 : 2, stateStr: self ? 'PRIMARY' : 'SECONDARY', self };
      });
      return { set: options.replSet, date: new Date(), myState: 1, members, ok: 1 };
    },
    addShard: (body) => {
      if (kind !== 'mongos') return mongosOnly('addShard');
      const spec = String(body.addShard);
      const slash = spec.indexOf('/');
      const id = typeof body.name === 'string' ? body.name : slash > 0 ? spec.slice(0, slash) : `shard${shards.length}`;
      if (shards.some((s) => s._id === id)) return { ok: 0, errmsg: `shard ${id} already exists`, code: 11000, codeName: 'DuplicateKey' };
      shards.push({ _id: id, host: spec, state: 1 });
      return { shardAdded: id, ok: 1 };
    },
    // applyPlan checks local.system.replset to skip an initiate that is done; other finds get the empty default.
    find: (body, db) =>
      db === 'local' && body.find === 'system.replset' && repl.config
        ? { cursor: { id: BSON.Long.ZERO, ns: 'local.system.replset', firstBatch: [repl.config] }, ok: 1 }
        : undefined,
    balancerStatus: () => (kind === 'mongos' ? { mode: balancerMode, inBalancerRound: false, numBalancerRounds: 0, ok: 1 } : mongosOnly('balancerStatus')),
    balancerStop: () => (kind === 'mongos' ? ((balancerMode = 'off'), { ok: 1 }) : mongosOnly('balancerStop')),
    balancerStart: () => (kind === 'mongos' ? ((balancerMode = 'full'), { ok: 1 }) : mongosOnly('balancerStart')),
    listShards: () => (kind === 'mongos' ? { shards, ok: 1 } : mongosOnly('listShards')),
    shutdown: () => {
      // A real server drops the connection instead of replying; close right after this reply.
      setTimeout(() => void exit('shutdown'), 20);
      return { ok: 1 };
    },
  };

  let exiting = false;
  const exit = async (why: string) => {
    if (exiting) return;
    exiting = true;
    recorder.event(why);
    log('I', 'CONTROL', 20565, 'Now exiting', { reason: why });
    if (server) {
      recorder.flush(server);
      await server.stop().catch(() => undefined);
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void exit('SIGTERM'));
  process.on('SIGINT', () => void exit('SIGINT'));

  try {
    server = await startRecordingServer({ port: options.port, host: options.listenHost, handlers });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    log('E', 'NETWORK', 22856, 'Error setting up listener', { error: { code: e.code, errmsg: e.message } });
    process.exit(e.code === 'EADDRINUSE' ? 48 : 1);
  }
  const started = server;
  setInterval(() => recorder.flush(started), 50);
  log('I', 'NETWORK', 23016, 'Waiting for connections', { port: options.port, ssl: 'off' });
}
