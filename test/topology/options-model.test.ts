import {
  buildTopology,
  checkPortsDistinct,
  resolveTopologyOptions,
  TopologyInput,
} from '../../lib/topology';
import { usageMessage } from '../support/cli';

const topologyOf = (input: TopologyInput) => buildTopology(resolveTopologyOptions(input).options);
const errorOf = (input: TopologyInput, style: 'flag' | 'config' = 'flag') =>
  usageMessage(() => resolveTopologyOptions(input, style));

describe('topology options', () => {
  it('names the option in every bad-input message', () => {
    expect(errorOf({ topology: 'sharded', shards: 0 })).toMatch(
      /^option --shards: must be at least 1/,
    );
    expect(errorOf({ topology: 'replset', replicas: 0 })).toMatch(
      /^option --replicas: must be at least 1/,
    );
    expect(errorOf({ topology: 'sharded', configServers: 0 })).toMatch(
      /^option --config-servers: must be at least 1/,
    );
    expect(errorOf({ topology: 'shraded' })).toMatch(
      /^option --topology: must be one of standalone, replset, sharded/,
    );
    expect(errorOf({ topology: 'sharded', chunkSize: 2048 })).toMatch(
      /^option --chunk-size: must be from 1 to 1024/,
    );
    expect(errorOf({ topology: 'sharded', serverVersion: 'seven' })).toMatch(
      /^option --server-version: expected a version like 7.0/,
    );
    // The floor: the bundled driver refuses servers below 4.4 (exit 2, the option and the floor named).
    expect(errorOf({ topology: 'sharded', serverVersion: '3.4' })).toMatch(
      /^option --server-version: 3.4 is older than 4.4, the oldest/,
    );
    expect(errorOf({ topology: 'sharded', serverVersion: '4.2.24' })).toMatch(
      /^option --server-version: 4.2.24 is older than 4.4/,
    );
    expect(() =>
      resolveTopologyOptions({ topology: 'replset', serverVersion: '4.4.0' }),
    ).not.toThrow();
    expect(errorOf({ topology: 'sharded', cacheSizeGb: 0.1 })).toMatch(
      /^option --cache-size-gb: must be from 0.25 to 10000/,
    );
    expect(errorOf({ topology: 'sharded', db: 'my.db' })).toMatch(
      /^option --db: must be a database name/,
    );
    expect(errorOf({ topology: 'sharded', shards: 0 }, 'config')).toMatch(
      /^config shards: must be at least 1/,
    );
  });

  it('refuses options that do not apply to the topology', () => {
    expect(errorOf({ topology: 'standalone', shards: 3 })).toBe(
      'option --shards: only applies to --topology sharded (topology is standalone)',
    );
    expect(errorOf({ topology: 'replset', presplit: '0:64' })).toMatch(
      /^option --presplit: only applies to --topology sharded/,
    );
    expect(errorOf({ topology: 'sharded', arbiter: true })).toMatch(
      /^option --arbiter: only applies to --topology replset/,
    );
    expect(errorOf({ topology: 'sharded', hashed: true, presplit: '0:64' })).toMatch(
      /^option --presplit: needs a ranged shard key/,
    );
    expect(errorOf({ topology: 'replset', replicas: 3, priorities: [1, 1] })).toMatch(
      /^option --priorities: give one priority per member \(3\), got 2/,
    );
  });

  it('warns about even member counts (elections need a majority)', () => {
    expect(
      resolveTopologyOptions({ topology: 'replset', replicas: 2 }).warnings.join('\n'),
    ).toMatch(/option --replicas 2: an even number of voting members \(2\).*or add --arbiter/);
    expect(
      resolveTopologyOptions({ topology: 'replset', replicas: 2, arbiter: true }).warnings,
    ).toEqual([]);
    expect(
      resolveTopologyOptions({ topology: 'sharded', replicas: 4, hashed: true }).warnings.join(),
    ).toMatch(/--replicas 4: an even number/);
    expect(
      resolveTopologyOptions({
        topology: 'sharded',
        configServers: 2,
        hashed: true,
      }).warnings.join(),
    ).toMatch(/--config-servers 2: an even number/);
    expect(resolveTopologyOptions({ topology: 'replset', replicas: 3 }).warnings).toEqual([]);
    expect(resolveTopologyOptions({ topology: 'replset', replicas: 1 }).warnings).toEqual([]);
  });

  it('refuses ports past 65535, naming --base-port', () => {
    expect(() => topologyOf({ topology: 'replset', replicas: 3, basePort: 65534 })).toThrow(
      'option --base-port: 3 processes need ports 65534-65536, past 65535; use a base port of at most 65533',
    );
    expect(
      topologyOf({ topology: 'replset', replicas: 3, basePort: 65533 }).processes.map(
        (p) => p.port,
      ),
    ).toEqual([65533, 65534, 65535]);
    expect(errorOf({ basePort: 70000 })).toMatch(/^option --base-port: must be from 1 to 65535/);
  });

  it('refuses two processes on one address', () => {
    expect(() =>
      checkPortsDistinct([
        { name: 'a', address: '127.0.0.1:27017' },
        { name: 'b', address: '127.0.0.1:27018' },
        { name: 'c', address: '127.0.0.1:27017' },
      ]),
    ).toThrow('option --base-port: processes "a" and "c" would both listen on 127.0.0.1:27017');
  });
});

describe('topology model', () => {
  it('standalone: one mongod on the base port', () => {
    const t = topologyOf({});
    expect(t.name).toBe('standalone');
    expect(t.processes).toHaveLength(1);
    expect(t.processes[0]).toMatchObject({
      name: 'mongod',
      kind: 'mongod',
      port: 27017,
      dbPath: 'mongo-bench-data/mongod',
    });
    expect(t.replicaSets).toEqual([]);
    expect(t.uri).toBe('mongodb://127.0.0.1:27017/');
  });

  it('replset: consecutive ports, one data directory each, priorities and an arbiter in the config', () => {
    const t = topologyOf({
      topology: 'replset',
      replicas: 3,
      arbiter: true,
      priorities: [2, 1, 1],
      basePort: 28000,
      dataDir: '/var/mb',
    });
    expect(t.name).toBe('replset-3-arbiter');
    expect(t.processes.map((p) => [p.name, p.port, p.dbPath, p.role])).toEqual([
      ['rs0-0', 28000, '/var/mb/rs0-0', 'member'],
      ['rs0-1', 28001, '/var/mb/rs0-1', 'member'],
      ['rs0-2', 28002, '/var/mb/rs0-2', 'member'],
      ['rs0-arbiter', 28003, '/var/mb/rs0-arbiter', 'arbiter'],
    ]);
    expect(t.replicaSets[0].config).toEqual({
      _id: 'rs0',
      members: [
        { _id: 0, host: '127.0.0.1:28000', priority: 2 },
        { _id: 1, host: '127.0.0.1:28001', priority: 1 },
        { _id: 2, host: '127.0.0.1:28002', priority: 1 },
        { _id: 3, host: '127.0.0.1:28003', arbiterOnly: true },
      ],
    });
    expect(t.processes[0].args).toEqual([
      '--port',
      '28000',
      '--bind_ip',
      '127.0.0.1',
      '--dbpath',
      '/var/mb/rs0-0',
      '--logpath',
      '/var/mb/rs0-0/mongod.log',
      '--logappend',
      '--replSet',
      'rs0',
      // 5.0+ (the default plan is 7.0): a 1 s quiesce period instead of 15 s on SIGTERM.
      '--setParameter',
      'shutdownTimeoutMillisForSignaledShutdown=1000',
    ]);
    // 4.4 knows neither quiesce parameter and would refuse to start with it.
    const old = topologyOf({ topology: 'sharded', serverVersion: '4.4' });
    expect(old.processes.flatMap((p) => p.args)).not.toContain('--setParameter');
    const v5 = topologyOf({ topology: 'sharded', serverVersion: '5.0' });
    expect(v5.processes.find((p) => p.kind === 'mongos')!.args.slice(-2)).toEqual([
      '--setParameter',
      'mongosShutdownTimeoutMillisForSignaledShutdown=1000',
    ]);
    expect(t.uri).toBe('mongodb://127.0.0.1:28000,127.0.0.1:28001,127.0.0.1:28002/?replicaSet=rs0');
  });

  it("sharded 5x3 (the seeds' last configuration): mongos, a config replica set, five 3-member shards", () => {
    const t = topologyOf({ topology: 'sharded', shards: 5, replicas: 3, hashed: true });
    expect(t.processes).toHaveLength(1 + 1 + 15);
    expect(t.processes.map((p) => p.port)).toEqual(Array.from({ length: 17 }, (_, i) => 27017 + i));
    const mongos = t.processes[0];
    expect(mongos).toMatchObject({ name: 'mongos-0', kind: 'mongos', dbPath: undefined });
    expect(mongos.args).toContain('--configdb');
    expect(mongos.args[mongos.args.indexOf('--configdb') + 1]).toBe('cfg/127.0.0.1:27018');
    expect(t.processes[1].args).toEqual(
      expect.arrayContaining(['--replSet', 'cfg', '--configsvr']),
    );
    expect(t.replicaSets[0].config.configsvr).toBe(true);
    expect(t.shards[4]).toEqual({
      id: 'shard4',
      replicaSet: 'shard4',
      connectionString: 'shard4/127.0.0.1:27031,127.0.0.1:27032,127.0.0.1:27033',
    });
    expect(
      t.processes.filter((p) => p.replSet === 'shard2').every((p) => p.args.includes('--shardsvr')),
    ).toBe(true);
    expect(t.sharding).toMatchObject({ ns: 'mongo_bench.docs', key: { _id: 'hashed' } });
  });
});
