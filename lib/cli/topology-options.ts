/**
 * The "where does the server come from" flags for the commands that offer them all (run and matrix;
 * scripts shows the cluster shape from the same rows, lib/topology's), added from their one table,
 * TARGET_OPTIONS (lib/deployment/target-options.ts). The values go to lib/run's resolveRunPlan (or
 * lib/topology's planFromOptions) unchanged: the meaning lives there.
 */
import { Command } from 'commander';
import { addOptions } from '../config/option-table';
import { CLUSTER_SHAPE_KEYS, LAUNCH_KEYS, TARGET_OPTIONS } from '../deployment/target-options';

export interface LaunchOptionsHelp {
  /** Help text of --server-version (run also plans --setup for that version). */
  serverVersion?: string;
}

export function addLaunchOptions(command: Command, help: LaunchOptionsHelp = {}): Command {
  const table =
    help.serverVersion === undefined
      ? TARGET_OPTIONS
      : {
          ...TARGET_OPTIONS,
          serverVersion: { ...TARGET_OPTIONS.serverVersion, help: help.serverVersion },
        };
  return addOptions(command, table, LAUNCH_KEYS);
}

/**
 * All the launched or embedded server flags (run's spelling and defaults): the cluster shape, then
 * the launch flags. Their keys are TOPOLOGY_FLAG_KEYS (lib/deployment/target-options.ts).
 */
export function addTopologyOptions(command: Command, help: LaunchOptionsHelp = {}): Command {
  return addLaunchOptions(addOptions(command, TARGET_OPTIONS, CLUSTER_SHAPE_KEYS), help);
}
