/**
 * Options of `mongo-bench matrix`: the flags commander hands over, validated (each error names its
 * option), resolved into MatrixRunOptions. Experiment flags (--writers, --inserts, --max-clients, ...)
 * apply only to the experiment that has the parameter; anything else is a usage error.
 */
import { z } from 'zod';
import { UsageError } from '../config/errors';
import { parseOptions } from '../config/validate';
import { parsePresplit } from '../topology/options';
import { readMatrixFile } from './matrix-file';
import { PARAMETER_SCHEMAS, SIZING } from './parameters';
import { MatrixRunOptions } from './plan';
import { MATRIX_PRESET_NAMES, matrixPreset } from './presets';
import { slug } from './settings';
import { resolveMatrixTarget } from './matrix-target';
import { pickTopologyFlags, TopologyFlags } from './topology-options';
import { TargetPlan } from '../run/run-plan';

export const MATRIX_DEFAULTS = { db: 'mongo_bench_matrix', serverSelectionTimeout: 5000 } as const;

export interface MatrixFlags {
  preset?: string;
  matrix?: string;
  uri?: string;
  scale?: number;
  out?: string;
  db?: string;
  docs?: number;
  docSize?: number;
  batchSize?: number;
  writers?: number;
  readers?: number;
  readStart?: string;
  inserts?: number;
  rounds?: number;
  maxClients?: number;
  seconds?: number;
  warmup?: number;
  datasetRatio?: number[];
  shardKey?: string;
  presplit?: string;
  chunkSize?: number;
  hashedKey?: string;
  sampleInterval?: number;
  maxSeconds?: number;
  setup?: boolean;
  seed?: number;
  serverSelectionTimeout?: number;
  testDouble?: boolean;
  dryRun?: boolean;
}

/** Everything `mongo-bench matrix` takes: its own flags and run's topology flags. */
export type MatrixCliFlags = MatrixFlags & TopologyFlags;

const positiveInt = (what: string) => z.number().int(`${what} must be an integer`).min(1, `${what} must be at least 1`);

const flagsSchema = z
  .object({
    preset: z.string().min(1).optional(),
    matrix: z.string().min(1).optional(),
    uri: z.string().min(1, 'must not be empty').optional(),
    scale: z.number().positive('must be > 0 (1 = the seed\'s full size)').optional(),
    out: z.string().min(1, 'must not be empty').optional(),
    db: z.string().regex(/^[^/\\. "$]+$/, 'expected a database name (no dots, slashes, spaces, quotes or $)').optional(),
    docs: positiveInt('the document count').optional(),
    docSize: z.number().int().min(64, 'documents are at least 64 bytes').max(16 * 1024 * 1024, 'at most 16 MiB (the BSON limit)').optional(),
    batchSize: positiveInt('the batch size').optional(),
    writers: positiveInt('writers').optional(),
    readers: positiveInt('readers').optional(),
    readStart: z.enum(['after-writes', 'with-writes'], { error: 'expected after-writes or with-writes' }).optional(),
    inserts: positiveInt('inserts').optional(),
    rounds: positiveInt('rounds').optional(),
    maxClients: positiveInt('the maximum client count').optional(),
    seconds: positiveInt('seconds per step').optional(),
    warmup: z.number().int().min(0, 'must be >= 0').optional(),
    datasetRatio: z.array(z.number().positive('each ratio must be > 0')).min(1).optional(),
    shardKey: z.string().min(1, 'must not be empty').optional(),
    presplit: z.string().min(1, 'expected MIN:MAX, e.g. 0:64').optional(),
    chunkSize: z.number().int('must be an integer').min(1, 'must be from 1 to 1024 (MB)').max(1024, 'must be from 1 to 1024 (MB)').optional(),
    hashedKey: z.string().min(1, 'must not be empty').optional(),
    sampleInterval: z.number().int().min(100, 'must be at least 100 ms').max(60_000, 'must be at most 60000 ms').optional(),
    maxSeconds: z.number().positive('must be > 0').max(86_400, 'must be at most 86400 (a day)').optional(),
    setup: z.boolean().optional(),
    seed: z.number().int().optional(),
    serverSelectionTimeout: positiveInt('the timeout (ms)').optional(),
    testDouble: z.boolean().optional(),
    dryRun: z.boolean().optional(),
    // run's topology flags: checked by lib/run's resolveRunPlan, which names them.
    topology: z.string().optional(),
    replicas: z.number().optional(),
    shards: z.number().optional(),
    configServers: z.number().optional(),
    mongos: z.number().optional(),
    mongodBin: z.string().min(1, 'must not be empty').optional(),
    binDir: z.string().min(1, 'must not be empty').optional(),
    basePort: z.number().optional(),
    dataDir: z.string().min(1, 'must not be empty').optional(),
    keepData: z.boolean().optional(),
    readyTimeout: z.number().optional(),
    serverVersion: z.string().optional(),
  })
  .strict();

/** Command-line option (commander's key) -> the flag and the experiment parameter it sets. */
const PARAMETER_FLAGS: Record<string, { flag: string; parameter: string }> = {
  docs: { flag: '--docs', parameter: 'docs' },
  docSize: { flag: '--doc-size', parameter: 'docSize' },
  batchSize: { flag: '--batch-size', parameter: 'batchSize' },
  writers: { flag: '--writers', parameter: 'writers' },
  readers: { flag: '--readers', parameter: 'readers' },
  readStart: { flag: '--read-start', parameter: 'readStart' },
  inserts: { flag: '--inserts', parameter: 'inserts' },
  rounds: { flag: '--rounds', parameter: 'rounds' },
  maxClients: { flag: '--max-clients', parameter: 'maxClients' },
  seconds: { flag: '--seconds', parameter: 'seconds' },
  warmup: { flag: '--warmup', parameter: 'warmup' },
  shardKey: { flag: '--shard-key', parameter: 'shardKey' },
  presplit: { flag: '--presplit', parameter: 'range' },
  chunkSize: { flag: '--chunk-size', parameter: 'chunkSize' },
  hashedKey: { flag: '--hashed-key', parameter: 'hashedKey' },
  sampleInterval: { flag: '--sample-interval', parameter: 'sampleIntervalMs' },
  maxSeconds: { flag: '--max-seconds', parameter: 'maxSecondsPerWay' },
};

function timestamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

export interface ResolveMatrixContext {
  env?: Readonly<Record<string, string | undefined>>;
  commandLine?: string;
}

export function resolveMatrixOptions(raw: MatrixCliFlags, now: Date = new Date(), ctx: ResolveMatrixContext = {}): MatrixRunOptions {
  const flags = parseOptions(flagsSchema, Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)));
  if (flags.preset !== undefined && flags.matrix !== undefined) throw new UsageError('options --preset and --matrix cannot be combined: choose a preset or a file');
  if (flags.preset === undefined && flags.matrix === undefined) throw new UsageError(`option --preset or --matrix: required (presets: ${MATRIX_PRESET_NAMES.join(', ')})`);
  const definition = flags.preset !== undefined ? matrixPreset(flags.preset) : readMatrixFile(flags.matrix as string);
  const experiment = definition.experiment;
  const known = PARAMETER_SCHEMAS[experiment].shape as Record<string, unknown>;

  const overrides: Record<string, unknown> = {};
  const applicable = Object.values(PARAMETER_FLAGS).filter((f) => f.parameter in known).map((f) => f.flag);
  for (const [key, { flag, parameter }] of Object.entries(PARAMETER_FLAGS)) {
    const value = flags[key as keyof typeof flags];
    if (value === undefined) continue;
    if (!(parameter in known)) throw new UsageError(`option ${flag}: does not apply to the ${experiment} experiment (its options: ${applicable.join(', ')})`);
    overrides[parameter] = value;
  }
  // The range's own checks (numbers, MIN < MAX) name the flag here; the configurations would name the parameter.
  if (flags.presplit !== undefined && 'range' in known) parsePresplit(flags.presplit, 'option --presplit');
  if (flags.setup && experiment !== 'presplit-import') throw new UsageError(`option --setup: only presplit-import changes the target's setup (this matrix runs ${experiment})`);
  if (flags.seed !== undefined) {
    if (!('randomSeed' in known)) throw new UsageError(`option --seed: does not apply to the ${experiment} experiment`);
    overrides.randomSeed = flags.seed;
  }
  if (flags.datasetRatio !== undefined) {
    if (experiment !== 'softlayer') throw new UsageError(`option --dataset-ratio: only the softlayer experiment sizes data by RAM (this matrix runs ${experiment})`);
    if (flags.docs !== undefined) throw new UsageError('options --docs and --dataset-ratio cannot be combined: give a document count or a ratio of the server\'s RAM');
  }
  const scale = flags.scale ?? SIZING[experiment].defaultScale;
  const db = flags.db ?? MATRIX_DEFAULTS.db;
  const target = resolveMatrixTarget(flags.uri, pickTopologyFlags(flags), { db, experiment, env: ctx.env, now });
  return {
    definition,
    uri: targetUri(target.plan),
    target: target.plan,
    targetWarnings: target.warnings,
    ...(ctx.commandLine ? { commandLine: ctx.commandLine } : {}),
    dryRun: flags.dryRun === true,
    db,
    scale,
    overrides,
    datasetRatios: flags.datasetRatio,
    outDir: flags.out ?? `reports/${timestamp(now)}-matrix-${slug(definition.name)}`,
    serverSelectionTimeoutMS: flags.serverSelectionTimeout ?? MATRIX_DEFAULTS.serverSelectionTimeout,
    testDouble: flags.testDouble,
    // A server the matrix starts is its own to change: presplit-import needs no --setup there.
    allowSetup: flags.setup === true || target.plan.kind !== 'uri',
  };
}

/** The URI the plan knows before anything starts (the embedded server's comes when it has started). */
function targetUri(plan: TargetPlan): string {
  if (plan.kind === 'uri') return plan.uri;
  if (plan.kind === 'launched') return plan.plan.topology.uri;
  return EMBEDDED_URI_PLACEHOLDER;
}

export const EMBEDDED_URI_PLACEHOLDER = 'mongodb://127.0.0.1/';

/** "0.5,2" -> [0.5, 2], naming the flag on error. */
export function numberListArg(flag: string) {
  return (value: string): number[] =>
    value.split(',').map((part) => {
      const n = Number(part.trim());
      if (part.trim() === '' || !Number.isFinite(n)) throw new UsageError(`option ${flag}: expected a comma-separated list of numbers, got "${value}"`);
      return n;
    });
}
