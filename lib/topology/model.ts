/**
 * The topology model: which processes run where (ports, data directories, logs, command-line
 * arguments) and how they form replica sets, shards and routers. Plain data, built from options.
 *
 * Modern MongoDB (3.6+) requires every shard and the config servers to be replica sets; the seeds
 * (MongoDB 1.8) used plain `--shardsvr` / `--configsvr` processes. A shard of one member is a
 * one-member replica set here.
 */
import * as path from 'node:path';
import { UsageError } from '../config/errors';
import { PresplitRange, TopologyKind, TopologyOptions } from './options';
import { ServerVersion, versionFeatures } from './server-version';

/**
 * The quiesce period of a signalled shutdown (SIGTERM) for the processes planned here, in ms. The
 * server's default is 15 s per process from 5.0 (shutdownTimeoutMillisForSignaledShutdown, mongod,
 * src/mongo/db/repl/repl_server_parameters.idl; mongosShutdownTimeoutMillisForSignaledShutdown, mongos,
 * src/mongo/s/mongos_server_parameters.idl): it lets clients move away from a member that goes down.
 * A benchmark cluster has no clients left when it is stopped, so 1 s keeps a stop of several tiers short.
 */
export const QUIESCE_MS = 1000;

/** The start-up arguments that shorten the quiesce period; none on 4.4, which refuses the unknown parameters. */
export function quiesceArgs(kind: 'mongod' | 'mongos', version: ServerVersion): string[] {
  if (!versionFeatures(version).quiesceParameters) return [];
  const name =
    kind === 'mongod'
      ? 'shutdownTimeoutMillisForSignaledShutdown'
      : 'mongosShutdownTimeoutMillisForSignaledShutdown';
  return ['--setParameter', `${name}=${QUIESCE_MS}`];
}

export type ProcessRole = 'standalone' | 'member' | 'arbiter' | 'config' | 'shard' | 'mongos';

/**
 * One mongod or mongos. The field names match the launcher's ProcessSpec (name, kind, args, host,
 * port, dbPath, logPath), so the local launcher and 00-start.sh start the same processes.
 */
export interface ProcessSpec {
  /** Unique and readable: "mongod", "rs0-1", "cfg-0", "shard3-2", "mongos-0". Steps target it by this name. */
  name: string;
  kind: 'mongod' | 'mongos';
  role: ProcessRole;
  host: string;
  port: number;
  /** host:port, as replica-set configs and addShard name it. */
  address: string;
  /** The replica set this mongod belongs to. */
  replSet?: string;
  /** The folder for everything of this process (data for a mongod, log and pid file for all). */
  dir: string;
  dbPath?: string;
  logPath: string;
  /** Arguments after the binary; no --fork (00-start.sh adds it, the launcher keeps children). */
  args: string[];
}

export interface ReplicaSetMember {
  _id: number;
  host: string;
  priority?: number;
  /** 0 for a member past the voting limit (absent: the server's default of 1). */
  votes?: 0;
  arbiterOnly?: boolean;
}

/**
 * A replica set may have at most 50 members, of which at most 7 vote: ReplSetConfig::validate
 * (src/mongo/db/repl/repl_set_config.cpp, kMaxMembers and kMaxVotingMembers in repl_set_config.h)
 * refuses "Replica set configuration contains N voting members, but must be at least 1 and no
 * more than 7". Members past the limit are planned with votes: 0, and so priority: 0
 * (MemberConfig, member_config.cpp: "priority must be 0 when non-voting (votes:0)").
 */
export const MAX_MEMBERS = 50;
export const MAX_VOTING_MEMBERS = 7;

export interface ReplicaSetSpec {
  name: string;
  role: 'replset' | 'config' | 'shard';
  /** Process names, in member order. */
  processes: string[];
  /** The replSetInitiate document. */
  config: { _id: string; configsvr?: boolean; members: ReplicaSetMember[] };
}

export interface ShardSpec {
  /** The shard's id in the cluster: MongoDB names a replica-set shard after its set. */
  id: string;
  replicaSet: string;
  /** "<rsName>/<host:port>,..." as addShard takes it. */
  connectionString: string;
}

/** What to shard and how to distribute it (the data-distribution part of the plan). */
export interface ShardingSpec {
  db: string;
  collection: string;
  /** db.collection */
  ns: string;
  shardKey: string;
  hashed: boolean;
  /** The shardCollection key document: {g: 1} or {_id: "hashed"}. */
  key: Record<string, 1 | 'hashed'>;
  presplit?: PresplitRange;
  chunkSizeMb?: number;
  stopBalancer: boolean;
}

export interface Topology {
  kind: TopologyKind;
  /** Folder-friendly name: standalone, replset-3, sharded-5x1-presplit. */
  name: string;
  serverVersion: ServerVersion;
  options: TopologyOptions;
  processes: ProcessSpec[];
  replicaSets: ReplicaSetSpec[];
  shards: ShardSpec[];
  /** Names of the mongos processes (sharded only). */
  routers: string[];
  sharding?: ShardingSpec;
  /** The connection string a benchmark client uses (never with credentials). */
  uri: string;
  /**
   * Access control: the first admin user and, for replica sets and clusters, the keyfile the
   * members authenticate each other with (00-start.sh creates it; every process gets --keyFile).
   */
  auth?: { user: string; keyFile?: string };
}

/** Where the keyfile of an access-controlled replica set or cluster lives: next to the processes' folders. */
export function keyFilePath(o: Pick<TopologyOptions, 'dataDir'>): string {
  return path.posix.join(o.dataDir, 'keyfile');
}

export function topologyName(o: TopologyOptions): string {
  return `${baseName(o)}${o.auth ? '-auth' : ''}`;
}

function baseName(o: TopologyOptions): string {
  switch (o.topology) {
    case 'standalone':
      return 'standalone';
    case 'replset':
      return `replset-${o.replicas}${o.arbiter ? '-arbiter' : ''}`;
    case 'sharded':
      return `sharded-${o.shards}x${o.replicas}${o.presplit ? '-presplit' : ''}`;
  }
}

/** How many processes the options describe (for the port check, before anything is built). */
export function processCount(o: TopologyOptions): number {
  switch (o.topology) {
    case 'standalone':
      return 1;
    case 'replset':
      return o.replicas + (o.arbiter ? 1 : 0);
    case 'sharded':
      return o.mongos + o.configServers + o.shards * o.replicas;
  }
}

/** Consecutive ports from the base port must all fit below 65536. */
export function checkPortRange(o: TopologyOptions): void {
  const count = processCount(o);
  const last = o.basePort + count - 1;
  if (last > 65535) {
    throw new UsageError(
      `option --base-port: ${count} processes need ports ${o.basePort}-${last}, past 65535; use a base port of at most ${65536 - count}`,
    );
  }
}

/** No two processes may share host:port (a guard for hand-built or merged process lists too). */
export function checkPortsDistinct(
  processes: readonly Pick<ProcessSpec, 'name' | 'address'>[],
): void {
  const seen = new Map<string, string>();
  for (const p of processes) {
    const other = seen.get(p.address);
    if (other !== undefined) {
      throw new UsageError(
        `option --base-port: processes "${other}" and "${p.name}" would both listen on ${p.address}`,
      );
    }
    seen.set(p.address, p.name);
  }
}

export function buildTopology(o: TopologyOptions): Topology {
  checkPortRange(o);
  let nextPort = o.basePort;
  const processes: ProcessSpec[] = [];
  // Keyfile auth between members implies access control; a standalone has no members, so --auth.
  const keyFile = o.auth && o.topology !== 'standalone' ? keyFilePath(o) : undefined;
  const authArgs = keyFile ? ['--keyFile', keyFile] : o.auth ? ['--auth'] : [];
  const replicaSets: ReplicaSetSpec[] = [];

  const addProcess = (
    name: string,
    kind: ProcessSpec['kind'],
    role: ProcessRole,
    extraArgs: string[],
    replSet?: string,
  ) => {
    const port = nextPort++;
    const dir = path.posix.join(o.dataDir, name);
    const logPath = path.posix.join(dir, `${kind}.log`);
    const dbPath = kind === 'mongod' ? dir : undefined;
    const args = ['--port', String(port), '--bind_ip', o.bindIp];
    if (dbPath) args.push('--dbpath', dbPath);
    args.push(
      '--logpath',
      logPath,
      '--logappend',
      ...extraArgs,
      ...authArgs,
      ...quiesceArgs(kind, o.serverVersion),
    );
    const spec: ProcessSpec = {
      name,
      kind,
      role,
      host: o.host,
      port,
      address: `${o.host}:${port}`,
      replSet,
      dir,
      dbPath,
      logPath,
      args,
    };
    processes.push(spec);
    return spec;
  };

  const addReplicaSet = (
    name: string,
    role: ReplicaSetSpec['role'],
    members: number,
    memberArgs: string[],
    extra: { arbiter?: boolean; priorities?: number[]; processPrefix: string },
  ) => {
    const specs: ProcessSpec[] = [];
    const processRole: ProcessRole = role === 'replset' ? 'member' : role;
    for (let i = 0; i < members; i++) {
      specs.push(
        addProcess(
          `${extra.processPrefix}-${i}`,
          'mongod',
          processRole,
          ['--replSet', name, ...memberArgs],
          name,
        ),
      );
    }
    if (extra.arbiter)
      specs.push(
        addProcess(
          `${extra.processPrefix}-arbiter`,
          'mongod',
          'arbiter',
          ['--replSet', name],
          name,
        ),
      );
    // An arbiter must vote (member_config.cpp: "Arbiter must vote (cannot have 0 votes)"), so it
    // takes one of the 7 votes and the data-bearing members past the rest vote 0.
    const votingDataMembers = MAX_VOTING_MEMBERS - (extra.arbiter ? 1 : 0);
    const configMembers: ReplicaSetMember[] = specs.map((p, i) => {
      const member: ReplicaSetMember = { _id: i, host: p.address };
      if (p.role === 'arbiter') member.arbiterOnly = true;
      else if (i >= votingDataMembers) {
        if (extra.priorities && extra.priorities[i] > 0) {
          throw new UsageError(
            `option --priorities: member ${i} of ${name} is past the ${MAX_VOTING_MEMBERS} voting members MongoDB allows, so it votes 0 and ` +
              `its priority must be 0 (member_config.cpp: "priority must be 0 when non-voting"), got ${extra.priorities[i]}`,
          );
        }
        member.priority = 0;
        member.votes = 0;
      } else if (extra.priorities) member.priority = extra.priorities[i];
      return member;
    });
    const rs: ReplicaSetSpec = {
      name,
      role,
      processes: specs.map((p) => p.name),
      config: {
        _id: name,
        ...(role === 'config' ? { configsvr: true } : {}),
        members: configMembers,
      },
    };
    replicaSets.push(rs);
    return { rs, specs };
  };

  const shards: ShardSpec[] = [];
  const routers: string[] = [];
  let sharding: ShardingSpec | undefined;
  let uri: string;

  switch (o.topology) {
    case 'standalone': {
      const p = addProcess('mongod', 'mongod', 'standalone', []);
      uri = `mongodb://${p.address}/`;
      break;
    }
    case 'replset': {
      const { specs } = addReplicaSet('rs0', 'replset', o.replicas, [], {
        arbiter: o.arbiter,
        priorities: o.priorities,
        processPrefix: 'rs0',
      });
      const dataBearing = specs.filter((p) => p.role !== 'arbiter');
      uri = `mongodb://${dataBearing.map((p) => p.address).join(',')}/?replicaSet=rs0`;
      break;
    }
    case 'sharded': {
      // The routers come first so the cluster's entry point is the base port, as for a standalone.
      const routerPorts: number[] = [];
      for (let i = 0; i < o.mongos; i++) routerPorts.push(nextPort++);
      const config = addReplicaSet('cfg', 'config', o.configServers, ['--configsvr'], {
        processPrefix: 'cfg',
      });
      for (let s = 0; s < o.shards; s++) {
        const name = `shard${s}`;
        const { specs } = addReplicaSet(name, 'shard', o.replicas, ['--shardsvr'], {
          processPrefix: name,
        });
        shards.push({
          id: name,
          replicaSet: name,
          connectionString: `${name}/${specs.map((p) => p.address).join(',')}`,
        });
      }
      const configDb = `cfg/${config.specs.map((p) => p.address).join(',')}`;
      const afterShards = nextPort;
      routerPorts.forEach((port, i) => {
        nextPort = port;
        const p = addProcess(`mongos-${i}`, 'mongos', 'mongos', ['--configdb', configDb]);
        routers.push(p.name);
      });
      nextPort = afterShards;
      // Keep the process list in port order: routers first.
      processes.sort((a, b) => a.port - b.port);
      uri = `mongodb://${routers.map((n) => processes.find((p) => p.name === n)!.address).join(',')}/`;
      sharding = {
        db: o.db,
        collection: o.collection,
        ns: `${o.db}.${o.collection}`,
        shardKey: o.shardKey,
        hashed: o.hashed,
        key: { [o.shardKey]: o.hashed ? 'hashed' : 1 },
        presplit: o.presplit,
        chunkSizeMb: o.chunkSizeMb,
        stopBalancer: o.stopBalancer,
      };
      break;
    }
  }
  checkPortsDistinct(processes);
  return {
    kind: o.topology,
    name: topologyName(o),
    serverVersion: o.serverVersion,
    options: o,
    processes,
    replicaSets,
    shards,
    routers,
    sharding,
    uri,
    ...(o.auth ? { auth: { user: o.auth.user, ...(keyFile ? { keyFile } : {}) } } : {}),
  };
}

export function processByName(topology: Pick<Topology, 'processes'>, name: string): ProcessSpec {
  const p = topology.processes.find((x) => x.name === name);
  if (!p) throw new Error(`no process named "${name}" in the topology`);
  return p;
}
