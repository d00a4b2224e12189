/**
 * At each step: how big the benchmarked collection is (data and indexes) against the WiredTiger cache
 * configured, the ratio the SoftLayer experiment turns on (a working set that fits in the cache or
 * not). Read with `$collStats: {storageStats: {}}` (MongoDB manual, $collStats: storageStats.size is the
 * uncompressed data, totalIndexSize the indexes; one document per shard through mongos, summed here),
 * or the older `collStats` command where the aggregation stage is missing. A server that gives neither
 * leaves the figures out and says why.
 */
import { Document, MongoClient } from 'mongodb';
import type { StepDataVsCache } from '../result';
import { messageOf } from '../common/values';

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'bigint' ? Number(v) : undefined;

function fromStats(stats: Document[], cacheBytes: number | undefined): StepDataVsCache | undefined {
  const add = (pick: (d: Document) => unknown) => {
    const values = stats.map(pick).map(num);
    return values.every((v) => v !== undefined) && values.length > 0
      ? values.reduce((s, v) => s + (v as number), 0)
      : undefined;
  };
  const dataBytes = add((d) => d.size);
  const indexBytes = add((d) => d.totalIndexSize);
  if (dataBytes === undefined) return undefined;
  const out: StepDataVsCache = { dataBytes };
  const storageBytes = add((d) => d.storageSize);
  if (storageBytes !== undefined) out.storageBytes = storageBytes;
  if (indexBytes !== undefined) out.indexBytes = indexBytes;
  if (cacheBytes !== undefined && cacheBytes > 0) {
    out.cacheBytes = cacheBytes;
    out.ratio = Math.round(((dataBytes + (indexBytes ?? 0)) / cacheBytes) * 1000) / 1000;
  } else {
    out.unavailable = 'no WiredTiger cache size recorded for the server (see target.processes)';
  }
  return out;
}

export async function readDataVsCache(
  client: MongoClient,
  ns: string,
  cacheBytes: number | undefined,
): Promise<StepDataVsCache> {
  const dot = ns.indexOf('.');
  const db = client.db(ns.slice(0, dot));
  const coll = ns.slice(dot + 1);
  const reasons: string[] = [];
  try {
    const docs = await db
      .collection(coll)
      .aggregate([{ $collStats: { storageStats: {} } }])
      .toArray();
    const parsed = fromStats(
      docs.map((d) => (d.storageStats ?? {}) as Document),
      cacheBytes,
    );
    if (parsed) return parsed;
    reasons.push('$collStats gave no storageStats.size');
  } catch (err) {
    reasons.push(`$collStats: ${String(messageOf(err)).slice(0, 120)}`);
  }
  try {
    const stats = await db.command({ collStats: coll });
    const parsed = fromStats([stats], cacheBytes);
    if (parsed) return parsed;
    reasons.push('collStats gave no size');
  } catch (err) {
    reasons.push(`collStats: ${String(messageOf(err)).slice(0, 120)}`);
  }
  return { unavailable: reasons.join('; ') };
}
