/**
 * What the benchmarked collection costs on disk, read once a step's measured window has closed (never
 * inside it: the reads would count in the servers' opcounters and move the consistency check).
 *
 * Read with `$collStats: {storageStats: {}}` (MongoDB Manual, $collStats "storageStats Document": `count`,
 * `size` (uncompressed), `storageSize`, `freeStorageSize` (4.4+), `totalIndexSize`, `indexSizes`; through a
 * mongos one document per shard, each naming its `shard` and `host`), or the older `collStats` command
 * (the same fields at the top level) where the stage is missing. Server source: src/mongo/db/stats/
 * storage_stats.cpp appendCollectionStorageStats writes those fields; `wiredTiger.creationString` carries
 * the table's `block_compressor=` (snappy by default, empty for none), which is how compression is known.
 *
 * `storageSize` on WiredTiger is the file's size as of the last checkpoint (storage.syncPeriodSecs, 60 s by
 * default), so a step shorter than that may show the previous checkpoint's figure; this never runs `fsync`
 * on a user's server. A figure the server does not report is absent with the reason; a reported 0 stays 0.
 *
 * `dbStats` gives the database's figures (labelled "database": they count every collection of the
 * database, the user's too) and the filesystem's (fsUsedSize, fsTotalSize, 4.4+); the data guard's marker
 * collection (OWNER_COLLECTION) is taken out of them where its own figures can be read.
 */
import { Document, MongoClient } from 'mongodb';
import type { ShardStorage, StepStorage } from '../result';
import { messageOf } from '../common/values';
import { OWNER_COLLECTION } from './ownership';
import { numberOf } from '../server-stats/snapshot';

/** A number from a number, a bigint or a BSON Long / Double; undefined for anything else. */
const num = numberOf;

/** The collection's stats documents (one per shard through a mongos), and where they came from. */
export interface CollectionStats {
  source?: '$collStats' | 'collStats';
  /** Each shard's (or the one server's) storage statistics. */
  stats: Document[];
  /** Why neither command gave figures (empty when one did). */
  reasons: string[];
}

function split(ns: string): { db: string; coll: string } {
  const dot = ns.indexOf('.');
  return { db: ns.slice(0, dot), coll: ns.slice(dot + 1) };
}

/** `$collStats: {storageStats: {}}`, else `collStats`: the storage statistics, one document per shard. */
export async function readCollectionStats(
  client: MongoClient,
  ns: string,
): Promise<CollectionStats> {
  const { db: dbName, coll } = split(ns);
  const db = client.db(dbName);
  const reasons: string[] = [];
  try {
    const docs = await db
      .collection(coll)
      .aggregate([{ $collStats: { storageStats: {} } }])
      .toArray();
    const stats = docs
      .filter((d) => d.storageStats && typeof d.storageStats === 'object')
      .map((d): Document => ({
        ...(d.storageStats as Document),
        ...(typeof d.shard === 'string' ? { shard: d.shard } : {}),
        ...(typeof d.host === 'string' ? { host: d.host } : {}),
      }));
    if (stats.length > 0 && stats.every((s) => num(s.size) !== undefined))
      return { source: '$collStats', stats, reasons };
    reasons.push('$collStats gave no storageStats.size');
  } catch (err) {
    reasons.push(`$collStats: ${String(messageOf(err)).slice(0, 120)}`);
  }
  try {
    const stats = await db.command({ collStats: coll });
    if (num(stats.size) !== undefined) {
      // Through a mongos the command's `shards` holds each shard's figures.
      const shards =
        stats.sharded === true && stats.shards && typeof stats.shards === 'object'
          ? Object.entries(stats.shards as Record<string, Document>).map(([shard, d]) => ({
              ...d,
              shard,
            }))
          : undefined;
      return { source: 'collStats', stats: shards ?? [stats], reasons };
    }
    reasons.push('collStats gave no size');
  } catch (err) {
    reasons.push(`collStats: ${String(messageOf(err)).slice(0, 120)}`);
  }
  return { stats: [], reasons };
}

const round = (v: number, places = 3): number => {
  const f = 10 ** places;
  return Math.round(v * f) / f;
};

/** The table's block compressor from storageStats.wiredTiger.creationString: a name, '' (none), or undefined (not told). */
export function blockCompressor(stat: Document): string | undefined {
  const creation = (stat.wiredTiger as Document | undefined)?.creationString;
  if (typeof creation !== 'string') return undefined;
  const match = /(?:^|,)block_compressor=([^,]*)/.exec(creation);
  return match ? match[1] : undefined;
}

const FIELDS = [
  ['documents', 'count'],
  ['dataBytes', 'size'],
  ['storageBytes', 'storageSize'],
  ['freeStorageBytes', 'freeStorageSize'],
  ['indexBytes', 'totalIndexSize'],
] as const;

type Figure = (typeof FIELDS)[number][0];

/** The step's `storage` from the stats documents: sums over shards, per-document figures, what is missing and why. */
export function storageFromStats(read: CollectionStats, readAt: Date): StepStorage {
  const out: StepStorage = { readAt: readAt.toISOString() };
  const missing: Record<string, string> = {};
  if (read.stats.length === 0) {
    const why = read.reasons.join('; ') || 'no statistics';
    for (const [field] of FIELDS) missing[field] = why;
    out.missing = missing;
    return out;
  }
  out.source = read.source;
  const sum = (field: string): number | undefined => {
    const values = read.stats.map((d) => num(d[field]));
    return values.every((v) => v !== undefined)
      ? values.reduce((s, v) => s + (v as number), 0)
      : undefined;
  };
  const figures: Partial<Record<Figure, number>> = {};
  for (const [field, serverField] of FIELDS) {
    const value = sum(serverField);
    if (value === undefined) {
      const some = read.stats.some((d) => num(d[serverField]) !== undefined);
      missing[field] = some
        ? `not every shard reports ${serverField}`
        : `${read.source} reports no ${serverField}${serverField === 'freeStorageSize' ? ' (MongoDB 4.4+ on WiredTiger)' : ''}`;
    } else {
      figures[field] = value;
      out[field] = value;
    }
  }
  const indexes: Record<string, number> = {};
  let anyIndexes = false;
  for (const d of read.stats) {
    const sizes = d.indexSizes as Document | undefined;
    if (!sizes || typeof sizes !== 'object') continue;
    for (const [name, bytes] of Object.entries(sizes)) {
      const n = num(bytes);
      if (n === undefined) continue;
      indexes[name] = (indexes[name] ?? 0) + n;
      anyIndexes = true;
    }
  }
  if (anyIndexes) out.indexes = indexes;
  else missing.indexes = `${read.source} reports no indexSizes`;
  const docs = figures.documents;
  const perDoc = (
    field: 'bytesPerDocument' | 'logicalBytesPerDocument' | 'indexBytesPerDocument',
    bytes: number | undefined,
    from: string,
  ): void => {
    if (docs === undefined) missing[field] = 'no document count';
    else if (docs === 0) missing[field] = 'the collection holds no documents';
    else if (bytes === undefined) missing[field] = `no ${from}`;
    else out[field] = round(bytes / docs, 1);
  };
  perDoc('bytesPerDocument', figures.storageBytes, 'storageSize');
  perDoc('logicalBytesPerDocument', figures.dataBytes, 'size');
  perDoc('indexBytesPerDocument', figures.indexBytes, 'totalIndexSize');
  // Compression: only where the engine says it compresses the table (WiredTiger's block_compressor).
  const compressors = read.stats.map(blockCompressor);
  const used = (figures.storageBytes ?? 0) - (figures.freeStorageBytes ?? 0);
  if (compressors.some((c) => c === undefined))
    missing.compressionRatio =
      'the server names no block compressor (storageStats.wiredTiger.creationString): not a compressing engine, or not told';
  else if (compressors.every((c) => c === '' || c === 'none'))
    missing.compressionRatio =
      'block_compressor is none: the engine does not compress this collection';
  else if (figures.dataBytes === undefined || figures.storageBytes === undefined)
    missing.compressionRatio = 'no size or storageSize';
  else if (used <= 0)
    missing.compressionRatio = 'nothing allocated on disk yet (before the first checkpoint)';
  else out.compressionRatio = round(figures.dataBytes / used);
  if (read.stats.some((d) => typeof d.shard === 'string')) {
    out.shards = read.stats.map((d) => {
      const shard: ShardStorage = { shard: String(d.shard ?? '?') };
      if (typeof d.host === 'string') shard.host = d.host;
      for (const [field, serverField] of FIELDS) {
        const v = num(d[serverField]);
        if (v !== undefined) shard[field] = v;
      }
      return shard;
    });
  }
  if (Object.keys(missing).length > 0) out.missing = missing;
  return out;
}

const DB_FIELDS = [
  ['collections', 'collections'],
  ['dataBytes', 'dataSize'],
  ['storageBytes', 'storageSize'],
  ['indexBytes', 'indexSize'],
  ['fsUsedBytes', 'fsUsedSize'],
  ['fsTotalBytes', 'fsTotalSize'],
] as const;

/** `dbStats` of the collection's database, the guard's marker collection taken out where its figures can be read. */
export async function readDatabaseStats(
  client: MongoClient,
  ns: string,
): Promise<NonNullable<StepStorage['database']>> {
  const { db: name } = split(ns);
  const db = client.db(name);
  const out: NonNullable<StepStorage['database']> = { name };
  const missing: Record<string, string> = {};
  let stats: Document;
  try {
    stats = await db.command({ dbStats: 1 });
  } catch (err) {
    const why = `dbStats: ${String(messageOf(err)).slice(0, 120)}`;
    for (const [field] of DB_FIELDS) missing[field] = why;
    out.missing = missing;
    return out;
  }
  let marker: Document | undefined;
  try {
    const names = await db
      .listCollections({ name: OWNER_COLLECTION }, { nameOnly: true })
      .toArray();
    if (names.length > 0) marker = await db.command({ collStats: OWNER_COLLECTION });
  } catch {
    marker = undefined;
  }
  const less: Partial<Record<string, number>> = marker
    ? {
        collections: 1,
        dataSize: num(marker.size),
        storageSize: num(marker.storageSize),
        indexSize: num(marker.totalIndexSize),
      }
    : {};
  for (const [field, serverField] of DB_FIELDS) {
    const v = num(stats[serverField]);
    if (v === undefined) {
      missing[field] = `dbStats reports no ${serverField}`;
      continue;
    }
    out[field] = Math.max(0, v - (less[serverField] ?? 0));
  }
  if (Object.keys(missing).length > 0) out.missing = missing;
  return out;
}

/** The step's storage: the collection's statistics, then the database's; `readAt` when the collection's were read. */
export async function readStorage(client: MongoClient, ns: string): Promise<StepStorage> {
  const readAt = new Date();
  const stats = await readCollectionStats(client, ns);
  const storage = storageFromStats(stats, readAt);
  storage.database = await readDatabaseStats(client, ns);
  return storage;
}
