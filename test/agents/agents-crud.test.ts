/**
 * Issue 17's promise, on this machine: three `mongo-bench agent` processes and the coordinator
 * against the CRUD test server (target and control database at once) make one result whose counts
 * equal what the server holds and whose histograms equal the merge of what the agents wrote back.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { decodeMeasurement, EncodedMeasurement } from '../../lib/metrics/measurement-codec';
import { mergeConcurrentMeasurements } from '../../lib/metrics/merge-measurements';
import { ResultDocument } from '../../lib/result';
import { summarizeStep } from '../../lib/workload/engine/op-figures';
import { MeasurementDoc } from '../../lib/agents/control';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { killStartedClis, startAgent } from '../support/cli-child';

describeNeeding('crud', 'run --agents 3 against the CRUD test server', () => {
  const controlDb = uniqueDbName('agents_control');
  const targetDb = uniqueDbName('agents_target');
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-agents-'));
  let client: MongoClient;

  beforeAll(async () => {
    client = new MongoClient(crudUri());
    await client.connect();
  });
  afterAll(async () => {
    expect(killStartedClis()).toBe(0);
    await client
      .db(controlDb)
      .dropDatabase()
      .catch(() => undefined);
    await client
      .db(targetDb)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
    fs.rmSync(out, { recursive: true, force: true });
  });

  test('one exact result from three agents, counts equal to the server state, clock offsets recorded', async () => {
    // a3 runs its share on two worker threads: its clients start at the common instant all the same.
    const agents = ['a1', 'a2', 'a3'].map((name) =>
      startAgent(crudUri(), controlDb, name, [
        '--once',
        ...(name === 'a3' ? ['--workers', '2'] : []),
      ]),
    );
    await Promise.all(agents.map((a) => a.waitFor(/waiting for a run/)));

    const run = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--agents',
      '3',
      '--control-db',
      controlDb,
      '--agent-wait',
      '30',
      '--workload',
      'insert-only',
      '--ns',
      `${targetDb}.docs`,
      '--no-load',
      '--doc-size',
      '64',
      '--clients',
      '2,5',
      '--seconds',
      '1',
      '--warmup',
      '0',
      '--no-server-stats',
      '--out',
      out,
      '--quiet',
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 0,
      stderr: expect.any(String) as string,
    });
    const codes = await Promise.all(agents.map((a) => a.exited));
    expect(codes).toEqual([0, 0, 0]);

    const result = JSON.parse(
      fs.readFileSync(path.join(out, 'results.json'), 'utf8'),
    ) as ResultDocument;
    expect(result.complete).toBe(true);
    expect(result.agents!.agents.map((a) => a.name)).toEqual(['a1', 'a2', 'a3']);
    for (const a of result.agents!.agents) {
      expect(Number.isFinite(a.clockOffsetMs)).toBe(true);
      expect(a.clockRttMs).toBeGreaterThanOrEqual(0);
    }

    // Counts: every insert the result counts is a document on the server, and no more.
    const writes = result.steps.reduce((s, step) => s + step.ops.writes, 0);
    expect(writes).toBeGreaterThan(0);
    expect(await client.db(targetDb).collection('docs').countDocuments()).toBe(writes);

    // Histograms: each step equals the merge of what its agents wrote to the control database.
    const docs = await client
      .db(controlDb)
      .collection<MeasurementDoc>('measurements')
      .find({ runId: result.agents!.runId })
      .toArray();
    result.steps.forEach((step, i) => {
      const shares = step.agents!;
      expect(shares.map((s) => s.count).reduce((x, y) => x + y, 0)).toBe(step.clients);
      const parts = docs
        .filter((d) => d.seq === i + 1)
        .map((d) => decodeMeasurement(JSON.parse(d.measurement!) as EncodedMeasurement));
      expect(parts).toHaveLength(shares.filter((s) => s.count > 0).length);
      const expected = summarizeStep([mergeConcurrentMeasurements(parts)]);
      expect(step.latencyMicros).toEqual(expected.latencyMicros);
      expect(step.perSecond).toEqual(expected.perSecond);
      expect(step.ops).toEqual(expected.ops);
      // Ops in flight at the close: counted apart, merged exactly (counts add, the longest overrun).
      expect(step.overrun).toEqual(expected.overrun);
      expect(shares.reduce((s, a) => s + a.ops.writes, 0)).toBe(step.ops.writes);
    });
    // Each agent's progress holds its share's latency buckets so far (what --metrics-port sums with
    // agents): every measured write, its last tick's included.
    for (const d of docs) {
      if (!d.measurement) continue;
      const m = decodeMeasurement(JSON.parse(d.measurement) as EncodedMeasurement);
      const counted = (d.progress?.latency?.series ?? [])
        .filter((s) => s.phase === 'measure' && s.kind === 'writes')
        .flatMap((s) => s.counts)
        .reduce((a, b) => a + b, 0);
      expect({ agent: d.agent, seq: d.seq, counted }).toEqual({
        agent: d.agent,
        seq: d.seq,
        counted: m.writes,
      });
    }
    expect(result.steps[1].agents!.map((s) => [s.first, s.count])).toEqual([
      [0, 1],
      [1, 2],
      [3, 2],
    ]);
    expect(result.steps[1].agents!.map((s) => s.client?.workers)).toEqual([1, 1, 2]);
    expect(result.steps[1].agents![2].client!.eventLoopUtilization).toHaveLength(2);
  }, 60_000);

  test('--ops N with --driver wire: exactly N ops per step over the agents and their worker threads (each owning its sockets), each one on the server', async () => {
    const controlDbOps = `${controlDb}_ops`;
    const agents = ['o1', 'o2'].map((name) =>
      startAgent(crudUri(), controlDbOps, name, [
        '--once',
        ...(name === 'o2' ? ['--workers', '2'] : []),
      ]),
    );
    try {
      await Promise.all(agents.map((a) => a.waitFor(/waiting for a run/)));
      const opsOut = path.join(out, 'ops');
      const run = await runCli([
        'run',
        '--uri',
        crudUri(),
        '--agents',
        '2',
        '--control-db',
        controlDbOps,
        '--agent-wait',
        '30',
        '--workload',
        'insert-only',
        '--ns',
        `${targetDb}.by_count`,
        '--no-load',
        '--doc-size',
        '64',
        '--clients',
        '3',
        '--ops',
        '41',
        '--driver',
        'wire',
        '--warmup',
        '0',
        '--no-server-stats',
        '--out',
        opsOut,
        '--quiet',
      ]);
      expect({ code: run.code, stderr: run.stderr }).toEqual({
        code: 0,
        stderr: expect.any(String) as string,
      });
      expect(await Promise.all(agents.map((a) => a.exited))).toEqual([0, 0]);
      const result = JSON.parse(
        fs.readFileSync(path.join(opsOut, 'results.json'), 'utf8'),
      ) as ResultDocument;
      expect(result.complete).toBe(true);
      expect(result.config.driver).toBe('wire');
      const [step] = result.steps;
      // 41 over 3 clients on two agents (one on two threads): the shares' counts add to exactly 41.
      expect(step.ops).toEqual({ reads: 0, writes: 41, errors: 0 });
      expect(step.agents!.reduce((s, a) => s + a.ops.writes, 0)).toBe(41);
      expect(await client.db(targetDb).collection('by_count').countDocuments()).toBe(41);
    } finally {
      await client
        .db(controlDbOps)
        .dropDatabase()
        .catch(() => undefined);
    }
  }, 60_000);
});
