import {
  buildSetupPlan,
  buildTopology,
  dataDistributionSteps,
  parseServerVersion,
  planFromOptions,
  resolveTopologyOptions,
} from '../../lib/topology';

const SEEDS = {
  topology: 'sharded',
  shards: 5,
  replicas: 1,
  shardKey: 'g',
  presplit: '0:64',
  stopBalancer: true,
};
const names = (steps: { command: Record<string, unknown> }[]) =>
  steps.map((s) => Object.keys(s.command)[0]);

describe('setup plan', () => {
  it('a standalone needs no steps', () => {
    const plan = planFromOptions({});
    expect(plan.steps).toEqual([]);
    expect(plan.processes).toHaveLength(1);
  });

  it('a replica set: one replSetInitiate on its first member, then a bounded wait for a PRIMARY', () => {
    const plan = planFromOptions({ topology: 'replset', replicas: 3 });
    expect(plan.steps).toEqual([
      {
        phase: 'replsets',
        target: 'rs0-0',
        db: 'admin',
        command: {
          replSetInitiate: {
            _id: 'rs0',
            members: [
              { _id: 0, host: '127.0.0.1:27017' },
              { _id: 1, host: '127.0.0.1:27018' },
              { _id: 2, host: '127.0.0.1:27019' },
            ],
          },
        },
        description: 'Initiate replica set rs0 (127.0.0.1:27017, 127.0.0.1:27018, 127.0.0.1:27019)',
        check: { kind: 'replSetInitiated', setName: 'rs0' },
        waitFor: { kind: 'primary', setName: 'rs0', timeoutMs: 60000 },
      },
    ]);
    expect(plan.targets['rs0-0']).toEqual({
      name: 'rs0-0',
      kind: 'mongod',
      address: '127.0.0.1:27017',
      replSet: 'rs0',
    });
  });

  it("the seeds' sharded case comes out exactly as the article did it", () => {
    const plan = planFromOptions(SEEDS);
    expect(names(plan.steps)).toEqual([
      ...Array(6).fill('replSetInitiate'),
      ...Array(5).fill('addShard'),
      'enableSharding',
      'shardCollection',
      // The balancer goes off before the first split (a running one would race the moves), and stays off.
      'balancerStop',
      ...Array(4).fill('split'),
      ...Array(5).fill('moveChunk'),
    ]);
    expect(plan.steps.slice(0, 6).map((s) => s.target)).toEqual([
      'cfg-0',
      'shard0-0',
      'shard1-0',
      'shard2-0',
      'shard3-0',
      'shard4-0',
    ]);
    expect(plan.steps.slice(6).every((s) => s.target === 'mongos-0')).toBe(true);
    expect(
      plan.steps.filter((s) => 'addShard' in s.command).map((s) => s.command.addShard),
    ).toEqual([
      'shard0/127.0.0.1:27019',
      'shard1/127.0.0.1:27020',
      'shard2/127.0.0.1:27021',
      'shard3/127.0.0.1:27022',
      'shard4/127.0.0.1:27023',
    ]);
    const cluster = plan.steps.slice(11).map((s) => s.command);
    expect(cluster).toEqual([
      { enableSharding: 'mongo_bench', primaryShard: 'shard0' },
      { shardCollection: 'mongo_bench.docs', key: { g: 1 } },
      { balancerStop: 1 },
      { split: 'mongo_bench.docs', middle: { g: 12.8 } },
      { split: 'mongo_bench.docs', middle: { g: 25.6 } },
      { split: 'mongo_bench.docs', middle: { g: 38.4 } },
      { split: 'mongo_bench.docs', middle: { g: 51.2 } },
      { moveChunk: 'mongo_bench.docs', find: { g: 6.4 }, to: 'shard0' },
      { moveChunk: 'mongo_bench.docs', find: { g: 19.2 }, to: 'shard1' },
      { moveChunk: 'mongo_bench.docs', find: { g: 32 }, to: 'shard2' },
      { moveChunk: 'mongo_bench.docs', find: { g: 44.8 }, to: 'shard3' },
      { moveChunk: 'mongo_bench.docs', find: { g: 57.6 }, to: 'shard4' },
    ]);
    // The single initial chunk starts on the primary shard: moving it there is marked, not planned blindly.
    const moves = plan.steps.filter((s) => 'moveChunk' in s.command);
    expect(moves.map((s) => Boolean(s.expectSkip))).toEqual([true, false, false, false, false]);
    expect(moves[0].expectSkip).toMatch(/primary shard shard0/);
    expect(moves.map((s) => s.check)).toEqual([
      {
        kind: 'chunkOnShard',
        ns: 'mongo_bench.docs',
        chunk: { max: { g: 12.8 } },
        shard: 'shard0',
      },
      {
        kind: 'chunkOnShard',
        ns: 'mongo_bench.docs',
        chunk: { min: { g: 12.8 } },
        shard: 'shard1',
      },
      {
        kind: 'chunkOnShard',
        ns: 'mongo_bench.docs',
        chunk: { min: { g: 25.6 } },
        shard: 'shard2',
      },
      {
        kind: 'chunkOnShard',
        ns: 'mongo_bench.docs',
        chunk: { min: { g: 38.4 } },
        shard: 'shard3',
      },
      {
        kind: 'chunkOnShard',
        ns: 'mongo_bench.docs',
        chunk: { min: { g: 51.2 } },
        shard: 'shard4',
      },
    ]);
    expect(plan.notes.join('\n')).toMatch(
      /Since 6\.0\.3 MongoDB no longer auto-splits chunks: the pre-split alone decides/,
    );
  });

  it('5 shards x 3 members: addShard names every member of each set', () => {
    const plan = planFromOptions({
      topology: 'sharded',
      shards: 5,
      replicas: 3,
      hashed: true,
      chunkSize: 1024,
    });
    expect(plan.steps.filter((s) => 'addShard' in s.command)[0].command).toEqual({
      addShard: 'shard0/127.0.0.1:27019,127.0.0.1:27020,127.0.0.1:27021',
    });
    expect(plan.steps.find((s) => 'shardCollection' in s.command)!.command).toEqual({
      shardCollection: 'mongo_bench.docs',
      key: { _id: 'hashed' },
    });
    // 7.0: the collection's own chunk size (configureCollectionBalancing), not the cluster-wide setting.
    expect(plan.steps.find((s) => 'configureCollectionBalancing' in s.command)).toMatchObject({
      command: { configureCollectionBalancing: 'mongo_bench.docs', chunkSize: 1024 },
      check: { kind: 'collectionChunkSize', ns: 'mongo_bench.docs', bytes: 1024 * 1024 * 1024 },
    });
    expect(plan.steps.some((s) => s.db === 'config')).toBe(false);
    expect(names(plan.steps)).not.toContain('split');
  });

  it('follows the server version: partitioned check and config.settings chunk size before 6.0, 8.0 alternative', () => {
    const old = planFromOptions({ ...SEEDS, serverVersion: '4.4', chunkSize: 64 });
    // primaryShard exists on every supported server (4.2.2+), so the first move is known to be a no-op.
    expect(old.steps.find((s) => 'enableSharding' in s.command)).toMatchObject({
      command: { enableSharding: 'mongo_bench', primaryShard: 'shard0' },
      check: { kind: 'databaseExists', db: 'mongo_bench', partitioned: true },
    });
    expect(old.steps.find((s) => s.db === 'config')).toMatchObject({
      command: {
        update: 'settings',
        updates: [{ q: { _id: 'chunksize' }, u: { $set: { value: 64 } }, upsert: true }],
      },
    });
    expect(old.steps.some((s) => 'configureCollectionBalancing' in s.command)).toBe(false);
    expect(old.notes.join('\n')).toMatch(/balancerStop also stops the auto-splitter/);
    expect(old.notes.join('\n')).not.toMatch(/quiesce/);
    const v6 = planFromOptions({ ...SEEDS, serverVersion: '6.0', chunkSize: 64 });
    expect(v6.steps.find((s) => 'enableSharding' in s.command)!.check).toEqual({
      kind: 'databaseExists',
      db: 'mongo_bench',
    });
    expect(v6.steps.find((s) => 'configureCollectionBalancing' in s.command)).toMatchObject({
      db: 'admin',
      command: { configureCollectionBalancing: 'mongo_bench.docs', chunkSize: 64 },
      check: { kind: 'collectionChunkSize', ns: 'mongo_bench.docs', bytes: 64 * 1024 * 1024 },
    });
    expect(v6.steps.some((s) => s.db === 'config')).toBe(false);
    const v8 = planFromOptions({ ...SEEDS, serverVersion: '8.0' });
    expect(v8.notes.join('\n')).toContain(
      'sh.shardAndDistributeCollection("mongo_bench.docs", { g: 1 })',
    );
  });

  it('dataDistributionSteps: the part `run --setup` applies to an existing cluster', () => {
    const { options } = resolveTopologyOptions(SEEDS);
    const topology = buildTopology(options);
    const { steps } = dataDistributionSteps(topology.sharding!, {
      shardIds: ['a', 'b'],
      serverVersion: parseServerVersion('7.0'),
      target: 'existing',
      primaryShard: null,
    });
    expect(steps.map((s) => s.target)).toEqual(Array(steps.length).fill('existing'));
    expect(steps.map((s) => s.command)).toEqual([
      { enableSharding: 'mongo_bench' },
      { shardCollection: 'mongo_bench.docs', key: { g: 1 } },
      { balancerStop: 1 },
      { split: 'mongo_bench.docs', middle: { g: 32 } },
      { moveChunk: 'mongo_bench.docs', find: { g: 16 }, to: 'a' },
      { moveChunk: 'mongo_bench.docs', find: { g: 48 }, to: 'b' },
    ]);
    // Where the first chunk starts is unknown: only the run-time checks can tell.
    expect(steps.some((s) => s.expectSkip)).toBe(false);
    expect(() =>
      dataDistributionSteps(topology.sharding!, {
        shardIds: [],
        serverVersion: parseServerVersion('7.0'),
      }),
    ).toThrow(/the cluster has no shards/);
    // The full plan contains the same distribution steps.
    const full = buildSetupPlan(topology);
    expect(full.steps.slice(-12).map((s) => names([s])[0])).toEqual([
      'enableSharding',
      'shardCollection',
      'balancerStop',
      'split',
      'split',
      'split',
      'split',
      'moveChunk',
      'moveChunk',
      'moveChunk',
      'moveChunk',
      'moveChunk',
    ]);
  });

  it('stops the balancer before the first split, and starts it again at the end unless --stop-balancer', () => {
    for (const version of ['4.4', '5.0', '6.0', '7.0', '8.0']) {
      for (const stopBalancer of [true, false]) {
        const plan = planFromOptions({ ...SEEDS, stopBalancer, serverVersion: version });
        const commands = names(plan.steps);
        const stop = commands.indexOf('balancerStop');
        expect(stop).toBeGreaterThan(-1);
        expect(stop).toBeLessThan(commands.indexOf('split'));
        expect(commands.filter((c) => c === 'balancerStop')).toHaveLength(1);
        // A second run after the balancer was started again finds the chunks in place: no second stop.
        expect(plan.steps[stop].check).toMatchObject({
          kind: 'balancerStoppedOrDistributed',
          ns: 'mongo_bench.docs',
        });
        expect((plan.steps[stop].check as { chunks: unknown[] }).chunks).toHaveLength(5);
        expect(commands[commands.length - 1]).toBe(stopBalancer ? 'moveChunk' : 'balancerStart');
      }
    }
    // Without a pre-split --stop-balancer stops it at the end, and nothing starts it.
    const hashed = names(
      planFromOptions({ topology: 'sharded', hashed: true, stopBalancer: true }).steps,
    );
    expect(hashed[hashed.length - 1]).toBe('balancerStop');
    expect(names(planFromOptions({ topology: 'sharded', hashed: true }).steps)).not.toContain(
      'balancerStop',
    );
  });
});
