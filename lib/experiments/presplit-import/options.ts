/**
 * The presplit-import experiment's options: what the user (or the matrix preset) gives, validated
 * into one plain object with every default filled in. Errors name the option (`--docs`) or the
 * config path (`config docs`).
 */
import { z } from 'zod';
import { UsageError } from '../../config/errors';
import { parseOptions, PathStyle } from '../../config/validate';
import { parsePresplit, PresplitRange } from '../../topology/options';
import { parseServerVersion } from '../../topology/server-version';
import { dropUndefined } from '../../common/values';

/** The three ways to import: (a) ranged key, no pre-split, balancer on; (b) pre-split; (c) hashed key. */
export const WAYS = ['ranged', 'presplit', 'hashed'] as const;
export type WayName = (typeof WAYS)[number];

/** Everything optional except the cluster: what the user said. */
export interface PresplitImportInput {
  /** A mongos of the cluster to import into. */
  uri: string;
  db?: string;
  collection?: string;
  /** Which ways, in order (default: all three). */
  ways?: string[];
  /** Documents per way. */
  docs?: number;
  /** Approximate BSON size of each document, bytes. */
  docSize?: number;
  /** Documents per insertMany. */
  batchSize?: number;
  /** Concurrent insertMany callers. */
  writers?: number;
  /** The ranged shard key field of ways (a) and (b). */
  shardKey?: string;
  /** "MIN:MAX": the key values the documents take, and the pre-split range of way (b). */
  range?: string | PresplitRange;
  /** Way (b)'s chunk size in MB (the seed raised it to 1 GB). */
  chunkSize?: number;
  /** Way (c)'s hashed key: `_id` (unique, increasing) or the ranged key field. */
  hashedKey?: string;
  sampleIntervalMs?: number;
  /** Each way's import stops after this many seconds (the result says it was cut short). */
  maxSecondsPerWay?: number;
  /** Keep the last way's collection after the run (default: drop it). */
  keepData?: boolean;
  /** The server version to plan the setup for; default: what buildInfo reports. */
  serverVersion?: string;
  /** Write concern of the inserts: a number of members or "majority" (default: the server's). */
  w?: number | 'majority';
}

export interface PresplitImportSettings {
  uri: string;
  db: string;
  collection: string;
  ns: string;
  ways: WayName[];
  docs: number;
  docSize: number;
  batchSize: number;
  writers: number;
  shardKey: string;
  range: PresplitRange;
  chunkSizeMb: number;
  hashedKey: string;
  sampleIntervalMs: number;
  maxSecondsPerWay: number;
  keepData: boolean;
  serverVersion?: string;
  w?: number | 'majority';
}

export const PRESPLIT_IMPORT_DEFAULTS = {
  db: 'mongo_bench',
  collection: 'presplit_import',
  docs: 100_000,
  docSize: 1024,
  batchSize: 1000,
  writers: 4,
  shardKey: 'g',
  // The seeds' key: g = count & 63, pre-split over [0, 64).
  range: { min: 0, max: 64 },
  chunkSizeMb: 1024,
  hashedKey: '_id',
  sampleIntervalMs: 1000,
  maxSecondsPerWay: 600,
} as const;

const int = (min: number, max: number) =>
  z
    .number()
    .int('must be an integer')
    .min(min, `must be from ${min} to ${max}`)
    .max(max, `must be from ${min} to ${max}`);

const schema = z
  .object({
    uri: z
      .string()
      .regex(
        /^mongodb(\+srv)?:\/\//,
        'must be a mongodb:// or mongodb+srv:// connection string to a mongos',
      ),
    db: z
      .string()
      .regex(
        /^[^/\\. "$*<>:|?]{1,63}$/,
        'must be a database name (1-63 characters, none of / \\ . space " $ * < > : | ?)',
      )
      .optional(),
    collection: z
      .string()
      .min(1, 'must not be empty')
      .regex(/^[^$\0]+$/, 'must not contain $')
      .optional(),
    ways: z
      .array(z.string())
      .min(1, `name at least one of ${WAYS.join(', ')}`)
      .optional(),
    docs: int(1, 1_000_000_000).optional(),
    // 16 MB is MongoDB's document limit; the fields alone take ~40 bytes.
    docSize: int(0, 16 * 1024 * 1024 - 1024).optional(),
    batchSize: int(1, 100_000).optional(),
    writers: int(1, 1024).optional(),
    shardKey: z
      .string()
      .min(1, 'must not be empty')
      .regex(/^[^$.\0][^.\0]*$/, 'must be a top-level field name (not starting with $, no dots)')
      .optional(),
    range: z
      .union([z.string(), z.object({ min: z.number(), max: z.number() }).strict()])
      .optional(),
    chunkSize: int(1, 1024).optional(),
    hashedKey: z.string().min(1, 'must not be empty').optional(),
    sampleIntervalMs: int(100, 60_000).optional(),
    maxSecondsPerWay: z
      .number()
      .positive('must be more than 0 seconds')
      .max(86_400, 'must be at most 86400 (a day)')
      .optional(),
    keepData: z.boolean().optional(),
    serverVersion: z.string().optional(),
    w: z.union([int(0, 50), z.literal('majority')]).optional(),
  })
  .strict();

/** Validates what the user gave and fills in defaults. */
export function resolvePresplitImportOptions(
  raw: PresplitImportInput,
  style: PathStyle = 'flag',
): PresplitImportSettings {
  const defined = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
  const input = parseOptions(schema, defined, style);
  const name = (key: keyof PresplitImportInput) =>
    style === 'flag'
      ? `option --${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
      : `config ${key}`;

  const ways: WayName[] = [];
  for (const way of input.ways ?? WAYS) {
    if (!(WAYS as readonly string[]).includes(way)) {
      throw new UsageError(
        `${name('ways')}: unknown way "${way}"; the ways are ${WAYS.join(', ')}`,
      );
    }
    if (ways.includes(way as WayName))
      throw new UsageError(`${name('ways')}: "${way}" is named twice`);
    ways.push(way as WayName);
  }
  const shardKey = input.shardKey ?? PRESPLIT_IMPORT_DEFAULTS.shardKey;
  if (shardKey === '_id') {
    throw new UsageError(
      `${name('shardKey')}: must not be _id: the ranged key repeats its values over the range (as the seeds' g = count & 63 did), and _id must be unique`,
    );
  }
  const hashedKey = input.hashedKey ?? PRESPLIT_IMPORT_DEFAULTS.hashedKey;
  if (hashedKey !== '_id' && hashedKey !== shardKey) {
    throw new UsageError(
      `${name('hashedKey')}: must be _id or the ranged key field "${shardKey}" (the documents have no other field to hash)`,
    );
  }
  const range =
    input.range === undefined
      ? { ...PRESPLIT_IMPORT_DEFAULTS.range }
      : parsePresplit(input.range, name('range'));
  if (input.serverVersion !== undefined)
    parseServerVersion(
      input.serverVersion,
      style === 'flag' ? '--server-version' : 'serverVersion',
    );
  const db = input.db ?? PRESPLIT_IMPORT_DEFAULTS.db;
  const collection = input.collection ?? PRESPLIT_IMPORT_DEFAULTS.collection;
  return {
    uri: input.uri,
    db,
    collection,
    ns: `${db}.${collection}`,
    ways,
    docs: input.docs ?? PRESPLIT_IMPORT_DEFAULTS.docs,
    docSize: input.docSize ?? PRESPLIT_IMPORT_DEFAULTS.docSize,
    batchSize: input.batchSize ?? PRESPLIT_IMPORT_DEFAULTS.batchSize,
    writers: input.writers ?? PRESPLIT_IMPORT_DEFAULTS.writers,
    shardKey,
    range,
    chunkSizeMb: input.chunkSize ?? PRESPLIT_IMPORT_DEFAULTS.chunkSizeMb,
    hashedKey,
    sampleIntervalMs: input.sampleIntervalMs ?? PRESPLIT_IMPORT_DEFAULTS.sampleIntervalMs,
    maxSecondsPerWay: input.maxSecondsPerWay ?? PRESPLIT_IMPORT_DEFAULTS.maxSecondsPerWay,
    keepData: input.keepData ?? false,
    ...dropUndefined({ serverVersion: input.serverVersion }),
    ...dropUndefined({ w: input.w }),
  };
}
