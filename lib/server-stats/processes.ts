/**
 * Which processes the run samples, and a connection to each: every mongos the URI names and, behind
 * them, every member of every shard (listShards on a mongos); every member of a replica set (hello's
 * hosts and passives); or the one standalone. Each process gets its own direct connection, apart
 * from the benchmark's clients, so the sampler's commands never count in the client figures; the same
 * connection reads each member's `local.oplog.rs` between steps (lib/run/phases/step-oplog.ts).
 */
import { MongoClient, MongoClientOptions } from 'mongodb';
import { listShards, parseShardHost, ShardInfo } from './shards';
import { messageOf } from '../common/values';

type Doc = Record<string, unknown>;

export interface ServerProcess {
  /** host:port, as the deployment names it. */
  id: string;
  kind: 'mongos' | 'mongod';
  /** The shard it belongs to (sharded clusters). */
  shard?: string;
  /** Its replica set. */
  set?: string;
}

export interface ProcessConnection {
  /** A command on this process, on database `db` (default admin: `local` for the oplog's reads). */
  command(command: Doc, db?: string): Promise<Doc>;
  close(): Promise<void>;
}

/** Opens a connection to one process; tests may pass their own. */
export type ConnectProcess = (host: string) => ProcessConnection;

export interface Discovered {
  processes: ServerProcess[];
  /** What could not be discovered and why (one line each). */
  notes: string[];
}

/**
 * `admin` runs a command through the benchmark's own client (before the load: not counted);
 * `seedHosts` are the hosts the URI names.
 */
export async function discoverProcesses(
  admin: (command: Doc) => Promise<Doc>,
  seedHosts: readonly string[],
): Promise<Discovered> {
  const hello = await admin({ hello: 1 }).catch(() => admin({ isMaster: 1 }));
  const notes: string[] = [];
  if (hello.msg === 'isdbgrid') {
    // Each host of a mongos URI is a mongos (the driver refuses to mix mongos and mongod in one URI).
    const processes: ServerProcess[] = seedHosts.map((id) => ({ id, kind: 'mongos' as const }));
    let shards: ShardInfo[] = [];
    try {
      shards = await listShards({ command: admin });
    } catch (err) {
      notes.push(
        `listShards failed (${messageOf(err)}): only the mongos ${seedHosts.length === 1 ? 'is' : 'are'} sampled, not the shards`,
      );
    }
    for (const shard of shards) {
      for (const host of shard.hosts)
        processes.push({
          id: host,
          kind: 'mongod',
          shard: shard.id,
          ...(shard.setName ? { set: shard.setName } : {}),
        });
    }
    return { processes, notes };
  }
  if (typeof hello.setName === 'string') {
    const members = [
      ...((hello.hosts as string[] | undefined) ?? []),
      ...((hello.passives as string[] | undefined) ?? []),
    ];
    const hosts = members.length > 0 ? members : seedHosts;
    return {
      processes: hosts.map((id) => ({ id, kind: 'mongod' as const, set: hello.setName as string })),
      notes,
    };
  }
  const me = typeof hello.me === 'string' ? hello.me : seedHosts[0];
  return { processes: me ? [{ id: me, kind: 'mongod' }] : [], notes };
}

/** A shard's member list from listShards' host string; re-exported for tests and the presplit experiment. */
export { parseShardHost };

/** The driver, straight to the one process (directConnection), with the run's credentials and TLS. */
export function driverProcessConnector(
  intervalMs: number,
  clientOptions: MongoClientOptions = {},
): ConnectProcess {
  return (host) => {
    const client = new MongoClient(`mongodb://${host}/?directConnection=true`, {
      ...clientOptions,
      // Short timeouts: a process that cannot be reached is a gap in its series, not a long stall.
      serverSelectionTimeoutMS: Math.max(2000, intervalMs * 2),
      connectTimeoutMS: Math.max(2000, intervalMs * 2),
      maxPoolSize: 1,
      minPoolSize: 0,
      // A secondary must answer: serverStatus is read from every member.
      readPreference: 'primaryPreferred',
    });
    return {
      command: (command, db) => client.db(db ?? 'admin').command(command),
      close: () => client.close(),
    };
  };
}
