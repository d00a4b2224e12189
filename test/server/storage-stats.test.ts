/**
 * A step's storage and its data against each shard's cache, from modelled statistics: $collStats
 * storageStats documents as a mongos returns them (one per shard, each naming `shard` and `host`;
 * MongoDB Manual, $collStats), and a server that reports only part of them.
 */
import { storageFromStats, blockCompressor } from '../../lib/server/storage-stats';
import { dataVsCacheFromStats } from '../../lib/server/data-vs-cache';

const GiB = 1024 ** 3;
const WT = {
  creationString:
    'allocation_size=4KB,block_allocation=best,block_compressor=snappy,cache_resident=false',
};

function shardStat(shard: string, host: string) {
  return {
    shard,
    host,
    count: 1000,
    size: 512_000,
    storageSize: 200_000,
    freeStorageSize: 8_000,
    totalIndexSize: 40_000,
    indexSizes: { _id_: 30_000, k_1: 10_000 },
    wiredTiger: WT,
  };
}

describe('storage from $collStats', () => {
  const readAt = new Date('2026-01-01T00:00:00Z');

  it('sums shards, divides by documents, and computes compression where the engine compresses', () => {
    const s = storageFromStats(
      {
        source: '$collStats',
        stats: [shardStat('a', 'h1:1'), shardStat('b', 'h2:1')],
        reasons: [],
      },
      readAt,
    );
    expect(s).toMatchObject({
      source: '$collStats',
      readAt: readAt.toISOString(),
      documents: 2000,
      dataBytes: 1_024_000,
      storageBytes: 400_000,
      freeStorageBytes: 16_000,
      indexBytes: 80_000,
      indexes: { _id_: 60_000, k_1: 20_000 },
      bytesPerDocument: 200,
      logicalBytesPerDocument: 512,
      indexBytesPerDocument: 40,
      compressionRatio: Math.round((1_024_000 / 384_000) * 1000) / 1000,
    });
    expect(s.shards?.map((x) => x.shard)).toEqual(['a', 'b']);
    expect(s.missing).toBeUndefined();
  });

  it('leaves out what the server does not report, with the reason; a reported 0 stays 0', () => {
    const s = storageFromStats(
      {
        source: 'collStats',
        stats: [{ count: 10, size: 5000, storageSize: 0, totalIndexSize: 0 }],
        reasons: [],
      },
      readAt,
    );
    expect(s.storageBytes).toBe(0);
    expect(s.indexBytes).toBe(0);
    expect(s.freeStorageBytes).toBeUndefined();
    expect(s.missing?.freeStorageBytes).toMatch(/no freeStorageSize/);
    expect(s.missing?.indexes).toMatch(/no indexSizes/);
    expect(s.compressionRatio).toBeUndefined();
    expect(s.missing?.compressionRatio).toMatch(/block compressor/);
    expect(s.bytesPerDocument).toBe(0);
  });

  it('marks every figure missing when neither command answered', () => {
    const s = storageFromStats({ stats: [], reasons: ['$collStats: no such stage'] }, readAt);
    expect(s.documents).toBeUndefined();
    expect(s.missing?.storageBytes).toBe('$collStats: no such stage');
  });

  it('reads the block compressor from the creation string', () => {
    expect(blockCompressor({ wiredTiger: WT })).toBe('snappy');
    expect(blockCompressor({ wiredTiger: { creationString: 'a=1,block_compressor=,b=2' } })).toBe(
      '',
    );
    expect(blockCompressor({})).toBeUndefined();
  });
});

describe("data vs cache: each shard's data against its own cache", () => {
  const processes = [1, 2, 3].map((n) => ({ host: `h${n}:1`, cacheBytes: 1 * GiB }));

  it("N shards with equal data and equal caches give one shard's ratio, not N times it", () => {
    for (const n of [1, 2, 3]) {
      const stats = Array.from({ length: n }, (_, i) => shardStat(`s${i}`, `h${i + 1}:1`));
      const d = dataVsCacheFromStats({ source: '$collStats', stats, reasons: [] }, { processes });
      const one = Math.round(((512_000 + 40_000) / GiB) * 1000) / 1000;
      expect(d.ratio).toBe(one);
      expect(d.cacheBytes).toBe(GiB);
      expect(d.dataBytes).toBe(512_000 * n);
      expect(d.shard).toBe('s0');
      expect(d.shards).toHaveLength(n);
    }
  });

  it('names the shard with the largest ratio, its cache found through the sampler’s map of shards', () => {
    const stats = [shardStat('s0', 'other:1'), { ...shardStat('s1', 'other:2'), size: 2_000_000 }];
    const d = dataVsCacheFromStats(
      { source: '$collStats', stats, reasons: [] },
      {
        processes: [
          { host: 'h1:1', cacheBytes: GiB },
          { host: 'h2:1', cacheBytes: GiB / 2 },
        ],
        members: [
          { id: 'h1:1', kind: 'mongod', shard: 's0' },
          { id: 'h2:1', kind: 'mongod', shard: 's1' },
        ],
      },
    );
    expect(d.shard).toBe('s1');
    expect(d.cacheBytes).toBe(GiB / 2);
    expect(d.ratio).toBe(Math.round(((2_000_000 + 40_000) / (GiB / 2)) * 1000) / 1000);
  });

  it('one server: its data against the first process with a cache, as before', () => {
    const d = dataVsCacheFromStats(
      { source: 'collStats', stats: [{ size: 1000, totalIndexSize: 24 }], reasons: [] },
      { processes: [{ host: 'x:1' }, { host: 'y:1', cacheBytes: 2048 }] },
    );
    expect(d).toMatchObject({ dataBytes: 1000, indexBytes: 24, cacheBytes: 2048, ratio: 0.5 });
    expect(d.shard).toBeUndefined();
  });
});
