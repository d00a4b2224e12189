/**
 * Each experiment's parameters: the seed's size at --scale 1, the default scale (a run of a few minutes
 * on a laptop), and the schema that validates overrides from a matrix file, the command line or a
 * configuration (errors name the path, e.g. `configurations[2].parameters.docs`).
 */
import { z } from 'zod';
import { WAYS } from '../experiments/presplit-import/options';
import { ExperimentName } from './types';

const positiveInt = (what: string) => z.number({ error: `${what}: expected a number` }).int(`${what} must be an integer`).min(1, `${what} must be at least 1`);

export const MOST_PARAMS = z
  .object({
    docs: positiveInt('docs'),
    docSize: z.number().int('docSize must be an integer').min(64, 'docSize must be at least 64 bytes').max(16 * 1024 * 1024, 'docSize must be at most 16 MiB (the BSON limit)'),
    batchSize: positiveInt('batchSize'),
    writers: positiveInt('writers'),
    readers: positiveInt('readers'),
    readStart: z.enum(['after-writes', 'with-writes'], { error: 'readStart: expected "after-writes" or "with-writes"' }),
    randomSeed: z.number().int(),
  })
  .strict();
export type MostParameters = z.output<typeof MOST_PARAMS>;

export const LATENCY_PARAMS = z
  .object({
    inserts: positiveInt('inserts'),
    rounds: positiveInt('rounds'),
  })
  .strict();
export type LatencyParameters = z.output<typeof LATENCY_PARAMS>;

export const SOFTLAYER_PARAMS = z
  .object({
    docs: positiveInt('docs'),
    docSize: z.number().int('docSize must be an integer').min(64, 'docSize must be at least 64 bytes').max(16 * 1024 * 1024, 'docSize must be at most 16 MiB (the BSON limit)'),
    batchSize: positiveInt('batchSize'),
    maxClients: positiveInt('maxClients'),
    seconds: positiveInt('seconds'),
    warmup: z.number().int('warmup must be an integer').min(0, 'warmup must be >= 0'),
    /** Size the data as this many times the server's RAM (replaces docs). */
    datasetRatio: z.number().positive('datasetRatio must be > 0').optional(),
    randomSeed: z.number().int(),
  })
  .strict();
export type SoftlayerParameters = z.output<typeof SOFTLAYER_PARAMS>;

/**
 * presplit-import: the experiment's own input names (lib/experiments/presplit-import/options.ts), one
 * way per configuration. The experiment checks the rest (range, hashed key) when the matrix is planned.
 */
export const PRESPLIT_IMPORT_PARAMS = z
  .object({
    way: z.enum(WAYS, { error: `expected one of ${WAYS.join(', ')}` }).optional(),
    docs: positiveInt('docs'),
    docSize: z.number().int('docSize must be an integer').min(64, 'docSize must be at least 64 bytes').max(16 * 1024 * 1024 - 1024, 'docSize must be under 16 MiB (the BSON limit)'),
    batchSize: positiveInt('batchSize'),
    writers: positiveInt('writers'),
    shardKey: z.string().min(1, 'shardKey must not be empty'),
    range: z.string().min(1, 'range: expected MIN:MAX, e.g. 0:64'),
    chunkSize: z.number().int('chunkSize must be an integer').min(1, 'chunkSize must be from 1 to 1024 (MB)').max(1024, 'chunkSize must be from 1 to 1024 (MB)'),
    hashedKey: z.string().min(1, 'hashedKey must not be empty'),
    sampleIntervalMs: z.number().int().min(100, 'sampleIntervalMs must be at least 100').max(60_000, 'sampleIntervalMs must be at most 60000'),
    maxSecondsPerWay: z.number().positive('maxSecondsPerWay must be > 0').max(86_400, 'maxSecondsPerWay must be at most 86400'),
    collection: z.string().min(1, 'collection must not be empty'),
  })
  .strict();
export type PresplitImportParameters = z.output<typeof PRESPLIT_IMPORT_PARAMS>;

export const PARAMETER_SCHEMAS = { most: MOST_PARAMS, 'write-concern-latency': LATENCY_PARAMS, softlayer: SOFTLAYER_PARAMS, 'presplit-import': PRESPLIT_IMPORT_PARAMS } as const;

export interface ExperimentSizing {
  /** The seed's parameters (--scale 1). */
  full: Record<string, unknown>;
  /** Which parameter --scale multiplies. */
  scaled: string;
  defaultScale: number;
  /** One line for the output: what --scale 1 means. */
  scaleNote: string;
}

const SEED = 1314159265;

export const SIZING: Record<ExperimentName, ExperimentSizing> = {
  most: {
    full: { docs: 1_048_576, docSize: 16_384, batchSize: 256, writers: 6, readers: 6, readStart: 'after-writes', randomSeed: SEED },
    scaled: 'docs',
    // 16,384 documents of 16 KiB = 256 MiB per configuration.
    defaultScale: 1 / 64,
    scaleNote: '--scale 1 = 1,048,576 documents of 16 KiB (16 GiB), as the seed',
  },
  'write-concern-latency': {
    full: { inserts: 200, rounds: 2 },
    scaled: 'inserts',
    defaultScale: 1,
    scaleNote: '--scale 1 = 200 inserts per write concern, run twice keeping the second, as the seed',
  },
  softlayer: {
    // The seed's Small server: 8 GiB of 512 KiB documents, clients 1..32; six 10 s steps per configuration here.
    full: { docs: 16_384, docSize: 512 * 1024, batchSize: 16, maxClients: 32, seconds: 10, warmup: 2, randomSeed: SEED },
    scaled: 'docs',
    // 256 documents of 512 KiB = 128 MiB.
    defaultScale: 1 / 64,
    scaleNote: '--scale 1 = 16,384 documents of 512 KiB (8 GiB), the seed\'s Small data set',
  },
  'presplit-import': {
    // MOST's sharded tests (seed 000, Test Results 4-5): 2^20 documents of 16 KiB in batches of 256; g = count & 63.
    full: { docs: 1_048_576, docSize: 16_384, batchSize: 256, writers: 6, shardKey: 'g', range: '0:64', chunkSize: 1024, hashedKey: '_id', sampleIntervalMs: 1000, maxSecondsPerWay: 600, collection: 'presplit_import' },
    scaled: 'docs',
    // 16,384 documents of 16 KiB = 256 MiB per way.
    defaultScale: 1 / 64,
    scaleNote: '--scale 1 = 1,048,576 documents of 16 KiB (16 GiB) per way, as the seed',
  },
};

/** The seed's parameters scaled: the scaled parameter is multiplied and rounded, at least 1. */
export function scaledDefaults(experiment: ExperimentName, scale: number): Record<string, unknown> {
  const sizing = SIZING[experiment];
  const full = sizing.full[sizing.scaled] as number;
  return { ...sizing.full, [sizing.scaled]: Math.max(1, Math.round(full * scale)) };
}
