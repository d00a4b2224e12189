/**
 * The "where does the server come from" flags of `mongo-bench run`, as one option-adder, so matrix
 * (and run, which declares the same flags itself today) offers them with the same names and meaning.
 * They are handed to lib/run's resolveRunPlan unchanged: the target choice lives there only.
 */
import { Command } from 'commander';
import { intArg } from '../config/validate';
import { TargetFlags } from '../config/run-options';
import { RUN_TARGET_DEFAULTS } from '../run/run-plan';

/** The flags that choose and shape a launched or embedded server (no --uri, no sharding of a collection). */
export const TOPOLOGY_FLAG_KEYS = [
  'topology',
  'replicas',
  'shards',
  'configServers',
  'mongos',
  'mongodBin',
  'binDir',
  'basePort',
  'dataDir',
  'keepData',
  'readyTimeout',
  'serverVersion',
] as const satisfies readonly (keyof TargetFlags)[];

export type TopologyFlagKey = (typeof TOPOLOGY_FLAG_KEYS)[number];
export type TopologyFlags = Pick<TargetFlags, TopologyFlagKey>;

/**
 * Adds --topology, --replicas, --shards, --config-servers, --mongos, --mongod-bin, --bin-dir,
 * --base-port, --data-dir, --keep-data, --ready-timeout, --server-version (run's spelling and defaults).
 */
export function addTopologyOptions(command: Command): Command {
  return command
    .option('--topology <kind>', 'standalone | replset | sharded (default: standalone)')
    .option('--replicas <n>', 'members of the replica set, or of each shard (default: 3 for replset, 1 for sharded)', intArg('--replicas'))
    .option('--shards <n>', 'sharded: number of shards (default: 2)', intArg('--shards'))
    .option('--config-servers <n>', 'sharded: members of the config server replica set (default: 1)', intArg('--config-servers'))
    .option('--mongos <n>', 'sharded: number of routers (default: 1)', intArg('--mongos'))
    .option('--mongod-bin <path>', 'the mongod binary (mongos beside it for sharded); launches from the plan')
    .option('--bin-dir <dir>', 'a folder holding mongod and mongos; launches from the plan')
    .option('--base-port <port>', 'launched: first port; the processes take consecutive ports (default: 27017)', intArg('--base-port'))
    .option('--data-dir <dir>', 'launched: one folder per process under it, kept (default: a temp folder, removed at the end)')
    .option('--keep-data', 'launched: keep the default temp data folder')
    .option('--ready-timeout <ms>', `launched: how long each process may take to answer hello (default: ${RUN_TARGET_DEFAULTS.readyTimeoutMs})`, intArg('--ready-timeout'))
    .option('--server-version <x.y>', 'launched: the MongoDB version the plan is for (default: 7.0)');
}

/** The topology flags that were given (undefined ones dropped). */
export function pickTopologyFlags(flags: Partial<Record<string, unknown>>): TopologyFlags {
  const picked: Record<string, unknown> = {};
  for (const key of TOPOLOGY_FLAG_KEYS) if (flags[key] !== undefined) picked[key] = flags[key];
  return picked as TopologyFlags;
}
