/**
 * The cluster's shards as `listShards` on a mongos names them, and how to reach each one's primary:
 * a replica-set shard's host is "<set>/<host:port>,<host:port>"; an old standalone shard is "host:port".
 */
import { RunError } from '../config/errors';

export interface ShardInfo {
  id: string;
  /** As listShards gives it. */
  host: string;
  /** The replica set, for a replica-set shard. */
  setName?: string;
  /** host:port of every member listed. */
  hosts: string[];
}

export function parseShardHost(id: string, host: string): ShardInfo {
  const slash = host.indexOf('/');
  const setName = slash >= 0 ? host.slice(0, slash) : undefined;
  const hosts = (slash >= 0 ? host.slice(slash + 1) : host)
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  if (hosts.length === 0) throw new RunError(`listShards: shard ${id} has no host in "${host}"`);
  return { id, host, ...(setName ? { setName } : {}), hosts };
}

/**
 * A connection string that reaches the shard's primary: the replica set by name (the driver finds
 * the primary among its members), or the single host directly.
 */
export function shardConnectionString(shard: ShardInfo): string {
  return shard.setName
    ? `mongodb://${shard.hosts.join(',')}/?replicaSet=${encodeURIComponent(shard.setName)}`
    : `mongodb://${shard.hosts[0]}/?directConnection=true`;
}

/** listShards on the mongos, in the order the cluster lists them. */
export async function listShards(admin: {
  command(command: Record<string, unknown>): Promise<Record<string, unknown>>;
}): Promise<ShardInfo[]> {
  const reply = await admin.command({ listShards: 1 });
  const shards =
    (reply.shards as Array<{ _id?: unknown; host?: unknown; draining?: unknown }> | undefined) ??
    [];
  return shards
    .filter((s) => s.draining !== true)
    .map((s) => parseShardHost(String(s._id), String(s.host ?? '')));
}
