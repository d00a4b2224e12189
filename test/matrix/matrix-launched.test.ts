/**
 * `mongo-bench matrix` without --uri: the target is chosen and started as `mongo-bench run` does it
 * (lib/run's resolveRunPlan and acquireTarget), once for the whole matrix, and stopped at the end.
 *
 * The launched cases run the CLI as a child process with the stand-in binaries of
 * test/support/fake-bin (recording servers that answer the setup commands and acknowledge writes
 * but store nothing). What they prove: the processes are launched from the plan, the replica set is
 * initiated (the cluster's shards added), the matrix connects to the launched target and sees a
 * 3-member replica set (so the REPLICA_SAFE w:2 / w:3 rows run and really send w:2 / w:3 instead of
 * being skipped as "standalone"), command-log.txt and setup.js are written, and every process is
 * stopped at the end, on SIGINT and on SIGTERM, with none left in /proc. What they do not prove:
 * anything about MongoDB's numbers. The stand-ins drop w:0 writes (that row is skipped by the probe)
 * and replicate nothing; the figures are marked TEST DOUBLE and not checked. A real replica-set
 * matrix runs at the end when a real mongod is available.
 */
import { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MatrixDocument } from '../../lib/matrix/matrix-document';
import { availability, describeNeeding, mongodBinary } from '../support/servers';
import { runCli as runCliInProcess } from '../support/cli';
import { commandLog, Finished, runCli as runCliChild } from '../support/cli-child';
import { FAKE_BIN, freePortRange, leftovers, tempDir } from '../support/processes';

/**
 * `mongo-bench matrix <args>` as a child process (see test/support/cli-child.ts). The guard only catches
 * a hang: the sharded presplit-import matrix outlasted 50 s at load ~15 on 2 cores, 100 s at ~20.
 */
function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  onOutput?: (stderr: string, child: ChildProcess) => void,
  guardMs = 200_000,
): Promise<Finished> {
  return runCliChild(['matrix', ...args], {
    env,
    onStderr: onOutput,
    guardMs,
    guardSignal: 'SIGTERM',
  });
}

interface RecordedLine {
  name?: string;
  db?: string;
  body?: Record<string, unknown>;
  event?: string;
  at: number;
}

/** What each stand-in received (<kind>-<port>.jsonl), by port. */
function recorded(dir: string): Map<number, { kind: string; lines: RecordedLine[] }> {
  const byPort = new Map<number, { kind: string; lines: RecordedLine[] }>();
  for (const f of fs.readdirSync(dir).filter((name) => name.endsWith('.jsonl'))) {
    const [kind, port] = f.replace('.jsonl', '').split('-');
    const lines = fs
      .readFileSync(path.join(dir, f), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RecordedLine);
    byPort.set(Number(port), { kind, lines });
  }
  return byPort;
}

const readMatrix = (out: string) =>
  JSON.parse(fs.readFileSync(path.join(out, 'matrix.json'), 'utf8')) as MatrixDocument;

async function inProcess(...args: string[]) {
  return runCliInProcess(['matrix', ...args]);
}

let work: string;
beforeAll(() => {
  work = tempDir('matrix-launched');
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('matrix on a launched cluster of stand-in binaries (child process)', () => {
  it('replset 3, write-concern-latency: launched once, w:2 and w:3 run (not skipped as standalone), logged, everything stopped', async () => {
    const basePort = await freePortRange(3);
    const out = path.join(work, 'rs-out');
    const record = path.join(work, 'rs-record');
    const r = await runCli(
      [
        '--preset',
        'write-concern-latency',
        '--topology',
        'replset',
        '--replicas',
        '3',
        '--bin-dir',
        FAKE_BIN,
        '--base-port',
        String(basePort),
        '--inserts',
        '5',
        '--rounds',
        '1',
        '--test-double',
        '--out',
        out,
      ],
      { MONGO_BENCH_FAKE_RECORD_DIR: record },
    );
    expect(r.stderr).not.toContain('unexpected error');
    // The exit code with the CLI's stderr, so a failure says why.
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });

    // The matrix saw the launched replica set, so the REPLICA_SAFE rows ran.
    const doc = readMatrix(out);
    expect(doc.complete).toBe(true);
    expect(doc.capabilities.topology).toMatchObject({
      kind: 'replicaSet',
      setName: 'rs0',
      dataMembers: 3,
    });
    const row = (label: string) => doc.rows.find((x) => x.label === label)!;
    for (const label of ['w:1', 'j:true', 'w:2', 'w:3'])
      expect({ label, status: row(label).status, inserts: row(label).measures.inserts }).toEqual({
        label,
        status: 'ok',
        inserts: 5,
      });
    for (const x of doc.rows) expect(x.reason ?? '').not.toContain('standalone');
    // The stand-ins drop w:0 writes: the probe says so and the row is skipped with that reason.
    expect(row('w:0')).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('was not applied within'),
    });
    expect(doc.notes.join('\n')).toContain(
      'Target: a local replset-3 cluster launched from the setup plan',
    );

    // The primary (the member that took replSetInitiate) received the inserts with w:2 and w:3.
    const servers = recorded(record);
    expect([...servers.keys()].sort()).toEqual([basePort, basePort + 1, basePort + 2]);
    const primary = servers.get(basePort)!;
    expect(primary.lines.find((l) => l.name === 'replSetInitiate')?.body).toMatchObject({
      replSetInitiate: { _id: 'rs0' },
    });
    const insertW = primary.lines
      .filter((l) => l.name === 'insert' && l.body?.insert === 'insertTest')
      .map((l) => JSON.stringify((l.body?.writeConcern as { w?: unknown } | undefined)?.w));
    expect(insertW.filter((w) => w === '2')).toHaveLength(5);
    expect(insertW.filter((w) => w === '3')).toHaveLength(5);
    // Stopped at the end: each stand-in recorded the SIGTERM the launcher sent (its last commands may be flushed after it).
    for (const [port, s] of servers)
      expect({ port, stoppedBy: s.lines.find((l) => l.event)?.event }).toEqual({
        port,
        stoppedBy: 'SIGTERM',
      });

    // command-log.txt: launch, initiate, connect, the configurations, then the stops, in that order.
    const log = commandLog(out);
    const index = (pattern: RegExp) => log.findIndex((l) => pattern.test(l));
    expect(log.filter((l) => l.startsWith(`${FAKE_BIN}/mongod `))).toHaveLength(3);
    expect(index(/^\/.*\/mongod .*--replSet rs0/)).toBeLessThan(index(/apply .*"replSetInitiate"/));
    expect(index(/apply .*"replSetInitiate"/)).toBeLessThan(index(/connecting to mongodb:\/\//));
    expect(index(/connecting to/)).toBeLessThan(index(/\[4\/5\] w:2: ok/));
    expect(index(/\[5\/5\] w:3: ok/)).toBeLessThan(index(/stopped rs0-0 /));
    expect(log.filter((l) => /stopped rs0-\d \(pid \d+\): exit code 0/.test(l))).toHaveLength(3);
    expect(log.at(-1)).toMatch(/matrix finished$/);
    expect(fs.readFileSync(path.join(out, 'setup.js'), 'utf8')).toContain('replSetInitiate');

    // The default data folder was our own temp folder: removed, and no process runs with it.
    const dataDir = /--dbpath (\S+)\/rs0-0/.exec(log.find((l) => l.includes('--dbpath'))!)![1];
    expect(fs.existsSync(dataDir)).toBe(false);
    expect(leftovers(dataDir)).toEqual([]);
  }, 240_000);

  it('sharded 2x1, presplit-import: no --setup needed on a cluster it launched; the shards are added, each way shards its own collection', async () => {
    const basePort = await freePortRange(4);
    const dataDir = path.join(work, 'sharded-data');
    const out = path.join(work, 'sharded-out');
    const record = path.join(work, 'sharded-record');
    const r = await runCli(
      [
        '--preset',
        'presplit-import',
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
        '--docs',
        '256',
        '--doc-size',
        '200',
        '--batch-size',
        '128',
        '--writers',
        '2',
        '--sample-interval',
        '100',
        '--test-double',
        '--out',
        out,
      ],
      { MONGO_BENCH_FAKE_RECORD_DIR: record },
    );
    expect(r.stderr).not.toContain('option --setup');
    // The exit code with the CLI's stderr, so a failure says why.
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(leftovers(dataDir)).toEqual([]);

    const doc = readMatrix(out);
    expect(doc.capabilities.topology.kind).toBe('sharded');
    expect(doc.rows.map((x) => x.status)).toEqual(['ok', 'ok', 'ok']);
    // The matrix's own plan stops at addShard; the ways' sharding is in each row's log.
    const log = commandLog(out);
    const applied = log
      .filter((l) => / apply /.test(l))
      .map(
        (l) =>
          Object.keys(JSON.parse(/ apply \S+ \S+ \S+ (\{.*\}) -> ok/.exec(l)![1]) as object)[0],
      );
    expect(applied).toEqual([
      'replSetInitiate',
      'replSetInitiate',
      'replSetInitiate',
      'addShard',
      'addShard',
    ]);
    // Each way drops the collection first (its sharding metadata goes with it), so each applies its own shardCollection.
    const rowLog = (i: number) =>
      fs.readFileSync(
        path.join(out, doc.rows[i].resultFile!.replace(/[^/]+$/, 'command-log.txt')),
        'utf8',
      );
    const shardedWith = (i: number) =>
      /\] apply .*? (\{"shardCollection".*\}) -> ok/.exec(rowLog(i))?.[1];
    expect([0, 1, 2].map((i) => JSON.parse(shardedWith(i) ?? 'null') as unknown)).toEqual(
      [{ g: 1 }, { g: 1 }, { _id: 'hashed' }].map((key) => ({
        shardCollection: 'mongo_bench_matrix.presplit_import',
        key,
      })),
    );
    // Chunks after each way, from config.chunks: one on the primary shard; one per shard after the pre-split; hashed: spread over both.
    const chunksAfter = doc.rows.map((x) => x.details?.chunksAfter as Record<string, number>);
    expect(chunksAfter.slice(0, 2)).toEqual([
      { shard0: 1, shard1: 0 },
      { shard0: 1, shard1: 1 },
    ]);
    expect(Object.values(chunksAfter[2]).every((n) => n > 0)).toBe(true);
    // The stand-ins answer serverStatus without opcounters and store no documents (the mongos does not
    // route the inserts to the shards), so every counter reading is a gap: only the client's count is real here.
    // Per-shard counting is tested with test/experiments/presplit-import/fake-sharded-cluster.ts.
    for (const x of doc.rows)
      expect(x.details).toMatchObject({ insertedDocs: 256, targetDocs: 256 });
    // Stop order: mongos first, the config server last.
    expect(
      log.filter((l) => /stopped \S+ \(pid/.test(l)).map((l) => /stopped (\S+)/.exec(l)![1]),
    ).toEqual(['mongos-0', 'shard0-0', 'shard1-0', 'cfg-0']);
    for (const [port, s] of recorded(record))
      expect({ port, stoppedBy: s.lines.find((l) => l.event)?.event }).toEqual({
        port,
        stoppedBy: 'SIGTERM',
      });
  }, 240_000);

  it('SIGINT during a configuration: what finished is kept (complete: false), every process stopped, exit 130', async () => {
    const basePort = await freePortRange(3);
    const dataDir = path.join(work, 'sigint-data');
    const out = path.join(work, 'sigint-out');
    let sent = false;
    const r = await runCli(
      [
        '--preset',
        'write-concern-latency',
        '--topology',
        'replset',
        '--bin-dir',
        FAKE_BIN,
        '--base-port',
        String(basePort),
        '--data-dir',
        dataDir,
        '--inserts',
        '20000',
        '--rounds',
        '1',
        '--test-double',
        '--out',
        out,
      ],
      {},
      (stderr, child) => {
        // Only the CLI gets the signal: it must stop its children itself.
        if (!sent && stderr.includes('[2/5] w:1 (w:1)')) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), 500);
        }
      },
    );
    expect(sent).toBe(true);
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('SIGINT: stopping the current configuration');
    const doc = readMatrix(out);
    expect(doc.complete).toBe(false);
    expect(doc.incompleteReason).toContain('interrupted (SIGINT)');
    expect(doc.rows[0].status).toBe('skipped');
    expect(doc.rows[1].status).toBe('interrupted');
    expect(doc.rows.slice(2).map((x) => x.status)).toEqual(['not-run', 'not-run', 'not-run']);
    expect(commandLog(out).filter((l) => /stopped rs0-\d /.test(l))).toHaveLength(3);
    expect(leftovers(dataDir)).toEqual([]);
  }, 240_000);

  it('SIGTERM while the processes start: nothing measured, every process stopped, exit 143', async () => {
    const basePort = await freePortRange(3);
    const dataDir = path.join(work, 'sigterm-data');
    const out = path.join(work, 'sigterm-out');
    let sent = false;
    const r = await runCli(
      [
        '--preset',
        'write-concern-latency',
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
        '--test-double',
        '--out',
        out,
      ],
      {},
      (stderr, child) => {
        if (!sent && stderr.includes('launch: starting 2 mongods')) {
          sent = true;
          setTimeout(() => child.kill('SIGTERM'), 300);
        }
      },
    );
    expect(sent).toBe(true);
    expect(r.code).toBe(143);
    expect(r.stderr).toContain(
      'interrupted (SIGTERM) while starting the target: nothing was measured',
    );
    expect(leftovers(dataDir)).toEqual([]);
    expect(fs.existsSync(path.join(out, 'matrix.json'))).toBe(false);
  }, 240_000);
});

describe('matrix --dry-run: the configurations, the target, what would be launched; nothing starts', () => {
  it('replset 3 with --bin-dir: the processes and the initiate step; no row is predicted skipped as standalone', async () => {
    const out = path.join(work, 'dry-rs');
    const r = await inProcess(
      '--preset',
      'most',
      '--topology',
      'replset',
      '--replicas',
      '3',
      '--bin-dir',
      FAKE_BIN,
      '--base-port',
      '1',
      '--out',
      out,
      '--dry-run',
    );
    // The exit code with the CLI's stderr, so a failure says why.
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(r.stdout).toContain('a local replset-3 cluster launched from the setup plan');
    expect(r.stdout).toMatch(/rs0-2 +127\.0\.0\.1:3 /);
    expect(r.stdout).toContain('"replSetInitiate"');
    expect(r.stdout).toContain('Configurations (14):');
    expect(r.stdout).toContain('14. REPLICA_SAFE(3) (w:3), secondary reads');
    expect(r.stdout).not.toContain('would be skipped');
    expect(r.stdout).toContain('Nothing was started or connected (--dry-run).');
    expect(fs.existsSync(out)).toBe(false);
  });

  it('the embedded default: a standalone, whose replica-set rows are predicted skipped with the reason', async () => {
    const r = await inProcess('--preset', 'write-concern-latency', '--dry-run');
    // The exit code with the CLI's stderr, so a failure says why.
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(r.stdout).toContain(
      'embedded MongoDB (mongodb-memory-server): a standalone on 127.0.0.1',
    );
    expect(r.stdout).toContain(
      'would be skipped: w:2 needs a replica set with at least 2 data-bearing members; the target is a standalone',
    );
  });

  it('presplit-import on a launched sharded cluster: --setup implied, the plan stops at addShard', async () => {
    const r = await inProcess(
      '--preset',
      'presplit-import',
      '--topology',
      'sharded',
      '--shards',
      '3',
      '--bin-dir',
      FAKE_BIN,
      '--dry-run',
    );
    // The exit code with the CLI's stderr, so a failure says why.
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(r.stdout).toContain('a local sharded-3x1 cluster');
    expect(r.stdout).toContain('--setup is implied');
    expect(r.stdout).toContain('"addShard":"shard2/');
    expect(r.stdout).not.toContain('shardCollection');
  });
});

describe('matrix target options: bad input exits 2 before anything starts', () => {
  it.each([
    [
      ['--preset', 'most', '--uri', 'mongodb://127.0.0.1:1', '--topology', 'replset'],
      'option --topology: does not apply with --uri',
    ],
    [
      ['--preset', 'most', '--uri', 'mongodb://127.0.0.1:1', '--bin-dir', FAKE_BIN],
      'option --bin-dir: does not apply with --uri',
    ],
    [
      ['--preset', 'most', '--replicas', '3'],
      'option --replicas: only applies to --topology replset or sharded',
    ],
    [
      ['--preset', 'most', '--topology', 'ring'],
      'option --topology: must be one of standalone, replset, sharded',
    ],
    [['--preset', 'presplit-import'], 'option --topology: presplit-import needs a sharded cluster'],
    [
      ['--preset', 'presplit-import', '--topology', 'replset', '--bin-dir', FAKE_BIN],
      'presplit-import needs a sharded cluster (its rows would all be skipped on a replset)',
    ],
  ])('%j', async (args, message) => {
    const r = await inProcess(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

const realMongod = availability('mongod');
const describeOffline = realMongod.ok ? describe.skip : describe;
describeOffline(
  `matrix with no --uri and no mongod${realMongod.ok ? ' [skipped: a real mongod is available here, so the embedded default does not fail]' : ''}`,
  () => {
    it('fails within 30 s (exit 1) naming --uri, --mongod-bin and MONGOMS_SYSTEM_BINARY, and writes nothing', async () => {
      const out = path.join(work, 'offline');
      const started = Date.now();
      const r = await inProcess('--preset', 'write-concern-latency', '--out', out);
      const seconds = (Date.now() - started) / 1000;
      process.stdout.write(
        `matrix embedded default offline: failed after ${seconds.toFixed(1)} s\n`,
      );
      expect(r.code).toBe(1);
      expect(seconds).toBeLessThan(30);
      for (const text of [
        'no mongod binary for the embedded MongoDB',
        'Nothing was run',
        '--uri URI',
        '--mongod-bin PATH',
        'MONGOMS_SYSTEM_BINARY=/path/to/mongod',
      ])
        expect(r.stderr).toContain(text);
      expect(fs.existsSync(out)).toBe(false);
    }, 40_000);
  },
);

describeNeeding('replset', 'matrix on a launched replica set of real mongods', () => {
  it('most, tiny: w:2, w:3 and secondary reads run on a 3-member replica set; everything stopped', async () => {
    const basePort = await freePortRange(3);
    const dataDir = path.join(work, 'real-rs-data');
    const out = path.join(work, 'real-rs-out');
    const r = await runCli(
      [
        '--preset',
        'most',
        '--topology',
        'replset',
        '--replicas',
        '3',
        '--mongod-bin',
        mongodBinary(),
        '--base-port',
        String(basePort),
        '--data-dir',
        dataDir,
        '--docs',
        '512',
        '--doc-size',
        '1024',
        '--writers',
        '2',
        '--readers',
        '2',
        '--out',
        out,
      ],
      {},
      undefined,
      280_000,
    );
    // The exit code with the CLI's stderr, so a failure says why.
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const doc = readMatrix(out);
    expect(doc.capabilities.topology).toMatchObject({ kind: 'replicaSet', dataMembers: 3 });
    for (const x of doc.rows.filter((row) => /REPLICA_SAFE|secondary/.test(row.label)))
      expect({ label: x.label, status: x.status }).toEqual({ label: x.label, status: 'ok' });
    expect(leftovers(dataDir)).toEqual([]);
  }, 300_000);
});
