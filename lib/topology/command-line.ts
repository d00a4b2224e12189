/** The `mongo-bench scripts` command line that reproduces a topology: written into every generated file. */
import { TOPOLOGY_DEFAULTS, TopologyOptions } from './options';

export function scriptsCommandLine(o: TopologyOptions): string {
  const args: string[] = ['--topology', o.topology];
  const add = (
    flag: string,
    value: string | number | undefined,
    defaultValue?: string | number,
  ) => {
    if (value !== undefined && value !== defaultValue) args.push(flag, String(value));
  };
  if (o.topology !== 'standalone') args.push('--replicas', String(o.replicas));
  if (o.arbiter) args.push('--arbiter');
  if (o.priorities) args.push('--priorities', o.priorities.join(','));
  if (o.topology === 'sharded') {
    args.push('--shards', String(o.shards));
    add('--config-servers', o.configServers, TOPOLOGY_DEFAULTS.configServers);
    add('--mongos', o.mongos, TOPOLOGY_DEFAULTS.mongos);
  }
  add('--host', o.host, TOPOLOGY_DEFAULTS.host);
  add('--bind-ip', o.bindIp, TOPOLOGY_DEFAULTS.bindIp);
  add('--base-port', o.basePort, TOPOLOGY_DEFAULTS.basePort);
  add('--data-dir', o.dataDir, TOPOLOGY_DEFAULTS.dataDir);
  if (o.topology === 'sharded') {
    add('--db', o.db, TOPOLOGY_DEFAULTS.db);
    add('--collection', o.collection, TOPOLOGY_DEFAULTS.collection);
    add('--shard-key', o.shardKey, TOPOLOGY_DEFAULTS.shardKey);
    if (o.hashed) args.push('--hashed');
    if (o.presplit) args.push('--presplit', `${o.presplit.min}:${o.presplit.max}`);
    add('--chunk-size', o.chunkSizeMb);
    if (o.stopBalancer) args.push('--stop-balancer');
  }
  add('--server-version', o.serverVersion.text, TOPOLOGY_DEFAULTS.serverVersion);
  add('--cache-size-gb', o.cacheSizeGb);
  if (o.auth) {
    args.push('--auth');
    add('--auth-user', o.auth.user, TOPOLOGY_DEFAULTS.authUser);
  }
  return `mongo-bench scripts ${args.map(shellWord).join(' ')}`;
}

/** Quotes a word for a POSIX shell only when it needs it. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
