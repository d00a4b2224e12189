/**
 * The command handlers of a stand-in: hello/isMaster/buildInfo per version, the replica-set
 * commands (replication.ts), the mongos catalog (sharding.ts), writes that need a writable primary,
 * and shutdown. Anything else falls back to the recording server's default reply.
 */
import { BSON } from 'mongodb';
import type { CommandHandler } from '../recording-server';
import type { AccessControl } from './auth';
import type { Logger } from './log';
import type { FakeOptions } from './options';
import { HEARTBEAT_COMMAND, type ReplicaSetNode } from './replication';
import type { ShardingCatalog } from './sharding';
import type { Quiesce } from './shutdown';
import { features, maxWireVersion } from './version';

type Doc = Record<string, unknown>;

const err = (code: number, codeName: string, errmsg: string): Doc => ({
  ok: 0,
  errmsg,
  code,
  codeName,
});
/** CommandNotFound as src/mongo/db/service_entry_point_common.cpp words it. */
export const commandNotFound = (name: string): Doc =>
  err(59, 'CommandNotFound', `no such command: '${name}'`);

/** Commands that write, and so need a writable primary (src/mongo/db/repl: canAcceptWritesFor). */
const WRITE_COMMANDS = [
  'insert',
  'update',
  'delete',
  'findAndModify',
  'create',
  'createIndexes',
  'drop',
  'dropDatabase',
  'updateUser',
  'createRole',
];

export interface CommandContext {
  options: FakeOptions;
  log: Logger;
  repl: ReplicaSetNode;
  catalog?: ShardingCatalog;
  quiesce: Quiesce;
  access: AccessControl;
  exit(why: string): void;
}

export function buildHandlers(ctx: CommandContext): Record<string, CommandHandler> {
  const { options, repl, catalog } = ctx;
  const f = features(options.version);
  const processId = new BSON.ObjectId();
  let connectionIds = 1;
  const mongos = options.kind === 'mongos';
  const mongodOnly = (name: string, fn: CommandHandler): CommandHandler =>
    mongos ? () => commandNotFound(name) : fn;
  const mongosOnly = (name: string, fn: CommandHandler): CommandHandler =>
    mongos ? fn : () => commandNotFound(name);

  const helloReply = (legacy: boolean): Doc => {
    // In quiesce mode hello fails with ShutdownInProgress (replication_coordinator.h enterQuiesceModeIfSecondary;
    // mongos: mongos_topology_coordinator.cpp).
    if (ctx.quiesce.active)
      return err(91, 'ShutdownInProgress', 'The server is in quiesce mode and will shut down');
    const base: Doc = {
      helloOk: true,
      topologyVersion: { processId, counter: BSON.Long.fromNumber(repl.topologyCounter) },
      maxBsonObjectSize: 16 * 1024 * 1024,
      maxMessageSizeBytes: 48_000_000,
      maxWriteBatchSize: 100_000,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: 30,
      connectionId: connectionIds++,
      minWireVersion: 0,
      maxWireVersion: maxWireVersion(options.version),
      readOnly: false,
    };
    if (mongos)
      return {
        ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
        msg: 'isdbgrid',
        ...base,
        ok: 1,
      };
    const reply: Doc = { ...repl.helloFields(legacy), ...base };
    if (options.clusterRole === 'configsvr') reply.configsvr = 2;
    return { ...reply, ok: 1 };
  };

  const helloWithMechs = (legacy: boolean, body: Doc): Doc => {
    const reply = helloReply(legacy);
    const mechs = ctx.access.supportedMechs(body.saslSupportedMechs);
    return mechs && reply.ok === 1 ? { ...reply, saslSupportedMechs: mechs } : reply;
  };

  /** Awaitable hello (streaming monitoring): wait for a topology change or maxAwaitTimeMS. */
  const hello =
    (legacy: boolean): CommandHandler =>
    (body) => {
      const tv = body.topologyVersion as { counter?: unknown } | undefined;
      const wait = Number(body.maxAwaitTimeMS ?? 0);
      if (!tv || !(wait > 0) || Number(String(tv.counter)) !== repl.topologyCounter)
        return helloWithMechs(legacy, body);
      return new Promise<Doc>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          stop();
          resolve(helloReply(legacy));
        };
        const timer = setTimeout(done, wait);
        const stop = repl.onChange(done);
      });
    };

  const needsWritable =
    (name: string): CommandHandler =>
    (body, db) => {
      if (db === 'local') return undefined;
      if (!mongos) return repl.notWritable();
      if (name === 'update' && db === 'config' && body.update === 'settings' && catalog) {
        return catalog.updateSettings((body.updates ?? []) as Doc[]);
      }
      // drop removes a sharded collection's metadata (sharding.ts dropCollection) and creates no database.
      if (name === 'drop' && catalog) catalog.dropCollection(`${db}.${String(body.drop)}`);
      else if (name === 'dropDatabase' && catalog) catalog.dropDatabase(db);
      else if (name !== 'createUser' && catalog) catalog.ensureDatabase(db);
      return undefined;
    };

  const handlers: Record<string, CommandHandler> = {
    hello: f.hello ? hello(false) : () => commandNotFound('hello'),
    isMaster: hello(true),
    ismaster: hello(true),
    buildInfo: () => ({
      version: options.version.text,
      versionArray: [options.version.major, options.version.minor, options.version.patch, 0],
      gitVersion: 'mongo-bench-stand-in',
      modules: [],
      allocator: 'system',
      javascriptEngine: 'mozjs',
      bits: 64,
      debug: false,
      maxBsonObjectSize: 16 * 1024 * 1024,
      storageEngines: ['wiredTiger'],
      ok: 1,
    }),
    getParameter: (body) =>
      body.featureCompatibilityVersion
        ? {
            featureCompatibilityVersion: {
              version: `${options.version.major}.${options.version.minor}`,
            },
            ok: 1,
          }
        : undefined,
    getCmdLineOpts: () => ({
      argv: [options.kind, ...options.argv],
      parsed: {
        net: { port: options.port, bindIp: options.listenHost },
        ...(mongos ? {} : { storage: { dbPath: options.dbPath } }),
        ...(options.replSet ? { replication: { replSet: options.replSet } } : {}),
        ...(options.clusterRole ? { sharding: { clusterRole: options.clusterRole } } : {}),
        ...(options.configDb
          ? {
              sharding: {
                configDB: `${options.configDb.setName}/${options.configDb.hosts.join(',')}`,
              },
            }
          : {}),
      },
      ok: 1,
    }),
    replSetInitiate: mongodOnly('replSetInitiate', (body) => repl.initiate(body)),
    replSetGetConfig: mongodOnly('replSetGetConfig', () => {
      const status = repl.status();
      return status.ok === 1 ? { config: repl.config, ok: 1 } : status;
    }),
    replSetGetStatus: mongodOnly('replSetGetStatus', () => repl.status()),
    // A mongos has no replSetStepDown (a replica-set command, registered on mongod only): CommandNotFound.
    replSetStepDown: mongodOnly('replSetStepDown', (body) => repl.stepDown(body)),
    [HEARTBEAT_COMMAND]: mongodOnly(HEARTBEAT_COMMAND, (body) => repl.heartbeat(body)),
    find: (body, db) => {
      // applyPlan and the scripts read local.system.replset to skip an initiate that is done.
      if (!mongos && db === 'local' && body.find === 'system.replset') {
        const docs = repl.config ? [repl.config] : [];
        return {
          cursor: { id: BSON.Long.ZERO, ns: 'local.system.replset', firstBatch: docs },
          ok: 1,
        };
      }
      if (mongos && db === 'config' && catalog) {
        const docs = catalog.find(
          String(body.find),
          body.filter as Doc | undefined,
          Number(body.limit ?? 0),
        );
        return {
          cursor: { id: BSON.Long.ZERO, ns: `config.${String(body.find)}`, firstBatch: docs },
          ok: 1,
        };
      }
      return undefined;
    },
    addShard: mongosOnly('addShard', (body) => catalog!.addShard(body)),
    listShards: mongosOnly('listShards', () => catalog!.listShards()),
    enableSharding: mongosOnly('enableSharding', (body) => catalog!.enableSharding(body)),
    shardCollection: mongosOnly('shardCollection', (body) => catalog!.shardCollection(body)),
    split: mongosOnly('split', (body) => catalog!.split(body)),
    moveChunk: mongosOnly('moveChunk', (body) => catalog!.moveChunk(body)),
    balancerStatus: mongosOnly('balancerStatus', () => catalog!.balancerStatus()),
    balancerStop: mongosOnly('balancerStop', () => catalog!.setBalancer(false)),
    balancerStart: mongosOnly('balancerStart', () => catalog!.setBalancer(true)),
    configureCollectionBalancing: mongosOnly('configureCollectionBalancing', (body) =>
      catalog!.configureCollectionBalancing(body),
    ),
    createUser: (body, db) => {
      const refused = mongos ? undefined : repl.notWritable();
      if (refused) return refused;
      const reply = ctx.access.createUser(body, db);
      if (reply.ok === 1 && !mongos) repl.tellOthers();
      return reply;
    },
    saslStart: (body, db, _server, connection) =>
      ctx.access.saslStart(body, db, connection?.id ?? 0),
    saslContinue: (body, _db, _server, connection) =>
      ctx.access.saslContinue(body, connection?.id ?? 0),
    shutdown: () => {
      // Shutting down starts now (a signal from here on joins it); the process stops right after this reply.
      ctx.exit('shutdown');
      return { ok: 1 };
    },
  };
  for (const name of WRITE_COMMANDS) handlers[name] = needsWritable(name);
  return withAccessControl(handlers, ctx.access, () => repl.isArbiter);
}

/**
 * Every command, handled or not, passes the access check first: a Proxy answers any name with a
 * gate that refuses an unauthenticated connection (once a user exists), else calls the handler
 * (matched like the recording server does: exactly, then case-insensitively) or falls back to the default.
 */
function withAccessControl(
  handlers: Record<string, CommandHandler>,
  access: AccessControl,
  isArbiter: () => boolean,
): Record<string, CommandHandler> {
  const lookup = (name: string): CommandHandler | undefined => {
    if (handlers[name]) return handlers[name];
    const key = Object.keys(handlers).find((k) => k.toLowerCase() === name.toLowerCase());
    return key ? handlers[key] : undefined;
  };
  return new Proxy(handlers, {
    get: (_target, name) => {
      if (typeof name !== 'string') return undefined;
      const handler = lookup(name);
      const gate: CommandHandler = (body, db, server, connection) =>
        access.refuse(name, connection?.id ?? 0, db, isArbiter()) ??
        handler?.(body, db, server, connection);
      return gate;
    },
  });
}
