/**
 * The options a topology is built from, as flags or config keys give them, validated into one
 * plain object with every default filled in. Errors name the option (`--shards`) or config path.
 */
import { z } from 'zod';
import { UsageError } from '../config/errors';
import { intArg, numberArg, numberListArg, parseOptions, PathStyle } from '../config/validate';
import { option, tableShape } from '../config/option-table';
import { parseServerVersion, ServerVersion } from './server-version';
import { dropUndefined } from '../common/values';

export const TOPOLOGY_KINDS = ['standalone', 'replset', 'sharded'] as const;
export type TopologyKind = (typeof TOPOLOGY_KINDS)[number];

export interface PresplitRange {
  min: number;
  max: number;
}

/** Access control for a planned deployment. The password is never part of a plan. */
export interface TopologyAuth {
  /** The first admin user, created through the localhost exception. */
  user: string;
}

export interface TopologyOptions {
  topology: TopologyKind;
  /** Members of the replica set (replset) or of each shard's replica set (sharded); data-bearing members. */
  replicas: number;
  /** replset only: add an arbiter after the data-bearing members. */
  arbiter: boolean;
  /** Member priorities in member order (replset only); absent means MongoDB's default of 1. */
  priorities?: number[];
  shards: number;
  configServers: number;
  mongos: number;
  host: string;
  bindIp: string;
  basePort: number;
  dataDir: string;
  db: string;
  collection: string;
  shardKey: string;
  hashed: boolean;
  presplit?: PresplitRange;
  chunkSizeMb?: number;
  stopBalancer: boolean;
  serverVersion: ServerVersion;
  /**
   * --wiredTigerCacheSizeGB of every mongod, when the user chose it; absent: each mongod gets its
   * share of the host's memory (see cache-size.ts), computed when 00-start.sh runs or the launcher starts.
   */
  cacheSizeGb?: number;
  /** Present when the deployment runs with access control. */
  auth?: TopologyAuth;
}

export const TOPOLOGY_DEFAULTS = {
  topology: 'standalone',
  replicas: 3,
  shards: 2,
  configServers: 1,
  mongos: 1,
  host: '127.0.0.1',
  bindIp: '127.0.0.1',
  basePort: 27017,
  dataDir: 'mongo-bench-data',
  db: 'mongo_bench',
  collection: 'docs',
  shardKey: '_id',
  serverVersion: '7.0',
  authUser: 'admin',
} as const;

const positiveInt = (max: number, what: string) =>
  z
    .number()
    .int('must be an integer')
    .min(1, `must be at least 1 (${what})`)
    .max(max, `must be at most ${max}`);

// Names MongoDB rejects in a database name (plus the empty name).
const DB_NAME = /^[^/\\. "$*<>:|?]{1,63}$/;

const TOPOLOGY_CHOICES = `must be one of ${TOPOLOGY_KINDS.join(', ')}`;

/**
 * The options a topology is built from, one row each: the flag and help (`scripts` shows them all;
 * run and matrix reuse the cluster-shape rows), the schema (flags and config keys), the default
 * --help shows (resolveTopologyOptions applies TOPOLOGY_DEFAULTS), the command-line parser.
 */
export const TOPOLOGY_OPTIONS = {
  topology: option({
    flag: '--topology <kind>',
    help: TOPOLOGY_KINDS.join(' | '),
    // Any text comes in (TopologyInput); the enum names the choices.
    schema: z
      .string({ error: TOPOLOGY_CHOICES })
      .pipe(z.enum(TOPOLOGY_KINDS, { error: TOPOLOGY_CHOICES })),
    default: TOPOLOGY_DEFAULTS.topology,
  }),
  replicas: option({
    flag: '--replicas <n>',
    help: 'members of the replica set, or of each shard (default: 3 for replset, 1 for sharded; at most 50, and members past the 7th vote 0 with priority 0)',
    schema: positiveInt(50, 'a replica set has at least one member'),
    arg: intArg,
  }),
  arbiter: option({ flag: '--arbiter', help: 'replset: add an arbiter', schema: z.boolean() }),
  priorities: option({
    flag: '--priorities <list>',
    help: 'replset: member priorities in member order, e.g. 2,1,1',
    schema: z.array(
      z.number().min(0, 'priorities must be >= 0').max(1000, 'priorities must be <= 1000'),
    ),
    arg: numberListArg,
  }),
  shards: option({
    flag: '--shards <n>',
    help: 'sharded: number of shards',
    schema: positiveInt(1000, 'a sharded cluster needs at least one shard'),
    default: TOPOLOGY_DEFAULTS.shards,
    arg: intArg,
  }),
  configServers: option({
    flag: '--config-servers <n>',
    help: 'sharded: members of the config server replica set',
    schema: positiveInt(50, 'a config server replica set needs at least one member'),
    default: TOPOLOGY_DEFAULTS.configServers,
    arg: intArg,
  }),
  mongos: option({
    flag: '--mongos <n>',
    help: 'sharded: number of routers',
    schema: positiveInt(100, 'a sharded cluster needs at least one mongos'),
    default: TOPOLOGY_DEFAULTS.mongos,
    arg: intArg,
  }),
  host: option({
    flag: '--host <host>',
    help: 'the address the processes use for each other and clients use',
    schema: z
      .string()
      .min(1, 'must not be empty')
      .regex(/^[^\s,/:]+$/, 'must be a host name or IPv4 address (no port, no spaces)'),
    default: TOPOLOGY_DEFAULTS.host,
  }),
  bindIp: option({
    flag: '--bind-ip <list>',
    help: 'what the processes listen on',
    schema: z
      .string()
      .min(1, 'must not be empty')
      .regex(/^[^\s]+$/, 'must be a comma-separated list without spaces'),
    default: TOPOLOGY_DEFAULTS.bindIp,
  }),
  basePort: option({
    flag: '--base-port <port>',
    help: 'first port; the processes take consecutive ports',
    schema: z
      .number()
      .int('must be an integer')
      .min(1, 'must be from 1 to 65535')
      .max(65535, 'must be from 1 to 65535'),
    default: TOPOLOGY_DEFAULTS.basePort,
    arg: intArg,
  }),
  dataDir: option({
    flag: '--data-dir <dir>',
    help: 'one folder per process under it',
    schema: z.string().min(1, 'must not be empty'),
    default: TOPOLOGY_DEFAULTS.dataDir,
  }),
  db: option({
    flag: '--db <name>',
    help: 'sharded: database to shard',
    schema: z
      .string()
      .regex(
        DB_NAME,
        'must be a database name (1-63 characters, none of / \\ . space " $ * < > : | ?)',
      ),
    default: TOPOLOGY_DEFAULTS.db,
  }),
  collection: option({
    flag: '--collection <name>',
    help: (d) => `sharded: collection to shard (default: ${d}, where run loads its documents)`,
    schema: z
      .string()
      .min(1, 'must not be empty')
      .regex(/^[^$\0]+$/, 'must not contain $'),
    default: TOPOLOGY_DEFAULTS.collection,
  }),
  shardKey: option({
    flag: '--shard-key <field>',
    help: 'sharded: shard key field',
    schema: z
      .string()
      .min(1, 'must not be empty')
      .regex(/^[^$\0][^\0]*$/, 'must be a field name (not starting with $)'),
    default: TOPOLOGY_DEFAULTS.shardKey,
  }),
  hashed: option({
    flag: '--hashed',
    help: 'sharded: hashed shard key instead of ranged',
    schema: z.boolean(),
  }),
  /** "MIN:MAX" from the command line, or {min, max} from a config file. */
  presplit: option({
    flag: '--presplit <min:max>',
    help: 'sharded: pre-split a numeric ranged key over [min, max) into one chunk per shard',
    schema: z.union([z.string(), z.object({ min: z.number(), max: z.number() }).strict()]),
  }),
  /** Chunk size in MB. */
  chunkSize: option({
    flag: '--chunk-size <mb>',
    help: 'sharded: chunk size in MB (config.settings)',
    schema: z
      .number()
      .int('must be an integer')
      .min(1, 'must be from 1 to 1024 (MB)')
      .max(1024, 'must be from 1 to 1024 (MB)'),
    arg: intArg,
  }),
  stopBalancer: option({
    flag: '--stop-balancer',
    help: 'sharded: leave the balancer stopped (a --presplit stops it before the splits and otherwise starts it again at the end)',
    schema: z.boolean(),
  }),
  serverVersion: option({
    flag: '--server-version <x.y>',
    help: (d) => `MongoDB version to plan for (default: ${d}; at least 4.4)`,
    schema: z.string(),
    default: TOPOLOGY_DEFAULTS.serverVersion,
  }),
  /** WiredTiger cache of each mongod in GB (default: the host's share, computed where the processes start). */
  cacheSizeGb: option({
    flag: '--cache-size-gb <gb>',
    help: "each mongod's WiredTiger cache in GB (default: computed when 00-start.sh runs: 50% of (RAM - 1 GB) shared by the mongods, at least 0.25)",
    // mongod's own bounds for --wiredTigerCacheSizeGB (src/mongo/db/storage/wiredtiger/wiredtiger_global_options.idl).
    schema: z
      .number()
      .min(0.25, 'must be from 0.25 to 10000 (GB; mongod refuses less than 0.25)')
      .max(10000, 'must be from 0.25 to 10000 (GB)'),
    arg: numberArg,
  }),
  /** Access control: keyfile between members (--auth for a standalone) and a first admin user. */
  auth: option({
    flag: '--auth',
    help: 'access control: keyfile between members (--auth for a standalone) and a first admin user; the scripts read the password from MONGO_BENCH_PASSWORD or ask',
    schema: z.boolean(),
  }),
  /** The first admin user's name (default "admin"; MONGO_BENCH_USER overrides it when the scripts run). */
  authUser: option({
    flag: '--auth-user <name>',
    help: (d) =>
      `with --auth: the first admin user (default: ${d}; MONGO_BENCH_USER overrides it when the scripts run)`,
    schema: z
      .string()
      .min(1, 'must not be empty')
      .regex(/^[^\s:@/]+$/, 'must be a user name without spaces, ":", "@" or "/"'),
    default: TOPOLOGY_DEFAULTS.authUser,
  }),
};

const inputSchema = z.object(tableShape(TOPOLOGY_OPTIONS)).strict();

/** Everything optional: what the user said (any text for --topology). Defaults are applied by resolveTopologyOptions. */
export type TopologyInput = z.input<typeof inputSchema>;

/** "0:64" -> {min: 0, max: 64}; the error names the option and says why a range needs a numeric key. */
export function parsePresplit(
  value: string | PresplitRange,
  name = 'option --presplit',
): PresplitRange {
  let range: PresplitRange;
  if (typeof value === 'string') {
    const parts = value.split(':');
    const numbers = parts.map((p) => (p.trim() === '' ? NaN : Number(p)));
    if (parts.length !== 2 || numbers.some((n) => !Number.isFinite(n))) {
      throw new UsageError(
        `${name}: expected MIN:MAX with numeric bounds (e.g. 0:64), got "${value}"; ` +
          'pre-splitting by range needs a numeric shard key (for other keys use --hashed)',
      );
    }
    range = { min: numbers[0], max: numbers[1] };
  } else {
    range = value;
  }
  if (!(range.min < range.max)) {
    throw new UsageError(`${name}: MIN must be less than MAX, got ${range.min}:${range.max}`);
  }
  return range;
}

export interface ResolvedOptions {
  options: TopologyOptions;
  /** Not errors, but worth saying (an even member count, an ignored option, ...). */
  warnings: string[];
}

/**
 * Validates what the user gave and fills in defaults. `style` decides how paths are named in
 * errors: `--shards` for flags, `config shards` for a config file.
 */
export function resolveTopologyOptions(
  raw: TopologyInput,
  style: PathStyle = 'flag',
): ResolvedOptions {
  const input = parseOptions(inputSchema, dropUndefined(raw), style);
  const name = (key: keyof TopologyInput) =>
    style === 'flag'
      ? `option --${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
      : `config ${key}`;
  const warnings: string[] = [];
  const topology = (input.topology ?? TOPOLOGY_DEFAULTS.topology) as TopologyKind;

  const onlyFor = (key: keyof TopologyInput, kinds: TopologyKind[]) => {
    if (input[key] !== undefined && !kinds.includes(topology)) {
      throw new UsageError(
        `${name(key)}: only applies to --topology ${kinds.join(' or ')} (topology is ${topology})`,
      );
    }
  };
  onlyFor('replicas', ['replset', 'sharded']);
  onlyFor('arbiter', ['replset']);
  onlyFor('priorities', ['replset']);
  for (const key of [
    'shards',
    'configServers',
    'mongos',
    'shardKey',
    'hashed',
    'presplit',
    'chunkSize',
    'stopBalancer',
  ] as const) {
    onlyFor(key, ['sharded']);
  }

  const replicas = input.replicas ?? (topology === 'sharded' ? 1 : TOPOLOGY_DEFAULTS.replicas);
  const arbiter = input.arbiter ?? false;
  if (input.priorities && input.priorities.length !== replicas) {
    throw new UsageError(
      `${name('priorities')}: give one priority per member (${replicas}), got ${input.priorities.length}`,
    );
  }
  if (input.priorities && !input.priorities.some((p) => p > 0)) {
    throw new UsageError(
      `${name('priorities')}: at least one member needs a priority above 0, or no member can become primary`,
    );
  }
  // ReplSetConfig::validate (src/mongo/db/repl/repl_set_config.cpp) refuses more than kMaxMembers (50).
  if (replicas + (arbiter ? 1 : 0) > 50) {
    throw new UsageError(
      `${name('replicas')}: ${replicas} members plus an arbiter make ${replicas + 1}; a replica set has at most 50 members`,
    );
  }
  const hashed = input.hashed ?? false;
  const presplit =
    input.presplit === undefined ? undefined : parsePresplit(input.presplit, name('presplit'));
  if (presplit && hashed) {
    throw new UsageError(
      `${name('presplit')}: needs a ranged shard key; with --hashed MongoDB creates and distributes the initial chunks itself`,
    );
  }
  const serverVersion = parseServerVersion(
    input.serverVersion ?? TOPOLOGY_DEFAULTS.serverVersion,
    style === 'flag' ? '--server-version' : 'serverVersion',
  );

  const options: TopologyOptions = {
    topology,
    replicas,
    arbiter,
    priorities: input.priorities,
    shards: input.shards ?? TOPOLOGY_DEFAULTS.shards,
    configServers: input.configServers ?? TOPOLOGY_DEFAULTS.configServers,
    mongos: input.mongos ?? TOPOLOGY_DEFAULTS.mongos,
    host: input.host ?? TOPOLOGY_DEFAULTS.host,
    bindIp: input.bindIp ?? TOPOLOGY_DEFAULTS.bindIp,
    basePort: input.basePort ?? TOPOLOGY_DEFAULTS.basePort,
    dataDir: input.dataDir ?? TOPOLOGY_DEFAULTS.dataDir,
    db: input.db ?? TOPOLOGY_DEFAULTS.db,
    collection: input.collection ?? TOPOLOGY_DEFAULTS.collection,
    shardKey: input.shardKey ?? TOPOLOGY_DEFAULTS.shardKey,
    hashed,
    presplit,
    chunkSizeMb: input.chunkSize,
    stopBalancer: input.stopBalancer ?? false,
    serverVersion,
    ...dropUndefined({ cacheSizeGb: input.cacheSizeGb }),
    ...(input.auth ? { auth: { user: input.authUser ?? TOPOLOGY_DEFAULTS.authUser } } : {}),
  };
  if (input.authUser !== undefined && !input.auth) {
    throw new UsageError(
      `${name('authUser')}: only means something with ${style === 'flag' ? '--auth' : 'auth: true'}`,
    );
  }

  // Elections need a strict majority of voting members; with an even count a split vote can leave no primary.
  // At most 7 members vote (model.ts, MAX_VOTING_MEMBERS): the rest are planned with votes: 0.
  const voters = Math.min(7, replicas + (arbiter ? 1 : 0));
  if (topology !== 'standalone' && voters > 1 && voters % 2 === 0) {
    warnings.push(
      `${name('replicas')} ${replicas}${arbiter ? ' plus an arbiter' : ''}: an even number of voting members (${voters}) ` +
        'tolerates no more failures than one member fewer and can split a vote; use an odd count' +
        (topology === 'replset' && !arbiter ? ' or add --arbiter' : ''),
    );
  }
  if (
    topology === 'sharded' &&
    options.configServers > 1 &&
    Math.min(7, options.configServers) % 2 === 0
  ) {
    warnings.push(
      `${name('configServers')} ${options.configServers}: an even number of config servers can split a vote; use an odd count`,
    );
  }
  if (topology === 'sharded' && !hashed && options.shardKey === '_id' && !presplit) {
    // Said differently when nobody chose _id: the user should learn it is the default, and how to choose.
    const flag = (f: string, key: string) => (style === 'flag' ? `--${f}` : key);
    const what =
      input.shardKey === undefined
        ? `the default shard key _id (ranged; no ${flag('shard-key', 'shardKey')} given)`
        : `${name('shardKey')} _id (ranged)`;
    warnings.push(
      `${what}: ObjectId values grow monotonically, so every insert lands in the last chunk; ` +
        `pass ${flag('hashed', 'hashed: true')} to hash _id, or ${flag('shard-key', 'shardKey')} with a numeric field and ${flag('presplit', 'presplit')} min:max`,
    );
  }
  const bindIps = options.bindIp.split(',');
  if (
    !bindIps.includes(options.host) &&
    !bindIps.includes('0.0.0.0') &&
    !isLoopback(options.host)
  ) {
    warnings.push(
      `${name('host')} ${options.host}: the processes listen on ${options.bindIp} only, but members reach each other ` +
        `at ${options.host}; add it with --bind-ip ${options.bindIp},${options.host}`,
    );
  }
  if (options.auth && !isLoopback(options.host)) {
    warnings.push(
      `${name('auth')}: the first admin user is created through the localhost exception, which only a connection over ` +
        `the loopback interface gets; the scripts connect to ${options.host}, so run them on that machine with --host 127.0.0.1 ` +
        'or create the user by hand',
    );
  }
  return { options, warnings };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host.startsWith('127.') || host === '::1';
}
