/**
 * At each step: how big the benchmarked collection is (data and indexes) against the WiredTiger cache
 * configured, the ratio the SoftLayer experiment turns on (a working set that fits in the cache or
 * not). Read with `$collStats: {storageStats: {}}` (MongoDB manual, $collStats: storageStats.size is the
 * uncompressed data, totalIndexSize the indexes), or the older `collStats` command where the aggregation
 * stage is missing (lib/server/storage-stats.ts reads both). Through a mongos each shard's document names
 * its `shard` and `host`: each shard's data is compared with that shard's own cache (never the first
 * process's), and the largest ratio is reported with the shard's name, so N balanced shards read as one
 * shard does, not N times it. A server that gives neither leaves the figures out and says why. The byte
 * figures' home is the step's `storage`; these stay for the ratio.
 */
import { MongoClient } from 'mongodb';
import type { ServerProcessFacts, ServerProcessInfo, StepDataVsCache } from '../result';
import { CollectionStats, readCollectionStats } from './storage-stats';

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'bigint' ? Number(v) : undefined;

/** Where each process's cache is known: the target's facts (host, cacheBytes) and the sampler's map of shards. */
export interface CacheLookup {
  processes?: readonly ServerProcessFacts[];
  /** The sampled processes with their shard (result.server.processes). */
  members?: readonly ServerProcessInfo[];
}

const round = (v: number): number => Math.round(v * 1000) / 1000;

/** The cache of the shard a stats document came from: its answering host's, else any member of its shard with one. */
export function shardCache(stat: Record<string, unknown>, lookup: CacheLookup): number | undefined {
  const processes = lookup.processes ?? [];
  const byHost = (host: string) => processes.find((p) => p.host === host)?.cacheBytes;
  if (typeof stat.host === 'string') {
    const cache = byHost(stat.host);
    if (cache !== undefined) return cache;
  }
  if (typeof stat.shard === 'string') {
    for (const m of lookup.members ?? []) {
      if (m.shard !== stat.shard) continue;
      const cache = byHost(m.id);
      if (cache !== undefined) return cache;
    }
    return undefined;
  }
  return processes.find((p) => p.cacheBytes !== undefined)?.cacheBytes;
}

/** The step's data against the cache(s), from stats already read. */
export function dataVsCacheFromStats(read: CollectionStats, lookup: CacheLookup): StepDataVsCache {
  const stats = read.stats;
  if (stats.length === 0) return { unavailable: read.reasons.join('; ') || 'no statistics' };
  const add = (field: string): number | undefined => {
    const values = stats.map((d) => num(d[field]));
    return values.every((v) => v !== undefined)
      ? values.reduce((s, v) => s + (v as number), 0)
      : undefined;
  };
  const dataBytes = add('size');
  if (dataBytes === undefined) return { unavailable: 'no size in the statistics' };
  const out: StepDataVsCache = { dataBytes };
  const storageBytes = add('storageSize');
  const indexBytes = add('totalIndexSize');
  if (storageBytes !== undefined) out.storageBytes = storageBytes;
  if (indexBytes !== undefined) out.indexBytes = indexBytes;
  const sharded = stats.some((d) => typeof d.shard === 'string');
  if (!sharded) {
    const cacheBytes = shardCache(stats[0], lookup);
    if (cacheBytes !== undefined && cacheBytes > 0) {
      out.cacheBytes = cacheBytes;
      out.ratio = round((dataBytes + (indexBytes ?? 0)) / cacheBytes);
    } else {
      out.unavailable = 'no WiredTiger cache size recorded for the server (see target.processes)';
    }
    return out;
  }
  out.shards = stats.map((d) => {
    const shard = { shard: String(d.shard ?? '?'), dataBytes: num(d.size) ?? 0 } as NonNullable<
      StepDataVsCache['shards']
    >[number];
    const idx = num(d.totalIndexSize);
    if (idx !== undefined) shard.indexBytes = idx;
    const cacheBytes = shardCache(d, lookup);
    if (cacheBytes !== undefined && cacheBytes > 0) {
      shard.cacheBytes = cacheBytes;
      shard.ratio = round((shard.dataBytes + (idx ?? 0)) / cacheBytes);
    }
    return shard;
  });
  const rated = out.shards.filter((s) => s.ratio !== undefined);
  if (rated.length === 0) {
    out.unavailable = "no shard's WiredTiger cache size recorded (see target.processes)";
    return out;
  }
  const largest = rated.reduce((a, b) => ((b.ratio as number) > (a.ratio as number) ? b : a));
  out.shard = largest.shard;
  out.cacheBytes = largest.cacheBytes;
  out.ratio = largest.ratio;
  if (rated.length < out.shards.length)
    out.unavailable = `no cache size recorded for ${out.shards
      .filter((s) => s.ratio === undefined)
      .map((s) => s.shard)
      .join(', ')}: the largest ratio is of the shards with one`;
  return out;
}

export async function readDataVsCache(
  client: MongoClient,
  ns: string,
  caches: CacheLookup | number | undefined,
  read?: CollectionStats,
): Promise<StepDataVsCache> {
  const lookup: CacheLookup =
    typeof caches === 'number' ? { processes: [{ host: '', cacheBytes: caches }] } : (caches ?? {});
  return dataVsCacheFromStats(read ?? (await readCollectionStats(client, ns)), lookup);
}
