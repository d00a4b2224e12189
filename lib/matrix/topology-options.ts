/**
 * The keys of the "where does the server come from" flags matrix shares with `mongo-bench run`
 * (declared once, for both commands, by lib/cli/topology-options.ts). They are handed to lib/run's
 * resolveRunPlan unchanged: the target choice lives there only.
 */
import { TargetFlags } from '../run/run-options';

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
  'cacheSizeGb',
] as const satisfies readonly (keyof TargetFlags)[];

export type TopologyFlagKey = (typeof TOPOLOGY_FLAG_KEYS)[number];
export type TopologyFlags = Pick<TargetFlags, TopologyFlagKey>;

/** The topology flags that were given (undefined ones dropped). */
export function pickTopologyFlags(flags: Partial<Record<string, unknown>>): TopologyFlags {
  const picked: Record<string, unknown> = {};
  for (const key of TOPOLOGY_FLAG_KEYS) if (flags[key] !== undefined) picked[key] = flags[key];
  return picked as TopologyFlags;
}
