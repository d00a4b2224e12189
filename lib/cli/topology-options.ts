/**
 * The "where does the server come from" flags, declared once for every command that offers them
 * (run and matrix: all of them; scripts: the cluster shape only, it launches nothing). The values go
 * to lib/run's resolveRunPlan (or lib/topology's planFromOptions) unchanged: the meaning lives there.
 */
import { Command } from 'commander';
import { intArg, numberArg } from '../config/validate';
import { TOPOLOGY_KINDS } from '../topology';
import { RUN_TARGET_DEFAULTS } from '../server/flags';

/** --topology, --replicas, --shards, --config-servers, --mongos: the shape of the deployment. */
export function addClusterShapeOptions(command: Command): Command {
  return command
    .option('--topology <kind>', `${TOPOLOGY_KINDS.join(' | ')} (default: standalone)`)
    .option(
      '--replicas <n>',
      'members of the replica set, or of each shard (default: 3 for replset, 1 for sharded; at most 50, and members past the 7th vote 0 with priority 0)',
      intArg('--replicas'),
    )
    .option('--shards <n>', 'sharded: number of shards (default: 2)', intArg('--shards'))
    .option(
      '--config-servers <n>',
      'sharded: members of the config server replica set (default: 1)',
      intArg('--config-servers'),
    )
    .option('--mongos <n>', 'sharded: number of routers (default: 1)', intArg('--mongos'));
}

export interface LaunchOptionsHelp {
  /** Help text of --server-version (run also plans --setup for that version). */
  serverVersion?: string;
}

/** --mongod-bin, --bin-dir, --base-port, --data-dir, --keep-data, --ready-timeout, --server-version, --cache-size-gb. */
export function addLaunchOptions(command: Command, help: LaunchOptionsHelp = {}): Command {
  return command
    .option(
      '--mongod-bin <path>',
      'the mongod binary (mongos beside it for sharded); launches from the plan',
    )
    .option('--bin-dir <dir>', 'a folder holding mongod and mongos; launches from the plan')
    .option(
      '--base-port <port>',
      'launched: first port; the processes take consecutive ports (default: 27017)',
      intArg('--base-port'),
    )
    .option(
      '--data-dir <dir>',
      'launched: one folder per process under it, kept (default: a temp folder, removed at the end)',
    )
    .option('--keep-data', 'launched: keep the default temp data folder')
    .option(
      '--ready-timeout <ms>',
      `launched: how long each process may take to answer hello (default: ${RUN_TARGET_DEFAULTS.readyTimeoutMs})`,
      intArg('--ready-timeout'),
    )
    .option(
      '--server-version <x.y>',
      help.serverVersion ??
        'launched: the MongoDB version the plan is for (default: 7.0; at least 4.4)',
    )
    .option(
      '--cache-size-gb <gb>',
      "launched: each mongod's WiredTiger cache in GB (default: 50% of (RAM - 1 GB) shared by the mongods, at least 0.25)",
      numberArg('--cache-size-gb'),
    );
}

/**
 * All the launched or embedded server flags (run's spelling and defaults): the cluster shape, then
 * the launch flags. Their keys are TOPOLOGY_FLAG_KEYS (lib/server/flags.ts).
 */
export function addTopologyOptions(command: Command, help: LaunchOptionsHelp = {}): Command {
  return addLaunchOptions(addClusterShapeOptions(command), help);
}
