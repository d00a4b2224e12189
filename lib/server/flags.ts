/**
 * The "where does the server come from" flags, declared once: their schema (flags and config-file
 * keys, camelCase), the type derived from it, their defaults, and the subset that shapes a launched
 * or embedded server (what the matrix varies). The CLI spells them as options
 * (lib/cli/topology-options.ts); lib/run's resolveRunPlan gives them their meaning.
 */
import { z } from 'zod';
import { positiveInt } from '../config/validate';

export const RUN_TARGET_DEFAULTS = {
  db: 'mongo_bench',
  collection: 'docs',
  readyTimeoutMs: 60_000,
} as const;

export const targetShape = {
  uri: z.string().min(1, 'must not be empty').optional(),
  /** --uri: apply the data-distribution steps (shard, pre-split, balancer) there. */
  setup: z.boolean().optional(),
  /** Drop --db before anything is loaded. */
  drop: z.boolean().optional(),
  db: z.string().min(1, 'must not be empty').optional(),
  collection: z.string().min(1, 'must not be empty').optional(),
  topology: z.string().optional(),
  replicas: z.number().optional(),
  shards: z.number().optional(),
  configServers: z.number().optional(),
  mongos: z.number().optional(),
  basePort: z.number().optional(),
  dataDir: z.string().min(1, 'must not be empty').optional(),
  keepData: z.boolean().optional(),
  shardKey: z.string().optional(),
  hashed: z.boolean().optional(),
  presplit: z
    .union([z.string(), z.object({ min: z.number(), max: z.number() }).strict()])
    .optional(),
  chunkSize: z.number().optional(),
  stopBalancer: z.boolean().optional(),
  serverVersion: z.string().optional(),
  mongodBin: z.string().min(1, 'must not be empty').optional(),
  binDir: z.string().min(1, 'must not be empty').optional(),
  readyTimeout: positiveInt('the ready timeout (ms)').optional(),
  /** Launched: each mongod's WiredTiger cache in GB (default: its share of the host's memory). */
  cacheSizeGb: z.number().optional(),
  /** Launched or embedded: access control (keyfile between members, --auth for a standalone) and a first admin user. */
  auth: z.boolean().optional(),
};

export type TargetFlags = z.infer<z.ZodObject<typeof targetShape>>;

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
