/**
 * `mongo-bench run` launching a cluster, run as a child process (the CLI from the TypeScript
 * sources, as bin/mongo-bench.js runs the build), with the stand-in binaries of
 * test/support/fake-bin: spawning, waiting for the ports, applying the plan in order, the command
 * log, setup.js and cleanup on a normal end, a failure and SIGINT, with no process left behind.
 *
 * What this proves and what it does not: the stand-ins answer the setup commands and acknowledge
 * writes, but store nothing (a findOne finds nothing), so the benchmark "runs" without meaning;
 * the runs are marked --test-double. The measured numbers are not checked, only that the run went
 * through every phase. MongoDB's own behaviour is for the real-server tests at the end.
 */
import { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { commandLog, Finished, runCli as runCliChild } from '../support/cli-child';
import { FAKE_BIN, freePortRange, leftovers, tempDir } from '../support/processes';
import { describeNeeding, mongodBinary, mongosBinary } from '../support/servers';
import { mongodVersion } from '../../lib/launcher/embedded';

/** `mongo-bench run <args>` as a child process (see test/support/cli-child.ts). */
function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  onOutput?: (stderr: string, child: ChildProcess) => void,
): Promise<Finished> {
  // The guard only catches a hang: a launched sharded cluster's run outlasted 40 s at load ~15 on 2 cores
  // (and the sharded matrix in matrix-launched.test.ts 100 s at ~20).
  return runCliChild(['run', ...args], {
    env,
    onStderr: onOutput,
    guardMs: 200_000,
    guardSignal: 'SIGTERM',
  });
}

interface Recorded {
  kind: string;
  port: number;
  lines: Array<{
    name?: string;
    db?: string;
    body?: Record<string, unknown>;
    event?: string;
    at: number;
  }>;
}

function recorded(dir: string): Recorded[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => {
      const [kind, port] = f.replace('.jsonl', '').split('-');
      const lines = fs
        .readFileSync(path.join(dir, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Recorded['lines'][number]);
      return { kind, port: Number(port), lines };
    });
}

const TINY = [
  '--clients',
  '1',
  '--seconds',
  '1',
  '--warmup',
  '0',
  '--docs',
  '100',
  '--test-double',
];

describe('mongo-bench run, launched with stand-in binaries (child process)', () => {
  let work: string;
  beforeAll(() => {
    work = tempDir('run-launched');
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it('sharded 2x1 with --drop: launches, drops before sharding, applies the plan in order, runs, writes every artifact, stops everything', async () => {
    const basePort = await freePortRange(4);
    const dataDir = path.join(work, 'sharded-data');
    const out = path.join(work, 'sharded-out');
    const record = path.join(work, 'sharded-record');
    const r = await runCli(
      [
        '--topology',
        'sharded',
        '--shards',
        '2',
        '--replicas',
        '1',
        '--bin-dir',
        FAKE_BIN,
        '--base-port',
        String(basePort),
        '--data-dir',
        dataDir,
        '--stop-balancer',
        '--chunk-size',
        '64',
        '--drop',
        '--out',
        out,
        ...TINY,
      ],
      { MONGO_BENCH_FAKE_RECORD_DIR: record },
    );
    expect(r.stderr).not.toContain('unexpected error');
    expect(r.code).toBe(0);
    expect(leftovers(dataDir)).toEqual([]);

    // command-log.txt: the mongods' command lines, the replica-set steps, then mongos, then the cluster steps, in plan order.
    const log = commandLog(out);
    const index = (pattern: RegExp) => log.findIndex((l) => pattern.test(l));
    const lastIndex = (pattern: RegExp) => log.map((l) => pattern.test(l)).lastIndexOf(true);
    const mongodLines = log.filter((l) => l.startsWith(`${FAKE_BIN}/mongod `));
    expect(mongodLines.map((l) => /--port (\d+)/.exec(l)![1])).toEqual(
      [basePort + 1, basePort + 2, basePort + 3].map(String),
    );
    expect(lastIndex(/^\/.*\/mongod /)).toBeLessThan(index(/"replSetInitiate"/));
    expect(lastIndex(/apply .*"replSetInitiate"/)).toBeLessThan(index(/^\/.*\/mongos /));
    expect(index(/^\/.*\/mongos /)).toBeLessThan(index(/"addShard"/));
    const applied = log
      .filter((l) => / apply /.test(l))
      .map(
        (l) =>
          Object.keys(JSON.parse(/ apply \S+ \S+ \S+ (\{.*\}) -> ok/.exec(l)![1]) as object)[0],
      );
    // The plan has two moveChunks (one chunk per shard); the first goes to the primary shard shard0,
    // where the collection's only chunk starts, so the plan marks it expectSkip and its check finds
    // it done: it is not sent. Only the move to shard1 is applied. No balancerStart: --stop-balancer.
    // --drop (of the collection the load replaces) comes once the cluster is formed and before
    // enableSharding: a drop after the sharding steps would remove the collection's sharding (the
    // stand-in's catalog models it, test/stand-ins/sharding.test.ts).
    expect(applied).toEqual([
      'replSetInitiate',
      'replSetInitiate',
      'replSetInitiate',
      'addShard',
      'addShard',
      'drop',
      'enableSharding',
      'shardCollection',
      'configureCollectionBalancing',
      'balancerStop',
      'split',
      'moveChunk',
    ]);
    const moveApplied = log.filter((l) => / apply .*"moveChunk"/.test(l));
    expect(moveApplied.map((l) => /"to":"(\w+)"/.exec(l)![1])).toEqual(['shard1']);
    // The step before it (the move to shard0) was checked against config.chunks and not applied.
    const [moveStep, steps] = /\[(\d+)\/(\d+)\] apply /.exec(moveApplied[0])!.slice(1).map(Number);
    const skipped = log.filter((l) => l.includes(`[${moveStep - 1}/${steps}] `));
    expect(skipped.some((l) => / check .*"find":"chunks"/.test(l))).toBe(true);
    expect(skipped.filter((l) => / apply /.test(l))).toEqual([]);
    // setup.js (the plan as applied) still lists that step, marked as expected to be skipped.
    const setupPlan = fs
      .readFileSync(path.join(out, 'setup.js'), 'utf8')
      .replace(/\n\/\/ {2}/g, ' ');
    expect(setupPlan).toContain(
      "Expected to be skipped: the collection's chunks start on the database's primary shard shard0",
    );
    expect(index(/balancerStop/)).toBeLessThan(index(/load: 100 documents .*keeping its sharding/));
    expect(index(/load: /)).toBeLessThan(index(/benchmark complete/));
    expect(
      log
        .filter((l) => /stopped (mongos-0|shard0-0|shard1-0|cfg-0) /.test(l))
        .map((l) => /stopped (\S+)/.exec(l)![1]),
    ).toEqual(['mongos-0', 'shard0-0', 'shard1-0', 'cfg-0']);
    // Each stop is measured and logged, and none needed a SIGKILL.
    for (const l of log.filter((x) => /stopped (mongos-0|shard0-0|shard1-0|cfg-0) /.test(x)))
      expect(l).toMatch(/: exit code 0, in \d+\.\d s/);
    expect(log.some((l) => /stopped 4 process\(es\) in \d+\.\d s/.test(l))).toBe(true);
    // Each mongod got its share of this machine's memory for the WiredTiger cache, said in the log.
    expect(log.filter((l) => /^\/.*\/mongod .*--wiredTigerCacheSizeGB \d/.test(l))).toHaveLength(3);
    expect(
      log.some((l) =>
        /Each mongod gets --wiredTigerCacheSizeGB [\d.]+: 50% of \(RAM - 1 GB\) shared by the 3 mongod\(s\)/.test(
          l,
        ),
      ),
    ).toBe(true);

    // What the stand-ins received: the same commands, each on the process the plan names; SIGTERM at the end.
    const servers = recorded(record);
    const mongos = servers.find((s) => s.kind === 'mongos')!;
    const mongosCommands = mongos.lines.map((l) => l.name);
    for (const name of [
      'addShard',
      'enableSharding',
      'shardCollection',
      'split',
      'moveChunk',
      'balancerStop',
      'insert',
      'find',
      'update',
    ])
      expect(mongosCommands).toContain(name);
    expect(mongosCommands.indexOf('balancerStop')).toBeLessThan(mongosCommands.indexOf('insert'));
    expect(mongosCommands).not.toContain('dropDatabase');
    expect(mongosCommands.indexOf('drop')).toBeGreaterThanOrEqual(0);
    expect(mongosCommands.lastIndexOf('drop')).toBeLessThan(
      mongosCommands.indexOf('enableSharding'),
    );
    const cfg = servers.find((s) => s.port === basePort + 1)!;
    expect(cfg.lines.find((l) => l.name === 'replSetInitiate')?.body).toMatchObject({
      replSetInitiate: { _id: 'cfg', configsvr: true },
    });
    // The last event each stand-in saw is SIGTERM (commands it received before are flushed after it: stop() asks each member hello first).
    for (const s of servers)
      expect(s.lines.filter((l) => l.event !== undefined).at(-1)?.event).toBe('SIGTERM');
    // Stop order: mongos before the shards, the shards before the config server.
    const stopAt = (port: number) => servers.find((s) => s.port === port)!.lines.at(-1)!.at;
    expect(stopAt(basePort)).toBeLessThan(stopAt(basePort + 2));
    expect(stopAt(basePort + 3)).toBeLessThan(stopAt(basePort + 1));

    // setup.js is the mongosh form of the applied plan; the report is there.
    const setupJs = fs.readFileSync(path.join(out, 'setup.js'), 'utf8');
    for (const text of [
      'replSetInitiate',
      'addShard',
      'shardCollection',
      'balancerStop',
      `"127.0.0.1:${basePort}"`,
    ])
      expect(setupJs).toContain(text);
    for (const f of ['results.json', 'summary.md', 'results.csv', 'index.html', 'timeline.png'])
      expect(fs.existsSync(path.join(out, f))).toBe(true);
    // --data-dir given: kept, like the process folders in it.
    expect(fs.existsSync(path.join(dataDir, 'cfg-0'))).toBe(true);
  }, 240_000);

  it('SIGINT during the sweep (replset 3): partial results, every process stopped, exit 130', async () => {
    const basePort = await freePortRange(3);
    const out = path.join(work, 'sigint-out');
    const record = path.join(work, 'sigint-record');
    let sent = false;
    const r = await runCli(
      [
        '--topology',
        'replset',
        '--replicas',
        '3',
        '--bin-dir',
        FAKE_BIN,
        '--base-port',
        String(basePort),
        '--out',
        out,
        '--clients',
        '1,2',
        '--seconds',
        '20',
        '--warmup',
        '0',
        '--docs',
        '100',
        '--test-double',
      ],
      { MONGO_BENCH_FAKE_RECORD_DIR: record },
      (stderr, child) => {
        // Only the CLI gets the signal: it must stop its children itself.
        if (!sent && stderr.includes('[sweep] step 1/2')) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), 1500);
        }
      },
    );
    expect(sent).toBe(true);
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('SIGINT: stopping the clients');
    const result = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')) as {
      complete: boolean;
      incompleteReason: string;
      steps: unknown[];
    };
    expect(result.complete).toBe(false);
    expect(result.incompleteReason).toContain('SIGINT');
    expect(result.steps).toHaveLength(1);
    expect(fs.existsSync(path.join(out, 'timeline.png'))).toBe(true); // the report of what finished

    const servers = recorded(record);
    expect(servers).toHaveLength(3);
    // The last event each stand-in saw is SIGTERM (commands it received before are flushed after it: stop() asks each member hello first).
    for (const s of servers)
      expect(s.lines.filter((l) => l.event !== undefined).at(-1)?.event).toBe('SIGTERM');
    // The default data folder was our own temp folder: removed, and nothing runs with it.
    const dataDir = /--dbpath (\S+)\/rs0-0/.exec(
      commandLog(out).find((l) => l.includes('--dbpath'))!,
    )![1];
    expect(fs.existsSync(dataDir)).toBe(false);
    expect(leftovers(dataDir)).toEqual([]);
  }, 240_000);

  it('SIGTERM while the processes start: no result, every process stopped, exit 143', async () => {
    const basePort = await freePortRange(3);
    const dataDir = path.join(work, 'sigterm-data');
    const out = path.join(work, 'sigterm-out');
    let sent = false;
    const r = await runCli(
      [
        '--topology',
        'sharded',
        '--shards',
        '1',
        '--bin-dir',
        FAKE_BIN,
        '--base-port',
        String(basePort),
        '--data-dir',
        dataDir,
        '--out',
        out,
        ...TINY,
      ],
      {},
      (stderr, child) => {
        if (!sent && stderr.includes('[launch] starting 2 mongods')) {
          sent = true;
          setTimeout(() => child.kill('SIGTERM'), 300);
        }
      },
    );
    expect(sent).toBe(true);
    expect(r.code).toBe(143);
    expect(r.stderr).toContain('before the benchmark started; nothing was measured');
    expect(leftovers(dataDir)).toEqual([]);
    expect(fs.existsSync(path.join(out, 'results.json'))).toBe(false);
  }, 240_000);

  it('a failure after launch (mongos does not start): exit 1, the mongods already started are stopped', async () => {
    const basePort = await freePortRange(3);
    const bin = path.join(work, 'broken-bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'mongod'), `#!/bin/sh\nexec ${FAKE_BIN}/mongod "$@"\n`, {
      mode: 0o755,
    });
    fs.writeFileSync(
      path.join(bin, 'mongos'),
      '#!/bin/sh\necho "mongos: cannot start (test)" >&2\nexit 3\n',
      { mode: 0o755 },
    );
    const dataDir = path.join(work, 'broken-data');
    const out = path.join(work, 'broken-out');
    const r = await runCli(
      [
        '--topology',
        'sharded',
        '--shards',
        '1',
        '--bin-dir',
        bin,
        '--base-port',
        String(basePort),
        '--data-dir',
        dataDir,
        '--out',
        out,
        ...TINY,
      ],
      {},
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/mongos "mongos-0" exited with code 3/);
    expect(leftovers(dataDir)).toEqual([]);
    const log = commandLog(out);
    expect(log.filter((l) => / apply .*"replSetInitiate"/.test(l))).toHaveLength(2);
    expect(log.some((l) => /stopped cfg-0 .*exit code 0/.test(l))).toBe(true);
    expect(log.some((l) => /failed: setup step 3\/\d+ "Add shard shard0"/.test(l))).toBe(true);
    // setup.js shows what was attempted: the two initiates and the step that failed.
    const setupJs = fs.readFileSync(path.join(out, 'setup.js'), 'utf8');
    expect(setupJs).toContain('replSetInitiate');
    expect(setupJs).toContain('addShard');
    expect(setupJs).not.toContain('shardCollection');
    expect(fs.existsSync(path.join(out, 'results.json'))).toBe(false);
  }, 240_000);
});

describeNeeding('replset', 'mongo-bench run --topology replset with a real mongod', () => {
  it('launches a 3-member replica set, runs a tiny sweep, stops it', async () => {
    const work = tempDir('run-real-rs');
    try {
      const basePort = await freePortRange(3);
      const r = await runCli(
        [
          '--topology',
          'replset',
          '--replicas',
          '3',
          '--mongod-bin',
          mongodBinary(),
          '--server-version',
          mongodVersion(mongodBinary()),
          '--base-port',
          String(basePort),
          '--out',
          path.join(work, 'out'),
          '--clients',
          '1,2',
          '--seconds',
          '2',
          '--warmup',
          '1',
          '--docs',
          '1000',
        ],
        {},
      );
      expect(r.code).toBe(0);
      const result = JSON.parse(
        fs.readFileSync(path.join(work, 'out', 'results.json'), 'utf8'),
      ) as { complete: boolean; target: { topology: string } };
      expect(result).toMatchObject({ complete: true, target: { topology: 'replicaSet' } });
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }, 180_000);
});

describeNeeding('sharded', 'mongo-bench run --topology sharded with real mongod and mongos', () => {
  it('launches 2 shards, pre-splits, runs a tiny sweep, stops everything', async () => {
    const work = tempDir('run-real-sharded');
    try {
      const basePort = await freePortRange(4);
      const binDir = path.dirname(mongodBinary());
      expect(path.dirname(mongosBinary())).toBe(binDir);
      const r = await runCli(
        [
          '--topology',
          'sharded',
          '--shards',
          '2',
          '--bin-dir',
          binDir,
          '--server-version',
          mongodVersion(mongodBinary()),
          '--base-port',
          String(basePort),
          '--stop-balancer',
          '--out',
          path.join(work, 'out'),
          '--clients',
          '1,2',
          '--seconds',
          '2',
          '--warmup',
          '1',
          '--docs',
          '1000',
        ],
        {},
      );
      expect(r.code).toBe(0);
      const result = JSON.parse(
        fs.readFileSync(path.join(work, 'out', 'results.json'), 'utf8'),
      ) as { complete: boolean; target: { topology: string } };
      expect(result).toMatchObject({ complete: true, target: { topology: 'sharded' } });
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }, 300_000);
});
