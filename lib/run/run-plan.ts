/**
 * What `mongo-bench run` will do, settled before anything starts: the benchmark options, where the
 * server comes from (an existing --uri, the embedded default, or a cluster launched from a setup
 * plan), what gets set up, and where the output goes. Options come from a preset, a config file and
 * the flags, in that order of precedence (flags win). Every error here is a UsageError (exit 2).
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../config/errors';
import { ConfigFileResult, placeInFile, readConfigFile } from '../config/config-file';
import { withOptionPlaces } from '../config/error-place';
import { runPreset } from '../config/presets';
import { AGENT_FLAG_KEYS, AgentFlags, benchmarkShape, BenchmarkFlags, OutputFlags, resolveBenchmarkOptions, RunFlags, RunOptions, RUN_DEFAULTS, TargetFlags } from '../config/run-options';
import { closest, kebab, parseOptions } from '../config/validate';
import { resolveBinaries, ResolvedBinaries, requireMongod, requireMongos } from '../launcher';
import { isRunDocumentField, planFromOptions, RUN_DOCUMENT_FIELDS, SetupPlan, TopologyInput } from '../topology';
import { compileRunWorkload } from '../workload/benchmark';
import { resolveStoreSpec } from '../store/store';

export type TargetPlan =
  | { kind: 'uri'; uri: string; setup?: SetupPlan }
  | { kind: 'embedded'; topology: 'standalone' | 'replset'; replicas: number; binaries: ResolvedBinaries; auth?: boolean }
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

export interface RunPlan {
  benchmark: Omit<RunOptions, 'uri'> & { outDir: string };
  target: TargetPlan;
  /** The benchmark's database: the only one touched on an existing deployment; dropped first with --drop. */
  db: string;
  drop: boolean;
  json: boolean;
  quiet: boolean;
  dryRun: boolean;
  /** Where the options came from, e.g. ["preset quick", "config run.yaml", "flags"]. */
  sources: string[];
  warnings: string[];
  /** Choices made for the user that the dry run and the log should state. */
  notes: string[];
  /** --agents and its options as given (flags over config file over preset); empty without --agents. */
  agents: AgentFlags;
  /** Where the result is kept besides outDir: --store, the config's store, or env MONGO_BENCH_STORE (lib/store). */
  store?: string;
}

export const RUN_TARGET_DEFAULTS = { db: 'mongo_bench', collection: 'docs', readyTimeoutMs: 60_000 } as const;

const positive = (what: string) => z.number().int(`${what} must be an integer`).min(1, `${what} must be at least 1`);

/** Every key a config file may hold (the flags, camelCase), validated the same way for both. */
export const runShape = {
  ...benchmarkShape,
  uri: z.string().min(1, 'must not be empty').optional(),
  setup: z.boolean().optional(),
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
  presplit: z.union([z.string(), z.object({ min: z.number(), max: z.number() }).strict()]).optional(),
  chunkSize: z.number().optional(),
  stopBalancer: z.boolean().optional(),
  serverVersion: z.string().optional(),
  mongodBin: z.string().min(1, 'must not be empty').optional(),
  binDir: z.string().min(1, 'must not be empty').optional(),
  readyTimeout: positive('the ready timeout (ms)').optional(),
  cacheSizeGb: z.number().optional(),
  auth: z.boolean().optional(),
  json: z.boolean().optional(),
  quiet: z.boolean().optional(),
  preset: z.string().optional(),
  // A config file may give the write concern as an object.
  writeConcern: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  // --agents and its options: checked by lib/agents/options (resolveAgentRunOptions), errors naming the option.
  agents: z.number().optional(),
  controlUri: z.string().min(1, 'must not be empty').optional(),
  controlDb: z.string().min(1, 'must not be empty').optional(),
  agentWait: z.number().optional(),
  agentTimeout: z.number().optional(),
  store: z.string().min(1, 'must not be empty').optional(),
};

const NOT_IN_FILE = {
  config: 'cannot be set in a config file (a config file does not include another)',
  dryRun: 'is a command-line switch: use --dry-run',
};

/** Options where giving one in a higher source replaces the whole group from lower sources. */
const EXCLUSIVE_GROUPS: (keyof RunFlags)[][] = [
  ['clients', 'maxClients'],
  ['workload', 'workloadFile'],
  ['ns', 'db', 'collection'],
  ['mongodBin', 'binDir'],
];

/** lower < higher: the higher source wins, and replaces any exclusive group it touches. */
export function mergeSources(lower: Partial<RunFlags>, higher: Partial<RunFlags>): Partial<RunFlags> {
  const base: Record<string, unknown> = { ...lower };
  for (const group of EXCLUSIVE_GROUPS) {
    if (group.some((k) => higher[k] !== undefined)) for (const k of group) delete base[k];
  }
  return { ...base, ...dropUndefined(higher) } as Partial<RunFlags>;
}

const TOPOLOGY_KEYS = ['topology', 'replicas', 'shards', 'configServers', 'mongos', 'basePort', 'dataDir', 'keepData', 'serverVersion', 'mongodBin', 'binDir', 'readyTimeout', 'cacheSizeGb'] as const;
const SHARDING_KEYS = ['shardKey', 'hashed', 'presplit', 'chunkSize', 'stopBalancer'] as const;
const LAUNCH_ONLY_KEYS = ['basePort', 'dataDir', 'keepData', 'readyTimeout', 'cacheSizeGb'] as const;

export interface ResolveContext {
  now?: Date;
  env?: Readonly<Record<string, string | undefined>>;
  /** --auth: the first admin user's name (the user the run connects as; default "admin"). */
  authUser?: string;
}

/** Flags (as given on the command line, nothing defaulted) -> the run plan. */
export function resolveRunPlan(cliFlags: RunFlags, ctx: ResolveContext = {}): RunPlan {
  const now = ctx.now ?? new Date();
  const env = ctx.env ?? process.env;
  const { config, dryRun, ...cli } = dropUndefined(cliFlags) as RunFlags;
  const cliValues = parseOptions(z.object(runShape).strict(), cli) as Partial<RunFlags>;

  const sources: string[] = [];
  let fileValues: Partial<RunFlags> = {};
  let fromFile: ConfigFileResult<unknown> | undefined;
  if (config !== undefined) {
    fromFile = readConfigFile(config, runShape, NOT_IN_FILE);
    fileValues = fromFile.values as Partial<RunFlags>;
    if (fileValues.writeConcern !== undefined && typeof fileValues.writeConcern !== 'string') fileValues.writeConcern = JSON.stringify(fileValues.writeConcern);
  }
  const presetName = cliValues.preset ?? fileValues.preset;
  const presetValues: Partial<RunFlags> = presetName !== undefined ? { ...runPreset(presetName, cliValues.preset !== undefined ? 'option --preset' : `config ${config} preset`).values } : {};
  if (presetName !== undefined) sources.push(`preset ${presetName}`);
  if (config !== undefined) sources.push(`config ${config}`);
  if (Object.keys(cli).some((k) => k !== 'preset')) sources.push('flags');
  const flags = mergeSources(mergeSources(presetValues, fileValues), cliValues);
  // A check of a value the file gave names the file and line, not the flag nobody typed.
  const place = (key: string) => (fromFile && (cliValues as Record<string, unknown>)[key] === undefined ? placeInFile(fromFile, key) : undefined);
  return withOptionPlaces(() => planFromFlags(flags, { now, env, dryRun: dryRun === true, sources, authUser: ctx.authUser }), place);
}

function planFromFlags(flags: Partial<RunFlags>, ctx: { now: Date; env: Readonly<Record<string, string | undefined>>; dryRun: boolean; sources: string[]; authUser?: string }): RunPlan {
  const warnings: string[] = [];
  const notes: string[] = [];
  const given = (keys: readonly (keyof RunFlags)[]) => keys.filter((k) => flags[k] !== undefined);
  const optionName = (k: string) => `--${kebab(k)}`;

  // The namespace: --ns, or --db and --collection (the scripts command's names for it).
  if (flags.ns !== undefined && (flags.db !== undefined || flags.collection !== undefined)) {
    throw new UsageError('option --ns cannot be combined with --db/--collection: give "database.collection" with --ns, or the parts');
  }
  const ns = flags.ns ?? `${flags.db ?? RUN_TARGET_DEFAULTS.db}.${flags.collection ?? RUN_TARGET_DEFAULTS.collection}`;
  const benchmarkFlags: BenchmarkFlags = pick(flags, Object.keys(benchmarkShape) as (keyof BenchmarkFlags)[]);
  benchmarkFlags.ns = ns;
  const benchmark = resolveBenchmarkOptions(benchmarkFlags, ctx.now) as RunPlan['benchmark'];
  // Every op and template error now, before anything is launched or written.
  compileRunWorkload(benchmark);
  const dot = ns.indexOf('.');
  const db = ns.slice(0, dot);
  const collection = ns.slice(dot + 1);

  let target: TargetPlan;
  if (flags.uri !== undefined) {
    if (flags.auth) throw new UsageError('option --auth: starts a launched or embedded server with access control; for an existing deployment (--uri) give --username and the password (env MONGO_BENCH_PASSWORD)');
    const misplaced = given(TOPOLOGY_KEYS);
    if (misplaced.length > 0) {
      throw new UsageError(`option ${optionName(misplaced[0])}: does not apply with --uri (the deployment exists; only --setup and ${SHARDING_KEYS.map(optionName).join(', ')} shape it)`);
    }
    if (flags.setup) {
      // Only the data-distribution part of a sharded plan: shard the benchmark's collection, pre-split, balancer.
      const setup = planFromOptions(shardingInput(flags, db, collection, benchmark, notes, warnings));
      warnings.push(...setup.warnings);
      target = { kind: 'uri', uri: flags.uri, setup };
    } else {
      const sharding = given(SHARDING_KEYS);
      if (sharding.length > 0) throw new UsageError(`option ${optionName(sharding[0])}: only applies with --setup (shard the collection on the existing cluster) or to a launched --topology sharded`);
      target = { kind: 'uri', uri: flags.uri };
    }
  } else {
    if (flags.setup) throw new UsageError('option --setup: only applies with --uri; a launched cluster is always set up from its plan');
    const topology = flags.topology ?? 'standalone';
    const explicitBinary = flags.mongodBin !== undefined || flags.binDir !== undefined;
    const binaries = resolveBinaries({ mongodBin: flags.mongodBin, binDir: flags.binDir, env: ctx.env });
    if (topology === 'sharded' || ((topology === 'standalone' || topology === 'replset') && explicitBinary)) {
      if (topology === 'sharded') {
        requireMongos(binaries); // says what a sharded cluster needs when nothing was given
        requireMongod(binaries);
      }
      const ownDataDir = flags.dataDir === undefined;
      const dataDir = flags.dataDir !== undefined ? path.resolve(flags.dataDir) : path.join(os.tmpdir(), `mongo-bench-${timestamp(ctx.now)}-${process.pid}`);
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
        ...(topology === 'sharded' ? shardingInput(flags, db, collection, benchmark, notes, warnings) : rejectSharding(flags)),
      };
      if (topology === 'sharded') input.topology = 'sharded';
      const plan = planFromOptions(input);
      warnings.push(...plan.warnings);
      target = { kind: 'launched', plan, binaries, dataDir, removeDataDir: ownDataDir && flags.keepData !== true, readyTimeoutMs: flags.readyTimeout ?? RUN_TARGET_DEFAULTS.readyTimeoutMs };
    } else if (topology === 'standalone' || topology === 'replset') {
      const launchOnly = given([...LAUNCH_ONLY_KEYS, 'shards', 'configServers', 'mongos', 'serverVersion']);
      if (launchOnly.length > 0) {
        throw new UsageError(`option ${optionName(launchOnly[0])}: only applies to a launched cluster (--topology sharded, or --mongod-bin/--bin-dir); the embedded default (mongodb-memory-server) chooses its own ports and folders`);
      }
      rejectSharding(flags);
      if (topology === 'standalone' && flags.replicas !== undefined) throw new UsageError('option --replicas: only applies to --topology replset or sharded (topology is standalone)');
      const replicas = flags.replicas ?? 3;
      if (topology === 'replset' && (!Number.isInteger(replicas) || replicas < 1 || replicas > 50)) throw new UsageError(`option --replicas: must be an integer from 1 to 50, got ${replicas}`);
      target = { kind: 'embedded', topology, replicas, binaries, ...(flags.auth ? { auth: true } : {}) };
    } else {
      const suggestion = closest(topology, ['standalone', 'replset', 'sharded']);
      throw new UsageError(`option --topology: must be one of standalone, replset, sharded (got "${topology}"${suggestion ? `; did you mean "${suggestion}"?` : ''})`);
    }
  }
  return {
    benchmark,
    target,
    db,
    drop: flags.drop === true,
    json: flags.json === true,
    quiet: flags.quiet === true,
    dryRun: ctx.dryRun,
    sources: ctx.sources,
    warnings,
    notes,
    agents: pick(flags, AGENT_FLAG_KEYS),
    ...storeOf(flags.store, ctx.env),
  };
}

function storeOf(given: string | undefined, env: Readonly<Record<string, string | undefined>>): { store?: string } {
  const store = resolveStoreSpec(given, env);
  return store !== undefined ? { store } : {};
}

/** The sharding part of the topology input; the benchmark's collection is the one sharded. */
function shardingInput(
  flags: Partial<TargetFlags>,
  db: string,
  collection: string,
  benchmark: Pick<RunOptions, 'docs' | 'load'>,
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
    if (benchmark.load) throw new UsageError(`option --shard-key: ${why}. Shard on one of those fields (e.g. --shard-key _id or --shard-key k)`);
    warnings.push(`option --shard-key ${shardKey}: ${why}, unless the documents already there (--no-load) carry it`);
  }
  let presplit = flags.presplit;
  if (presplit === undefined && shardKey === '_id' && flags.hashed !== true) {
    // The loader writes _id 0..docs-1 and the presets read random _id in [0, docs): split that range evenly.
    presplit = { min: 0, max: docs };
    notes.push(`shard key _id (ranged), pre-split over [0, ${docs}) (the loaded _id range; --presplit MIN:MAX or --hashed to change it)`);
  }
  return {
    topology: 'sharded',
    db,
    collection,
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
  if (sharding.length > 0) throw new UsageError(`option --${kebab(sharding[0])}: only applies to --topology sharded (or --uri ... --setup)`);
  return {};
}

function pick<T extends object, K extends keyof T>(obj: Partial<T>, keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k] as T[K];
  return out;
}

function dropUndefined<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function timestamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[:]/g, '-');
}

export type { OutputFlags };
export { RUN_DEFAULTS };
