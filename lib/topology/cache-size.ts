/**
 * The WiredTiger cache of each mongod when several share one machine. mongod's default assumes it
 * is alone: 50% of (RAM - 1 GB), at least 256 MB (WiredTigerKVEngine::getCacheSizeMB,
 * src/mongo/db/storage/wiredtiger/wiredtiger_kv_engine.cpp). Sixteen mongods on one host would each
 * take that half. Here the same budget is shared: 50% of (RAM - 1 GB) divided by the number of
 * mongods on the host, at least 0.25 GB, mongod's own floor for --wiredTigerCacheSizeGB
 * (src/mongo/db/storage/wiredtiger/wiredtiger_global_options.idl: gte 0.25, lte 10000).
 */
import type { ProcessSpec } from './model';

export const MIN_CACHE_SIZE_GB = 0.25;
export const CACHE_SIZE_ARG = '--wiredTigerCacheSizeGB';

/** Each mongod's share of the host's memory in GB, rounded down to 0.01, never below 0.25. */
export function cacheSizeGbPerMongod(totalMemBytes: number, mongods: number): number {
  const ramGb = totalMemBytes / 1024 ** 3;
  const share = ((ramGb - 1) * 0.5) / Math.max(1, mongods);
  return Math.max(MIN_CACHE_SIZE_GB, Math.floor(share * 100) / 100);
}

/** The mongods of a plan with --wiredTigerCacheSizeGB added (unless their args set it); mongos has no storage. */
export function withCacheSize<T extends Pick<ProcessSpec, 'kind' | 'args'>>(
  processes: readonly T[],
  cacheSizeGb: number,
): T[] {
  return processes.map((p) =>
    p.kind === 'mongod' &&
    !p.args.some((a) => a === CACHE_SIZE_ARG || a.startsWith(`${CACHE_SIZE_ARG}=`))
      ? { ...p, args: [...p.args, CACHE_SIZE_ARG, String(cacheSizeGb)] }
      : p,
  );
}

/** One sentence for the plan's notes and the command log. */
export function describeCacheSize(
  mongods: number,
  chosenGb: number | undefined,
  computedGb?: number,
): string {
  if (chosenGb !== undefined)
    return `Each mongod gets --wiredTigerCacheSizeGB ${chosenGb} (--cache-size-gb).`;
  const share = `50% of (RAM - 1 GB) shared by the ${mongods} mongod(s) on this host, at least ${MIN_CACHE_SIZE_GB} GB (mongod's default assumes one mongod per machine; --cache-size-gb overrides it)`;
  return computedGb !== undefined
    ? `Each mongod gets --wiredTigerCacheSizeGB ${computedGb}: ${share}.`
    : `Each mongod gets --wiredTigerCacheSizeGB computed on the machine that starts it (00-start.sh when it runs, mongo-bench run when it launches): ${share}.`;
}
