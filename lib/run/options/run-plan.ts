/**
 * What `mongo-bench run` will do, settled before anything starts: the benchmark options, where the
 * server comes from (an existing --uri, the embedded default, or a cluster launched from a setup
 * plan), what gets set up, and where the output goes. Options come from a preset, a config file and
 * the flags, in that order of precedence (flags win). Every error here is a UsageError (exit 2).
 */
import * as path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../config/errors';
import { ConfigFileResult, placeInFile, readConfigFile } from '../../config/config-file';
import { withOptionPlaces } from '../../config/error-place';
import { runPreset } from './presets';
import { AGENT_FLAG_KEYS, AGENT_RUN_OPTIONS, AgentFlags } from '../../agents/options';
import { tableDefaults, tableShape } from '../../config/option-table';
import { RUN_OUTPUT_OPTIONS } from './run-option-table';
import { RUN_SOURCE_OPTIONS } from './run-source-options';
import {
  benchmarkShape,
  BenchmarkFlags,
  OutputFlags,
  resolveBenchmarkOptions,
  RunFlags,
  RunOptions,
  RUN_DEFAULTS,
} from './run-options';
import { RUN_TARGET_DEFAULTS, targetShape } from '../../deployment/target-options';
import { parseOptions } from '../../config/validate';
import { resolveTargetPlan, TargetPlan, TOPOLOGY_KEYS } from '../../deployment/plan';
import { checkWireDriver, uriRetries } from './driver-check';
import { URI_ENV } from '../../security/uri-credentials';
import { compileRunWorkload } from './run-workload';
import { resolveStoreSpec } from '../../store/store';
import { dropUndefined } from '../../common/values';
import { DEFAULT_CONTROL_DB } from '../../agents/control';
import { sameHostsByName } from '../../server/same-deployment';
import { checkMemberEvents } from './member-check';
import {
  docsLikeDropRefusal,
  docsLikeSource,
  dropOfDocsLikeSource,
  planProblems,
  runWritePlan,
  RunWritePlan,
} from './run-write-plan';

export interface RunPlan {
  benchmark: Omit<RunOptions, 'uri'> & { outDir: string };
  target: TargetPlan;
  /** The benchmark's database (of its namespace: --ns, --db/--collection, or the workload file's `ns`). */
  db: string;
  /** --drop: the consent to replace the collections the load replaces, dropped first. */
  drop: boolean;
  /** Every write the run will make (./run-write-plan.ts): printed by --dry-run, checked before the first write. */
  writePlan: RunWritePlan;
  json: boolean;
  quiet: boolean;
  /** --force: files in outDir that mongo-bench did not write may be replaced (lib/common/file-plan.ts). */
  force?: boolean;
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
  /** --junit: the JUnit XML file (absolute), a file entry of the write plan, written after the run. */
  junit?: string;
  /** --serve: the served page's address while the run goes, and how long it stays after (lib/run/served-page.ts). */
  serve?: ServeOptions;
}

export interface ServeOptions {
  /** 0: a free port, chosen when the server starts. */
  port: number;
  host: string;
  lingerSeconds: number;
}

/** Every key a config file may hold (the flags, camelCase), validated the same way for both. */
export const runShape = {
  ...benchmarkShape,
  ...targetShape,
  ...tableShape(RUN_OUTPUT_OPTIONS),
  preset: RUN_SOURCE_OPTIONS.preset.schema.optional(),
  // --agents and its options: checked by lib/agents/options (resolveAgentRunOptions), errors naming the option.
  ...tableShape(AGENT_RUN_OPTIONS),
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
export function mergeSources(
  lower: Partial<RunFlags>,
  higher: Partial<RunFlags>,
): Partial<RunFlags> {
  const base: Record<string, unknown> = { ...lower };
  for (const group of EXCLUSIVE_GROUPS) {
    if (group.some((k) => higher[k] !== undefined)) for (const k of group) delete base[k];
  }
  return { ...base, ...dropUndefined(higher) } as Partial<RunFlags>;
}

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
  }
  const presetName = cliValues.preset ?? fileValues.preset;
  const presetValues: Partial<RunFlags> =
    presetName !== undefined
      ? {
          ...runPreset(
            presetName,
            cliValues.preset !== undefined ? 'option --preset' : `config ${config} preset`,
          ).values,
        }
      : {};
  if (presetName !== undefined) sources.push(`preset ${presetName}`);
  if (config !== undefined) sources.push(`config ${config}`);
  if (Object.keys(cli).some((k) => k !== 'preset')) sources.push('flags');
  const flags = mergeSources(mergeSources(presetValues, fileValues), cliValues);
  // A check of a value the file gave names the file and line, not the flag nobody typed.
  const place = (key: string, path: ReadonlyArray<string | number> = []) =>
    fromFile && (cliValues as Record<string, unknown>)[key] === undefined
      ? placeInFile(fromFile, key, path)
      : undefined;
  return withOptionPlaces(
    () =>
      planFromFlags(flags, { now, env, dryRun: dryRun === true, sources, authUser: ctx.authUser }),
    place,
  );
}

function planFromFlags(
  flags: Partial<RunFlags>,
  ctx: {
    now: Date;
    env: Readonly<Record<string, string | undefined>>;
    dryRun: boolean;
    sources: string[];
    authUser?: string;
  },
): RunPlan {
  // The namespace: --ns, or --db and --collection (the scripts command's names for it).
  if (flags.ns !== undefined && (flags.db !== undefined || flags.collection !== undefined)) {
    throw new UsageError(
      'option --ns cannot be combined with --db/--collection: give "database.collection" with --ns, or the parts',
    );
  }
  // The namespace given, else the workload file's own `ns`, else the default (resolveBenchmarkOptions).
  const given = flags.ns !== undefined || flags.db !== undefined || flags.collection !== undefined;
  const benchmarkFlags: BenchmarkFlags = pick(
    flags,
    Object.keys(benchmarkShape) as (keyof BenchmarkFlags)[],
  );
  if (given)
    benchmarkFlags.ns =
      flags.ns ??
      `${flags.db ?? RUN_TARGET_DEFAULTS.db}.${flags.collection ?? RUN_TARGET_DEFAULTS.collection}`;
  const benchmark = resolveBenchmarkOptions(benchmarkFlags, ctx.now) as RunPlan['benchmark'];
  // Every op and template error now, before anything is launched or written.
  const compiled = compileRunWorkload(benchmark);
  const dot = benchmark.ns.indexOf('.');
  const db = benchmark.ns.slice(0, dot);
  const collection = benchmark.ns.slice(dot + 1);

  const { target, warnings, notes } = resolveTargetPlan(withEnvUri(flags, ctx.env), {
    now: ctx.now,
    env: ctx.env,
    authUser: ctx.authUser,
    collection: { db, collection, docs: benchmark.docs, load: benchmark.load },
  });
  checkMemberEvents(benchmark, target);
  const uri = target.kind === 'uri' ? target.uri : undefined;
  checkWireDriver(
    benchmark,
    compiled.ops.map((op) => op.spec),
    uri,
  );
  const retries = uriRetries(uri);
  if (retries.retries) benchmark.uriRetries = retries.retries;
  if (retries.note) notes.push(retries.note);
  const store = storeOf(flags.store, ctx.env);
  const junit = flags.junit !== undefined ? path.resolve(flags.junit) : undefined;
  const serve = serveOf(flags);
  const writePlan = planWrites(flags, benchmark, target, store.store, junit);
  return {
    benchmark,
    target,
    db,
    drop: flags.drop === true,
    json: flags.json === true,
    quiet: flags.quiet === true,
    force: flags.force === true,
    dryRun: ctx.dryRun,
    sources: ctx.sources,
    warnings,
    notes,
    agents: pick(flags, AGENT_FLAG_KEYS),
    writePlan,
    ...store,
    ...(junit !== undefined ? { junit } : {}),
    ...(serve ? { serve } : {}),
  };
}

const OUTPUT_DEFAULTS = tableDefaults(RUN_OUTPUT_OPTIONS);

/** --serve and its companions; --serve-host or --serve-linger alone is a mistake worth saying. */
function serveOf(flags: Partial<RunFlags>): ServeOptions | undefined {
  if (flags.serve === undefined) {
    const alone = (['serveHost', 'serveLinger'] as const).find((k) => flags[k] !== undefined);
    if (alone)
      throw new UsageError(
        `option --${alone === 'serveHost' ? 'serve-host' : 'serve-linger'}: only with --serve`,
      );
    return undefined;
  }
  return {
    port: flags.serve,
    host: flags.serveHost ?? OUTPUT_DEFAULTS.serveHost,
    lingerSeconds: flags.serveLinger ?? OUTPUT_DEFAULTS.serveLinger,
  };
}

/**
 * env MONGO_BENCH_URI stands for --uri (kept out of `ps`) when neither the flags nor a config file give a
 * target: no --uri and nothing that shapes a launched deployment.
 */
function withEnvUri(
  flags: Partial<RunFlags>,
  env: Readonly<Record<string, string | undefined>>,
): Partial<RunFlags> {
  const uri = env[URI_ENV]?.trim();
  if (!uri || flags.uri !== undefined || TOPOLOGY_KEYS.some((k) => flags[k] !== undefined))
    return flags;
  return { ...flags, uri };
}

/**
 * The run's write plan; what no consent allows is refused now (exit 2), before anything starts: a system
 * or invalid namespace, one made by a template, --drop dropping --docs-like's source.
 */
function planWrites(
  flags: Partial<RunFlags>,
  benchmark: RunPlan['benchmark'],
  target: TargetPlan,
  store: string | undefined,
  junit: string | undefined,
): RunWritePlan {
  // A sharded collection is emptied, not dropped, by the loader (it keeps its sharding): as runSweep runs it.
  const sharded =
    (target.kind === 'launched' && target.plan.topology.kind === 'sharded') ||
    (target.kind === 'uri' && target.setup !== undefined);
  const plan = runWritePlan(
    { ...benchmark, keepCollection: sharded, drop: flags.drop === true },
    target.kind,
    {
      ...(store !== undefined ? { store } : {}),
      ...(flags.agents !== undefined
        ? {
            control: {
              db: flags.controlDb ?? DEFAULT_CONTROL_DB,
              ...(flags.controlUri !== undefined ? { uri: flags.controlUri } : {}),
            },
          }
        : {}),
      ...(target.kind === 'uri' && target.setup?.topology.sharding
        ? { clusterSetup: target.setup.topology.sharding }
        : {}),
      ...(junit !== undefined ? { junit } : {}),
    },
  );
  const problems = planProblems(plan);
  if (problems) throw new UsageError(problems);
  const source = docsLikeSource(benchmark.docsLike);
  // On the target by name (db.coll, or a URI naming its host): refused now; another name for it once connected.
  if (
    source &&
    dropOfDocsLikeSource(plan, source) &&
    (!source.uri || (target.kind === 'uri' && sameHostsByName(source.uri, target.uri)))
  )
    throw new UsageError(docsLikeDropRefusal(source));
  return plan;
}

function storeOf(
  given: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): { store?: string } {
  const store = resolveStoreSpec(given, env);
  return store !== undefined ? { store } : {};
}

function pick<T extends object, K extends keyof T>(obj: Partial<T>, keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k] as T[K];
  return out;
}

export type { OutputFlags };
export { RUN_DEFAULTS };
