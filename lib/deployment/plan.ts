/**
 * Where the server comes from, settled before anything starts: an existing deployment (--uri, with
 * --setup the data-distribution steps for one collection), the embedded default
 * (mongodb-memory-server), or processes launched from a setup plan. `run` and `matrix` both resolve
 * their target flags (TARGET_OPTIONS, target-options.ts) here; every error is a UsageError naming the flag.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { UsageError } from '../config/errors';
import { closest, kebab } from '../config/validate';
import { resolveBinaries, ResolvedBinaries, requireMongod, requireMongos } from '../launcher';
import {
  isRunDocumentField,
  planFromOptions,
  RUN_DOCUMENT_FIELDS,
  SetupPlan,
  TopologyInput,
} from '../topology';
import { RUN_TARGET_DEFAULTS, TargetFlags } from './target-options';
import { fileTimestamp } from '../common/values';

export type TargetPlan =
  | { kind: 'uri'; uri: string; setup?: SetupPlan }
  | {
      kind: 'embedded';
      topology: 'standalone' | 'replset';
      replicas: number;
      binaries: ResolvedBinaries;
      auth?: boolean;
    }
  | {
      kind: 'launched';
      plan: SetupPlan;
      binaries: ResolvedBinaries;
      /** Parent of every process's folder; created when the run starts. */
      dataDir: string;
      /** A folder of our own under the temp dir, removed afterwards (unless --keep-data). */
      removeDataDir: boolean;
      readyTimeoutMs: number;
    };

/** The collection a sharded target shards for the benchmark (run's): its namespace and what is loaded into it. */
export interface BenchmarkCollection {
  db: string;
  collection: string;
  docs: number;
  load: boolean;
}

export interface TargetPlanContext {
  now: Date;
  env: Readonly<Record<string, string | undefined>>;
  /** --auth: the first admin user's name (the user the run connects as; default "admin"). */
  authUser?: string;
  /**
   * The benchmark's collection, sharded on a launched sharded cluster (and by --uri --setup).
   * Absent: a launched sharded cluster is planned up to its shards being added (the matrix: an
   * experiment that shards shards its own collection), in database `db`.
   */
  collection?: BenchmarkCollection;
  db?: string;
}

export interface ResolvedTargetPlan {
  target: TargetPlan;
  warnings: string[];
  /** Choices made for the user that the dry run and the log should state. */
  notes: string[];
}

/** The flags that shape a launched deployment (none applies to --uri). */
export const TOPOLOGY_KEYS = [
  'topology',
  'replicas',
  'shards',
  'configServers',
  'mongos',
  'basePort',
  'dataDir',
  'keepData',
  'serverVersion',
  'mongodBin',
  'binDir',
  'readyTimeout',
  'cacheSizeGb',
] as const;
const SHARDING_KEYS = ['shardKey', 'hashed', 'presplit', 'chunkSize', 'stopBalancer'] as const;
const LAUNCH_ONLY_KEYS = [
  'basePort',
  'dataDir',
  'keepData',
  'readyTimeout',
  'cacheSizeGb',
] as const;

/** The target flags (validated, nothing defaulted) -> the target plan. */
export function resolveTargetPlan(
  flags: Partial<TargetFlags>,
  ctx: TargetPlanContext,
): ResolvedTargetPlan {
  const warnings: string[] = [];
  const notes: string[] = [];
  const given = (keys: readonly (keyof TargetFlags)[]) =>
    keys.filter((k) => flags[k] !== undefined);
  const optionName = (k: string) => `--${kebab(k)}`;
  const sharding = (): TopologyInput =>
    ctx.collection
      ? shardingInput(flags, ctx.collection, notes, warnings)
      : // The cluster alone: a hashed key keeps the plan from a pre-split (and from naming the cluster "-presplit").
        {
          topology: 'sharded',
          db: ctx.db ?? RUN_TARGET_DEFAULTS.db,
          hashed: true,
          serverVersion: flags.serverVersion,
        };

  let target: TargetPlan;
  if (flags.uri !== undefined) {
    if (flags.auth)
      throw new UsageError(
        'option --auth: starts a launched or embedded server with access control; for an existing deployment (--uri) give --username and the password (env MONGO_BENCH_PASSWORD)',
      );
    const misplaced = given(TOPOLOGY_KEYS);
    if (misplaced.length > 0) {
      throw new UsageError(
        `option ${optionName(misplaced[0])}: does not apply with --uri (the deployment exists; only --setup and ${SHARDING_KEYS.map(optionName).join(', ')} shape it)`,
      );
    }
    if (flags.setup) {
      // Only the data-distribution part of a sharded plan: shard the benchmark's collection, pre-split, balancer.
      const setup = planFromOptions(sharding());
      warnings.push(...setup.warnings);
      target = { kind: 'uri', uri: flags.uri, setup };
    } else {
      const shardingFlags = given(SHARDING_KEYS);
      if (shardingFlags.length > 0)
        throw new UsageError(
          `option ${optionName(shardingFlags[0])}: only applies with --setup (shard the collection on the existing cluster) or to a launched --topology sharded`,
        );
      target = { kind: 'uri', uri: flags.uri };
    }
    return { target, warnings, notes };
  }
  if (flags.setup)
    throw new UsageError(
      'option --setup: only applies with --uri; a launched cluster is always set up from its plan',
    );
  const topology = flags.topology ?? 'standalone';
  const explicitBinary = flags.mongodBin !== undefined || flags.binDir !== undefined;
  const binaries = resolveBinaries({
    mongodBin: flags.mongodBin,
    binDir: flags.binDir,
    env: ctx.env,
  });
  if (
    topology === 'sharded' ||
    ((topology === 'standalone' || topology === 'replset') && explicitBinary)
  ) {
    const ownDataDir = flags.dataDir === undefined;
    const dataDir =
      flags.dataDir !== undefined
        ? path.resolve(flags.dataDir)
        : path.join(os.tmpdir(), `mongo-bench-${fileTimestamp(ctx.now)}-${process.pid}`);
    const input: TopologyInput = {
      topology,
      replicas: flags.replicas,
      shards: flags.shards,
      configServers: flags.configServers,
      mongos: flags.mongos,
      basePort: flags.basePort,
      dataDir,
      serverVersion: flags.serverVersion,
      cacheSizeGb: flags.cacheSizeGb,
      ...(flags.auth ? { auth: true, authUser: ctx.authUser ?? 'admin' } : {}),
      ...(topology === 'sharded' ? sharding() : rejectSharding(flags)),
    };
    if (topology === 'sharded') input.topology = 'sharded';
    const planned = planFromOptions(input);
    // After the values: a wrong --shards or --base-port is named before the missing binaries are.
    if (topology === 'sharded') {
      requireMongos(binaries); // says what a sharded cluster needs when nothing was given
      requireMongod(binaries);
    }
    const plan = topology === 'sharded' && !ctx.collection ? clusterOnly(planned) : planned;
    warnings.push(...plan.warnings);
    target = {
      kind: 'launched',
      plan,
      binaries,
      dataDir,
      removeDataDir: ownDataDir && flags.keepData !== true,
      readyTimeoutMs: flags.readyTimeout ?? RUN_TARGET_DEFAULTS.readyTimeoutMs,
    };
  } else if (topology === 'standalone' || topology === 'replset') {
    const launchOnly = given([
      ...LAUNCH_ONLY_KEYS,
      'shards',
      'configServers',
      'mongos',
      'serverVersion',
    ]);
    if (launchOnly.length > 0) {
      throw new UsageError(
        `option ${optionName(launchOnly[0])}: only applies to a launched cluster (--topology sharded, or --mongod-bin/--bin-dir); the embedded default (mongodb-memory-server) chooses its own ports and folders`,
      );
    }
    rejectSharding(flags);
    if (topology === 'standalone' && flags.replicas !== undefined)
      throw new UsageError(
        'option --replicas: only applies to --topology replset or sharded (topology is standalone)',
      );
    const replicas = flags.replicas ?? 3;
    if (topology === 'replset' && (!Number.isInteger(replicas) || replicas < 1 || replicas > 50))
      throw new UsageError(`option --replicas: must be an integer from 1 to 50, got ${replicas}`);
    target = {
      kind: 'embedded',
      topology,
      replicas,
      binaries,
      ...(flags.auth ? { auth: true } : {}),
    };
  } else {
    const suggestion = closest(topology, ['standalone', 'replset', 'sharded']);
    throw new UsageError(
      `option --topology: must be one of standalone, replset, sharded (got "${topology}"${suggestion ? `; did you mean "${suggestion}"?` : ''})`,
    );
  }
  return { target, warnings, notes };
}

/**
 * A launched cluster's plan up to the shards being added, without the sharding of a collection
 * (enableSharding, shardCollection and what follows).
 */
export function clusterOnly(plan: SetupPlan): SetupPlan {
  return {
    ...plan,
    steps: plan.steps.filter((s) => s.phase === 'replsets' || 'addShard' in s.command),
    notes: plan.notes.filter((n) => !n.includes('enableSharding')),
  };
}

/** The sharding part of the topology input; the benchmark's collection is the one sharded. */
function shardingInput(
  flags: Partial<TargetFlags>,
  benchmark: BenchmarkCollection,
  notes: string[],
  warnings: string[],
): TopologyInput {
  const shardKey = flags.shardKey ?? '_id';
  const docs = benchmark.docs;
  if (!isRunDocumentField(shardKey)) {
    // A document without the shard key is stored as if the key were null: all of them in one chunk.
    const why =
      `the documents run loads have the fields ${RUN_DOCUMENT_FIELDS.join(', ')}, not "${shardKey}"; a missing shard key counts as null, ` +
      'so every document would land in one chunk on one shard';
    if (benchmark.load)
      throw new UsageError(
        `option --shard-key: ${why}. Shard on one of those fields (e.g. --shard-key _id or --shard-key k)`,
      );
    warnings.push(
      `option --shard-key ${shardKey}: ${why}, unless the documents already there (--no-load) carry it`,
    );
  }
  let presplit = flags.presplit;
  if (presplit === undefined && shardKey === '_id' && flags.hashed !== true) {
    // The loader writes _id 0..docs-1 and the presets read random _id in [0, docs): split that range evenly.
    presplit = { min: 0, max: docs };
    notes.push(
      `shard key _id (ranged), pre-split over [0, ${docs}) (the loaded _id range; --presplit MIN:MAX or --hashed to change it)`,
    );
  }
  return {
    topology: 'sharded',
    db: benchmark.db,
    collection: benchmark.collection,
    shardKey,
    hashed: flags.hashed,
    presplit,
    chunkSize: flags.chunkSize,
    stopBalancer: flags.stopBalancer,
    serverVersion: flags.serverVersion,
  };
}

function rejectSharding(flags: Partial<TargetFlags>): Record<string, never> {
  const sharding = SHARDING_KEYS.filter((k) => flags[k] !== undefined);
  if (sharding.length > 0)
    throw new UsageError(
      `option --${kebab(sharding[0])}: only applies to --topology sharded (or --uri ... --setup)`,
    );
  return {};
}
