import { jsLiteral } from '../../lib/topology/js-literal';
import {
  planFromOptions,
  renderMongosh,
  renderPlanTable,
  renderStartMongosScript,
  renderStartScript,
  scriptsCommandLine,
  resolveTopologyOptions,
} from '../../lib/topology';

describe('rendering', () => {
  it('writes JavaScript literals a person would type', () => {
    expect(jsLiteral({ split: 'db.c', middle: { g: 12.8 }, 'a-b': [1, true, null] })).toBe(
      '{ split: "db.c", middle: { g: 12.8 }, "a-b": [1, true, null] }',
    );
    expect(jsLiteral({ $set: { value: 64 } })).toBe('{ $set: { value: 64 } }');
    const long = jsLiteral({
      members: Array.from({ length: 5 }, (_, i) => ({ _id: i, host: `127.0.0.1:${27017 + i}` })),
    });
    expect(long.split('\n')[0]).toBe('{');
    expect(long).toContain('\n    { _id: 4, host: "127.0.0.1:27021" },\n');
    expect(new Function(`return ${long};`)()).toEqual({
      members: Array.from({ length: 5 }, (_, i) => ({ _id: i, host: `127.0.0.1:${27017 + i}` })),
    });
  });

  it("the mongosh scripts carry the plan's command documents literally", () => {
    const plan = planFromOptions({
      topology: 'sharded',
      shards: 5,
      replicas: 1,
      shardKey: 'g',
      presplit: '0:64',
      stopBalancer: true,
    });
    const [replsets, cluster] = renderMongosh(plan);
    expect(replsets.file).toBe('10-replsets.js');
    expect(cluster.file).toBe('20-cluster.js');
    for (const point of [12.8, 25.6, 38.4, 51.2])
      expect(cluster.text).toContain(
        `command: { split: "mongo_bench.docs", middle: { g: ${point} } }`,
      );
    for (const [find, to] of [
      [6.4, 0],
      [19.2, 1],
      [32, 2],
      [44.8, 3],
      [57.6, 4],
    ]) {
      expect(cluster.text).toContain(
        `command: { moveChunk: "mongo_bench.docs", find: { g: ${find} }, to: "shard${to}" }`,
      );
    }
    expect(cluster.text).toContain(
      "// Expected to be skipped: the collection's chunks start on the database's primary shard shard0",
    );
    expect(cluster.text).toContain('const TARGETS = { "mongos-0": "127.0.0.1:27017" };');
    expect(replsets.text).toContain('"cfg-0": "127.0.0.1:27018",');
    expect(replsets.text).toMatch(/Run it with: mongosh --nodb 10-replsets\.js/);
    // Syntactically valid JavaScript (mongosh itself runs them in mongosh-scripts.test.ts).
    for (const s of [replsets, cluster]) expect(() => new Function(s.text)).not.toThrow();
  });

  it('00-start.sh starts the mongods, 15-start-mongos.sh the routers, every path under the absolute $DATA_DIR', () => {
    const plan = planFromOptions({
      topology: 'sharded',
      shards: 2,
      replicas: 3,
      hashed: true,
      dataDir: 'my data',
      serverVersion: '4.4',
    });
    const sh = renderStartScript(plan);
    const starts = sh.split('\n').filter((l) => l.startsWith('start '));
    expect(starts).toHaveLength(1 + 6);
    expect(starts.every((l) => l.startsWith('start "$MONGOD"'))).toBe(true);
    expect(starts[0]).toBe(
      'start "$MONGOD" --port 27018 --bind_ip 127.0.0.1 --dbpath "$DATA_DIR/cfg-0" --logpath "$DATA_DIR/cfg-0/mongod.log" --logappend --replSet cfg --configsvr --wiredTigerCacheSizeGB "$CACHE_GB" --fork --pidfilepath "$DATA_DIR/cfg-0/mongod.pid"',
    );
    expect(sh).toContain('DATA_DIR="${MONGO_BENCH_DATA_DIR:-my data}"');
    expect(sh).toContain('DATA_DIR="$(cd "$DATA_DIR" && pwd -P)"');
    expect(sh).toContain('mkdir -p "$DATA_DIR/shard1-2"');
    expect(sh).toContain('echo "+ $*"');
    const routers = renderStartMongosScript(plan)
      .split('\n')
      .filter((l) => l.startsWith('start '));
    expect(routers).toEqual([
      'start "$MONGOS" --port 27017 --bind_ip 127.0.0.1 --logpath "$DATA_DIR/mongos-0/mongos.log" --logappend --configdb cfg/127.0.0.1:27018 --fork --pidfilepath "$DATA_DIR/mongos-0/mongos.pid"',
    ]);
  });

  it('reproduces the command line that made a plan', () => {
    const { options } = resolveTopologyOptions({
      topology: 'sharded',
      shards: 5,
      replicas: 1,
      shardKey: 'g',
      presplit: '0:64',
      stopBalancer: true,
    });
    expect(scriptsCommandLine(options)).toBe(
      'mongo-bench scripts --topology sharded --replicas 1 --shards 5 --shard-key g --presplit 0:64 --stop-balancer',
    );
  });

  it('prints the plan as a table for --dry-run', () => {
    const table = renderPlanTable(planFromOptions({ topology: 'replset', replicas: 3 }));
    expect(table).toMatch(
      /^Topology replset-3 \(MongoDB 7\.0\); clients connect to mongodb:\/\/127\.0\.0\.1:27017,127\.0\.0\.1:27018,127\.0\.0\.1:27019\/\?replicaSet=rs0/,
    );
    expect(table).toMatch(
      /rs0-2\s+127\.0\.0\.1:27019\s+replica-set member of replica set rs0\s+mongod --port 27019/,
    );
    expect(table).toMatch(
      /^1\s+rs0-0 \(127\.0\.0\.1:27017\)\s+admin\s+\{"replSetInitiate":.*\+ wait for PRIMARY \(60 s\)\s+replSetInitiated$/m,
    );
  });
});
