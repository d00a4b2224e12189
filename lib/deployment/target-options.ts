/**
 * The "where does the server come from" options, declared once in one table (TARGET_OPTIONS): the
 * flags (lib/cli/topology-options.ts and run add them), the schema (flags and config-file keys,
 * camelCase), the type derived from it, their defaults, and the subset that shapes a launched or
 * embedded server (what the matrix varies). resolveTargetPlan (plan.ts) gives them their meaning.
 */
import { z } from 'zod';
import { intArg, numberArg, positiveInt } from '../config/validate';
import { option, tableShape, TableValues } from '../config/option-table';
import { TOPOLOGY_OPTIONS } from '../topology/options';

export const RUN_TARGET_DEFAULTS = {
  db: 'mongo_bench',
  collection: 'docs',
  readyTimeoutMs: 60_000,
} as const;

/**
 * The target options, one row each: the flag, the config-file key, the help (run's; matrix shows the
 * same), the schema, the default, the command-line parser. The cluster-shape rows are lib/topology's
 * (TOPOLOGY_OPTIONS, as scripts shows them), taken here as given: resolveTopologyOptions checks them.
 */
export const TARGET_OPTIONS = {
  uri: option({
    flag: '--uri <uri>',
    help: 'an existing deployment (mongodb://host:port/...; default: env MONGO_BENCH_URI, which keeps a password out of ps); without either an embedded or launched server is used',
    schema: z.string().min(1, 'must not be empty'),
  }),
  /** --uri: apply the data-distribution steps (shard, pre-split, balancer) there. */
  setup: option({
    flag: '--setup',
    help: 'with --uri: shard the collection on that (sharded) cluster: enableSharding, shardCollection, pre-split, balancer',
    schema: z.boolean(),
  }),
  /** Drop the collections the load replaces before anything is loaded. */
  drop: option({
    flag: '--drop',
    help: `drop the collections the load replaces first, whatever they hold; nothing else is ever dropped`,
    schema: z.boolean(),
  }),
  db: option({
    flag: '--db <name>',
    help: "the benchmark's database",
    schema: z.string().min(1, 'must not be empty'),
    default: RUN_TARGET_DEFAULTS.db,
  }),
  collection: option({
    flag: '--collection <name>',
    help: "the benchmark's collection",
    schema: z.string().min(1, 'must not be empty'),
    default: RUN_TARGET_DEFAULTS.collection,
  }),
  topology: { ...TOPOLOGY_OPTIONS.topology, schema: z.string() },
  replicas: { ...TOPOLOGY_OPTIONS.replicas, schema: z.number() },
  shards: { ...TOPOLOGY_OPTIONS.shards, schema: z.number() },
  configServers: { ...TOPOLOGY_OPTIONS.configServers, schema: z.number() },
  mongos: { ...TOPOLOGY_OPTIONS.mongos, schema: z.number() },
  mongodBin: option({
    flag: '--mongod-bin <path>',
    help: 'the mongod binary (mongos beside it for sharded); launches from the plan',
    schema: z.string().min(1, 'must not be empty'),
  }),
  binDir: option({
    flag: '--bin-dir <dir>',
    help: 'a folder holding mongod and mongos; launches from the plan',
    schema: z.string().min(1, 'must not be empty'),
  }),
  basePort: option({
    flag: '--base-port <port>',
    help: 'launched: first port; the processes take consecutive ports (default: 27017)',
    schema: z.number(),
    arg: intArg,
  }),
  dataDir: option({
    flag: '--data-dir <dir>',
    help: 'launched: one folder per process under it, kept (default: a temp folder, removed at the end)',
    schema: z.string().min(1, 'must not be empty'),
  }),
  keepData: option({
    flag: '--keep-data',
    help: 'launched: keep the default temp data folder',
    schema: z.boolean(),
  }),
  readyTimeout: option({
    flag: '--ready-timeout <ms>',
    help: 'launched: how long each process may take to answer hello',
    schema: positiveInt('the ready timeout (ms)'),
    default: RUN_TARGET_DEFAULTS.readyTimeoutMs,
    arg: intArg,
  }),
  serverVersion: option({
    flag: '--server-version <x.y>',
    help: 'launched: the MongoDB version the plan is for (default: 7.0; at least 4.4)',
    schema: z.string(),
  }),
  /** Launched: each mongod's WiredTiger cache in GB (default: its share of the host's memory). */
  cacheSizeGb: option({
    flag: '--cache-size-gb <gb>',
    help: "launched: each mongod's WiredTiger cache in GB (default: 50% of (RAM - 1 GB) shared by the mongods, at least 0.25)",
    schema: z.number(),
    arg: numberArg,
  }),
  /** Launched or embedded: access control (keyfile between members, --auth for a standalone) and a first admin user. */
  auth: option({
    flag: '--auth',
    help: 'launched or embedded: access control (keyfile between members, --auth for a standalone) and a first admin user, --username with the password from env MONGO_BENCH_PASSWORD; the run logs in as that user',
    schema: z.boolean(),
  }),
  // The collection's sharding rows are lib/topology's too, with run's help (and, as for the cluster
  // shape, the loose schemas: resolveTopologyOptions checks the values).
  shardKey: {
    ...TOPOLOGY_OPTIONS.shardKey,
    help: 'sharded: shard key field (default: _id)',
    schema: z.string(),
    default: undefined,
  },
  hashed: TOPOLOGY_OPTIONS.hashed,
  presplit: {
    ...TOPOLOGY_OPTIONS.presplit,
    help: 'sharded: pre-split a numeric ranged key over [min, max) into one chunk per shard (default for a ranged _id: 0:<docs>)',
  },
  chunkSize: { ...TOPOLOGY_OPTIONS.chunkSize, schema: z.number() },
  stopBalancer: {
    ...TOPOLOGY_OPTIONS.stopBalancer,
    help: 'sharded: stop the balancer after distributing the chunks (--uri --setup: for the run, started again at its end if it was running)',
  },
};

/** The target options' zod shape (flags and config files validate against it). */
export const targetShape = tableShape(TARGET_OPTIONS);

export type TargetFlags = TableValues<typeof TARGET_OPTIONS>;

/** --topology, --replicas, --shards, --config-servers, --mongos: the shape of the deployment. */
export const CLUSTER_SHAPE_KEYS = [
  'topology',
  'replicas',
  'shards',
  'configServers',
  'mongos',
] as const satisfies readonly (keyof TargetFlags)[];

/** --mongod-bin, --bin-dir, --base-port, --data-dir, --keep-data, --ready-timeout, --server-version, --cache-size-gb. */
export const LAUNCH_KEYS = [
  'mongodBin',
  'binDir',
  'basePort',
  'dataDir',
  'keepData',
  'readyTimeout',
  'serverVersion',
  'cacheSizeGb',
] as const satisfies readonly (keyof TargetFlags)[];

/** The flags that choose and shape a launched or embedded server (no --uri, no sharding of a collection). */
export const TOPOLOGY_FLAG_KEYS = [...CLUSTER_SHAPE_KEYS, ...LAUNCH_KEYS] as const;

export type TopologyFlagKey = (typeof TOPOLOGY_FLAG_KEYS)[number];
export type TopologyFlags = Pick<TargetFlags, TopologyFlagKey>;

/** The topology flags that were given (undefined ones dropped). */
export function pickTopologyFlags(flags: Partial<Record<string, unknown>>): TopologyFlags {
  const picked: Record<string, unknown> = {};
  for (const key of TOPOLOGY_FLAG_KEYS) if (flags[key] !== undefined) picked[key] = flags[key];
  return picked as TopologyFlags;
}
