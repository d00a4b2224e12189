/**
 * Options of `mongo-bench matrix`: the flags commander hands over, validated (each error names its
 * option), resolved into MatrixRunOptions. Experiment flags (--writers, --inserts, --max-clients, ...)
 * apply only to the experiment that has the parameter; anything else is a usage error.
 */
import { z } from 'zod';
import { UsageError } from '../config/errors';
import { parseOptions } from '../config/validate';
import { readMatrixFile } from './matrix-file';
import { PARAMETER_SCHEMAS, SIZING } from './parameters';
import { MatrixRunOptions } from './plan';
import { matrixPreset } from './presets';
import { slug } from './settings';

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
  seed?: number;
  serverSelectionTimeout?: number;
  testDouble?: boolean;
}

const positiveInt = (what: string) => z.number().int(`${what} must be an integer`).min(1, `${what} must be at least 1`);

const flagsSchema = z
  .object({
    preset: z.string().min(1).optional(),
    matrix: z.string().min(1).optional(),
    uri: z.string({ error: 'required: the deployment to benchmark, e.g. --uri mongodb://127.0.0.1:27017' }).min(1, 'must not be empty'),
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
    seed: z.number().int().optional(),
    serverSelectionTimeout: positiveInt('the timeout (ms)').optional(),
    testDouble: z.boolean().optional(),
  })
  .strict();

/** Command-line flag -> experiment parameter. */
const PARAMETER_FLAGS = {
  docs: '--docs',
  docSize: '--doc-size',
  batchSize: '--batch-size',
  writers: '--writers',
  readers: '--readers',
  readStart: '--read-start',
  inserts: '--inserts',
  rounds: '--rounds',
  maxClients: '--max-clients',
  seconds: '--seconds',
  warmup: '--warmup',
} as const;

function timestamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

export function resolveMatrixOptions(raw: MatrixFlags, now: Date = new Date()): MatrixRunOptions {
  const flags = parseOptions(flagsSchema, Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)));
  if (flags.preset !== undefined && flags.matrix !== undefined) throw new UsageError('options --preset and --matrix cannot be combined: choose a preset or a file');
  if (flags.preset === undefined && flags.matrix === undefined) throw new UsageError('option --preset or --matrix: required (presets: most, write-concern-latency, softlayer)');
  const definition = flags.preset !== undefined ? matrixPreset(flags.preset) : readMatrixFile(flags.matrix as string);
  const experiment = definition.experiment;
  const known = PARAMETER_SCHEMAS[experiment].shape as Record<string, unknown>;

  const overrides: Record<string, unknown> = {};
  for (const [key, flag] of Object.entries(PARAMETER_FLAGS)) {
    const value = flags[key as keyof typeof flags];
    if (value === undefined) continue;
    if (!(key in known)) throw new UsageError(`option ${flag}: does not apply to the ${experiment} experiment (its options: ${Object.keys(known).filter((k) => k in PARAMETER_FLAGS).map((k) => PARAMETER_FLAGS[k as keyof typeof PARAMETER_FLAGS]).join(', ')})`);
    overrides[key] = value;
  }
  if (flags.seed !== undefined) {
    if (!('randomSeed' in known)) throw new UsageError(`option --seed: does not apply to the ${experiment} experiment`);
    overrides.randomSeed = flags.seed;
  }
  if (flags.datasetRatio !== undefined) {
    if (experiment !== 'softlayer') throw new UsageError(`option --dataset-ratio: only the softlayer experiment sizes data by RAM (this matrix runs ${experiment})`);
    if (flags.docs !== undefined) throw new UsageError('options --docs and --dataset-ratio cannot be combined: give a document count or a ratio of the server\'s RAM');
  }
  const scale = flags.scale ?? SIZING[experiment].defaultScale;
  return {
    definition,
    uri: flags.uri,
    db: flags.db ?? MATRIX_DEFAULTS.db,
    scale,
    overrides,
    datasetRatios: flags.datasetRatio,
    outDir: flags.out ?? `reports/${timestamp(now)}-matrix-${slug(definition.name)}`,
    serverSelectionTimeoutMS: flags.serverSelectionTimeout ?? MATRIX_DEFAULTS.serverSelectionTimeout,
    testDouble: flags.testDouble,
  };
}

/** "0.5,2" -> [0.5, 2], naming the flag on error. */
export function numberListArg(flag: string) {
  return (value: string): number[] =>
    value.split(',').map((part) => {
      const n = Number(part.trim());
      if (part.trim() === '' || !Number.isFinite(n)) throw new UsageError(`option ${flag}: expected a comma-separated list of numbers, got "${value}"`);
      return n;
    });
}
