/**
 * The per-shard sampler against recording servers posing as shard primaries (real wire protocol,
 * real driver, connected through each shard's replica set as listShards names it), and the rate
 * arithmetic behind it.
 */
import { MongoClient } from 'mongodb';
import { describeNeeding } from '../../support/servers';
import { startFakeShardedCluster } from './fake-sharded-cluster';
import {
  clientRates,
  counterTotal,
  CounterSampler,
  driverShardConnector,
  insertCounterSource,
  listShards,
  parseShardHost,
  ratesFromReadings,
  shardConnectionString,
  spreadOf,
} from '../../../lib/experiments/presplit-import';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the sampler's readings so far pass `check` (polled every 50 ms), rather than sleeping a
 * fixed time: on a loaded machine a 200 ms grid takes fewer readings in a given second.
 */
async function readingsUntil(
  sampler: CounterSampler,
  check: (readings: ReturnType<CounterSampler['snapshot']>) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check(sampler.snapshot())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('rates from counter readings', () => {
  it('divides each delta by the time between its readings, so a missed sample widens one interval', () => {
    const rates = ratesFromReadings([
      { t: 0, value: 100 },
      { t: 1, value: 1100 },
      { t: 3, value: 3100 }, // the reading at t = 2 never happened
      { t: 4, value: 3600 },
    ]);
    expect(rates).toEqual([
      { t: 1, perSec: 1000, seconds: 1 },
      { t: 3, perSec: 1000, seconds: 2 },
      { t: 4, perSec: 500, seconds: 1 },
    ]);
  });

  it('marks a failed reading as a gap and bridges it with the next good one; a counter reset is a gap too', () => {
    const readings = [
      { t: 0, value: 0 },
      { t: 1, value: 200 },
      { t: 2, value: null, error: 'no answer within 900 ms' },
      { t: 3, value: 800 },
      { t: 4, value: 50 }, // the process restarted
      { t: 5, value: 150 },
    ];
    expect(ratesFromReadings(readings)).toEqual([
      { t: 1, perSec: 200, seconds: 1 },
      { t: 2, perSec: null },
      { t: 3, perSec: 300, seconds: 2 },
      { t: 4, perSec: null },
      { t: 5, perSec: 100, seconds: 1 },
    ]);
    // The total counts every non-negative delta between good readings: 200 + 600 + 100.
    expect(counterTotal(readings)).toEqual({ total: 900, gaps: 1, coveredSeconds: 5 });
  });

  it('buckets the client acknowledgements on the same intervals, the last one ending with the import', () => {
    const acks = [
      { t: 0.2, docs: 100 },
      { t: 0.9, docs: 100 },
      { t: 1.5, docs: 300 },
      { t: 2.2, docs: 50 },
    ];
    expect(clientRates(acks, 1, 2.5)).toEqual([
      { t: 1, perSec: 200, seconds: 1 },
      { t: 2, perSec: 300, seconds: 1 },
      { t: 2.5, perSec: 100, seconds: 0.5 },
    ]);
  });

  it('measures the spread as the coefficient of variation and busiest/idlest', () => {
    const even = spreadOf({ a: 100, b: 100, c: 100 })!;
    expect(even.cv).toBe(0);
    expect(even.ratio).toBe(1);
    const allOnOne = spreadOf({ a: 300, b: 0, c: 0 })!;
    expect(allOnOne.cv).toBeCloseTo(Math.SQRT2, 3);
    expect(allOnOne.cvAllOnOne).toBeCloseTo(Math.SQRT2, 3);
    expect(allOnOne.ratio).toBeNull();
    expect(allOnOne.busiest).toEqual({ shard: 'a', inserts: 300 });
    expect(allOnOne.busiestShare).toBe(1);
    const uneven = spreadOf({ a: 400, b: 100, c: 100 })!;
    expect(uneven.ratio).toBe(4);
    expect(uneven.idlest.inserts).toBe(100);
    // population sd of (400, 100, 100) = 141.42, mean 200
    expect(uneven.cv).toBeCloseTo(0.707, 3);
  });
});

describe('listShards host strings', () => {
  it('reads a replica-set shard and an old standalone shard', () => {
    const rs = parseShardHost('shard0', 'shard0/h1:27018,h2:27019');
    expect(rs).toEqual({
      id: 'shard0',
      host: 'shard0/h1:27018,h2:27019',
      setName: 'shard0',
      hosts: ['h1:27018', 'h2:27019'],
    });
    expect(shardConnectionString(rs)).toBe('mongodb://h1:27018,h2:27019/?replicaSet=shard0');
    const standalone = parseShardHost('shard0000', '192.168.111.4:27118');
    expect(standalone.setName).toBeUndefined();
    expect(shardConnectionString(standalone)).toBe(
      'mongodb://192.168.111.4:27118/?directConnection=true',
    );
  });
});

describeNeeding('recording', 'the per-shard sampler against recording servers', () => {
  it('reads every shard primary (found through listShards and its replica set) and the mongos, as growing counters', async () => {
    const cluster = await startFakeShardedCluster({ shards: 3 });
    // Counters that grow with time at a known pace: 2000/s, 1000/s and none at all.
    const pace = [2000, 1000, 0];
    const origin = Date.now();
    const timer = setInterval(
      () =>
        cluster.shards.forEach(
          (s, i) => (s.inserts = Math.round(((Date.now() - origin) / 1000) * pace[i])),
        ),
      10,
    );
    const client = new MongoClient(cluster.mongos.uri);
    const connect = driverShardConnector(200);
    const connections: Array<{ close(): Promise<void> }> = [];
    try {
      const shards = await listShards(client.db('admin'));
      expect(shards.map((s) => s.id)).toEqual(['shard0', 'shard1', 'shard2']);
      expect(shards[1].setName).toBe('shard1');
      const sources = [insertCounterSource('mongos', (c) => client.db('admin').command(c))];
      for (const shard of shards) {
        const connection = connect(shard);
        connections.push(connection);
        sources.push(insertCounterSource(shard.id, connection.command));
      }
      const sampler = new CounterSampler(sources, { intervalMs: 200 });
      await sampler.start();
      // Six readings of every source (about 1.2 s on a quiet machine), then the last one stop() takes.
      await readingsUntil(
        sampler,
        (r) => Object.values(r).every((list) => list.length >= 6),
        'six readings of every source',
      );
      const readings = await sampler.stop();

      // Every shard was asked on its own server, over the wire, about every 200 ms.
      for (const shard of cluster.shards) {
        // Within one: on a loaded machine CI once counted 9 commands for 8 readings (one still on the wire).
        const asked = shard.server.userCommands().filter((c) => c.name === 'serverStatus').length;
        expect(Math.abs(asked - readings[shard.id].length)).toBeLessThanOrEqual(1);
      }
      for (const [i, shard] of cluster.shards.entries()) {
        const list = readings[shard.id];
        expect(list.length).toBeGreaterThanOrEqual(6);
        expect(list.every((r) => r.value !== null)).toBe(true);
        const rates = ratesFromReadings(list);
        const perSec = rates.map((r) => r.perSec!);
        const mean = perSec.reduce((a, b) => a + b, 0) / perSec.length;
        if (pace[i] === 0) expect(perSec.every((r) => r === 0)).toBe(true);
        else expect(Math.abs(mean - pace[i]) / pace[i]).toBeLessThan(0.2);
      }
      expect(readings.mongos.every((r) => r.value === 0)).toBe(true);
    } finally {
      clearInterval(timer);
      await Promise.all(connections.map((c) => c.close()));
      await client.close();
      await cluster.stop();
    }
  });

  it('records a shard that fails or stops answering as gaps and keeps sampling the others', async () => {
    const cluster = await startFakeShardedCluster({
      shards: 2,
      // shard1 answers its 3rd and 4th serverStatus with an error.
      shardServerStatus: (shard, call) =>
        shard.id === 'shard1' && (call === 3 || call === 4)
          ? { ok: 0, code: 91, codeName: 'ShutdownInProgress', errmsg: 'shutting down' }
          : undefined,
    });
    const client = new MongoClient(cluster.mongos.uri);
    const connect = driverShardConnector(150, { serverSelectionTimeoutMS: 300 });
    const connections: Array<{ close(): Promise<void> }> = [];
    try {
      const shards = await listShards(client.db('admin'));
      const sources = shards.map((shard) => {
        const connection = connect(shard);
        connections.push(connection);
        return insertCounterSource(shard.id, connection.command);
      });
      const sampler = new CounterSampler(sources, { intervalMs: 150 });
      await sampler.start();
      cluster.shards[0].inserts = 500;
      // Five readings of shard0 first (about 0.6 s on a quiet machine; a fixed second of sleep was fewer on
      // a loaded one).
      await readingsUntil(sampler, (r) => r.shard0.length >= 5, 'five readings of shard0');
      // shard0's server goes away: its readings fail from now on, without stopping the sampler.
      await cluster.shards[0].server.stop();
      // Until shard0 has failed twice and shard1, past its two errors, answers again three times in a row
      // (the driver looks for the primary again first): events, where 700 ms of sleep raced them.
      await readingsUntil(
        sampler,
        (r) =>
          r.shard0.filter((x) => x.value === null).length >= 2 &&
          r.shard1.length >= 7 &&
          r.shard1.slice(-3).every((x) => x.value === 0),
        "shard0's failures and shard1's recovery",
      );
      const readings = await sampler.stop();

      const shard1 = readings.shard1;
      expect(shard1.slice(2, 4).map((r) => r.value)).toEqual([null, null]);
      expect(shard1[2].error).toContain('shutting down');
      // The driver takes a shutdown error as a sign to look for the primary again, so a few more
      // readings may miss; then the readings come back.
      expect(shard1.slice(-3).every((r) => r.value === 0)).toBe(true);

      const shard0 = readings.shard0;
      const firstFailure = shard0.findIndex((r) => r.value === null);
      expect(firstFailure).toBeGreaterThan(3);
      expect(
        shard0.slice(firstFailure).every((r) => r.value === null && typeof r.error === 'string'),
      ).toBe(true);
      expect(shard0.length).toBeGreaterThanOrEqual(firstFailure + 2);
      expect(counterTotal(shard0).total).toBe(500);
      expect(
        ratesFromReadings(shard0)
          .slice(firstFailure - 1)
          .every((p) => p.perSec === null),
      ).toBe(true);
    } finally {
      await Promise.all(connections.map((c) => c.close()));
      await client.close();
      await cluster.stop();
    }
  });
});
