/**
 * The options of `mongo-bench matrix` (besides run's topology flags), one row each: flag, key,
 * help, schema, default, parser. lib/cli/matrix.ts adds the flags from it and lib/matrix/options.ts
 * validates against its shape; what an experiment flag sets is PARAMETER_FLAGS's (options.ts).
 * Rows are in --help's order. It lives here, beside the experiments its help names (lib/matrix names none).
 */
import { z } from 'zod';
import { UsageError } from '../config/errors';
import { intArg, MAX_TRIALS, numberArg, positiveInt, trialCount } from '../config/validate';
import { option, tableDefaults, tableShape } from '../config/option-table';
import { experimentNames } from './registry';
import { RUN_OPTIONS } from '../run/options/run-option-table';
import { FORCE_OPTION } from '../common/file-plan';

/** "0.5,2" -> [0.5, 2] */
export function numberListArg(flag: string) {
  return (value: string): number[] =>
    value.split(',').map((part) => {
      const n = Number(part.trim());
      if (part.trim() === '' || !Number.isFinite(n))
        throw new UsageError(
          `option ${flag}: expected a comma-separated list of numbers, got "${value}"`,
        );
      return n;
    });
}

export const MATRIX_OPTIONS = {
  preset: option({
    flag: '--preset <name>',
    help: `one of the seeds' experiments: ${experimentNames().join(', ')}`,
    schema: z.string().min(1),
  }),
  matrix: option({
    flag: '--matrix <file>',
    help: 'a custom list of configurations (JSON or YAML; see docs/matrix.md)',
    schema: z.string().min(1),
  }),
  dryRun: option({
    flag: '--dry-run',
    help: 'print the configurations, the target and what would be launched; start and connect nothing',
    schema: z.boolean(),
  }),
  uri: option({
    flag: '--uri <uri>',
    help: 'an existing deployment (mongodb://host:port/...); without it an embedded or launched server is used',
    schema: z.string().min(1, 'must not be empty'),
  }),
  // The experiment's options (--help's "Experiment:" group).
  scale: option({
    flag: '--scale <f>',
    help: "size relative to the seed's (1 = the seed's full size; default per preset, see below)",
    schema: z.number().positive("must be > 0 (1 = the seed's full size)"),
    arg: numberArg,
  }),
  out: option({
    flag: '--out <dir>',
    help: 'output folder (default: reports/<timestamp>-matrix-<preset>/)',
    schema: z.string().min(1, 'must not be empty'),
  }),
  force: FORCE_OPTION,
  db: option({
    flag: '--db <name>',
    help: 'database the experiments write to',
    schema: z
      .string()
      .regex(/^[^/\\. "$]+$/, 'expected a database name (no dots, slashes, spaces, quotes or $)'),
    default: 'mongo_bench_matrix',
  }),
  docs: option({
    flag: '--docs <n>',
    help: 'most/softlayer/presplit-import/index-cost: documents (per way for presplit-import, inserts per configuration for index-cost; instead of the scaled count)',
    schema: positiveInt('the document count'),
    arg: intArg,
  }),
  docSize: option({
    flag: '--doc-size <bytes>',
    help: 'most/softlayer/presplit-import/index-cost: approximate BSON size of each document',
    schema: z
      .number()
      .int()
      .min(64, 'documents are at least 64 bytes')
      .max(16 * 1024 * 1024, 'at most 16 MiB (the BSON limit)'),
    arg: intArg,
  }),
  batchSize: option({
    flag: '--batch-size <n>',
    help: 'most/softlayer/presplit-import: documents per insertMany',
    schema: positiveInt('the batch size'),
    arg: intArg,
  }),
  writers: option({
    flag: '--writers <n>',
    help: 'most/presplit-import/index-cost: writer connections (default 6, as the seed; 4 for index-cost)',
    schema: positiveInt('writers'),
    arg: intArg,
  }),
  readers: option({
    flag: '--readers <n>',
    help: 'most: reader connections (default 6)',
    schema: positiveInt('readers'),
    arg: intArg,
  }),
  readStart: option({
    flag: '--read-start <when>',
    help: 'most: after-writes (default, the seed) or with-writes (readers race the writers)',
    schema: z.enum(['after-writes', 'with-writes'], {
      error: 'expected after-writes or with-writes',
    }),
  }),
  inserts: option({
    flag: '--inserts <n>',
    help: 'write-concern-latency: inserts per write concern and round (default 200)',
    schema: positiveInt('inserts'),
    arg: intArg,
  }),
  rounds: option({
    flag: '--rounds <n>',
    help: 'write-concern-latency: rounds, the last is kept (default 2)',
    schema: positiveInt('rounds'),
    arg: intArg,
  }),
  maxClients: option({
    flag: '--max-clients <n>',
    help: 'softlayer: sweep clients 1, 2, 4, ... n (default 32; the seed went to 128 on larger servers)',
    schema: positiveInt('the maximum client count'),
    arg: intArg,
  }),
  seconds: option({
    flag: '--seconds <s>',
    help: 'softlayer: measured seconds per client count (default 10)',
    schema: positiveInt('seconds per step'),
    arg: intArg,
  }),
  warmup: option({
    flag: '--warmup <s>',
    help: 'softlayer: warm-up seconds per client count (default 2)',
    schema: z.number().int().min(0, 'must be >= 0'),
    arg: intArg,
  }),
  datasetRatio: option({
    flag: '--dataset-ratio <r>',
    help: "softlayer: data = r x the server's RAM; a list (0.5,2) runs one configuration per ratio",
    schema: z.array(z.number().positive('each ratio must be > 0')).min(1),
    arg: numberListArg,
  }),
  drop: option({
    flag: '--drop',
    help: "on --uri: replace the experiments' collections in --db even when they hold documents mongo-bench did not load (without it such a collection is refused, exit 2)",
    schema: z.boolean(),
  }),
  setup: option({
    flag: '--setup',
    help: 'presplit-import: allow changes to the cluster at --uri (drop the collection, shard it, split and move chunks, chunk size, balancer); implied for a cluster the matrix launches',
    schema: z.boolean(),
  }),
  shardKey: option({
    flag: '--shard-key <field>',
    help: 'presplit-import: the ranged shard key of ways (a) and (b) (default g = count & 63, as the seed)',
    schema: z.string().min(1, 'must not be empty'),
  }),
  presplit: option({
    flag: '--presplit <min:max>',
    help: 'presplit-import: the key range the documents cycle through, pre-split into one chunk per shard by way (b) (default 0:64)',
    schema: z.string().min(1, 'expected MIN:MAX, e.g. 0:64'),
  }),
  chunkSize: option({
    flag: '--chunk-size <MB>',
    help: "presplit-import: way (b)'s chunk size (default 1024, as the seed)",
    schema: z
      .number()
      .int('must be an integer')
      .min(1, 'must be from 1 to 1024 (MB)')
      .max(1024, 'must be from 1 to 1024 (MB)'),
    arg: intArg,
  }),
  hashedKey: option({
    flag: '--hashed-key <field>',
    help: "presplit-import: way (c)'s hashed key: _id (default) or the ranged key",
    schema: z.string().min(1, 'must not be empty'),
  }),
  sampleInterval: option({
    flag: '--sample-interval <ms>',
    help: "presplit-import: read every shard's insert counter this often (default 1000)",
    schema: z
      .number()
      .int()
      .min(100, 'must be at least 100 ms')
      .max(60_000, 'must be at most 60000 ms'),
    arg: intArg,
  }),
  maxSeconds: option({
    flag: '--max-seconds <s>',
    help: "presplit-import: stop each way's import after this long (default 600)",
    schema: z.number().positive('must be > 0').max(86_400, 'must be at most 86400 (a day)'),
    arg: numberArg,
  }),
  seed: option({
    flag: '--seed <n>',
    help: 'random seed of the document contents',
    schema: z.number().int(),
    arg: intArg,
  }),
  trials: option({
    flag: '--trials <n>',
    help: `run every configuration n times (1 to ${MAX_TRIALS}), in interleaved rounds (A B C, then B C A, ...), so a drift over the run falls on all alike; the table shows each one's median`,
    schema: trialCount('trials'),
    default: 1,
    arg: intArg,
  }),
  /** run's own row: the same flag, meaning and default. */
  serverSelectionTimeout: RUN_OPTIONS.serverSelectionTimeout,
  testDouble: option({
    flag: '--test-double',
    help: 'mark the server as a test double (auto-detected for mongo-java-server)',
    schema: z.boolean(),
  }),
};

/** The rows --help shows before the target's ("Options:"), and the target's own (--uri). */
export const MATRIX_HEAD_KEYS = [
  'preset',
  'matrix',
  'dryRun',
] as const satisfies readonly (keyof typeof MATRIX_OPTIONS)[];

export const matrixShape = tableShape(MATRIX_OPTIONS);

export const MATRIX_DEFAULTS = tableDefaults(MATRIX_OPTIONS);
