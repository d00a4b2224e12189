/**
 * Capture -> run end to end on the CRUD test server: the workload captured from the real fixture
 * lines (and from a skewed log in their format) runs unchanged with `run --workload-file`, and the
 * replay's per-shape shares (results.json steps[].opCounts) match the log's within 2 points.
 * The server's numbers are a test double's; only the mix is checked.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { CaptureSummary } from '../../lib/capture';
import { loadResult } from '../../lib/report';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { syntheticLog } from './synthetic-log';
import { failedFind, find, sequenceUpdate, truncatedInsert } from './second-reading-log';

const LOGS = join(__dirname, '..', 'fixtures', 'capture', 'logs');
const QUERY_STATS = join(__dirname, '..', 'fixtures', 'capture', 'query-stats');

describeNeeding('crud', 'capture, then run the captured workload on the CRUD test server', () => {
  let dir: string;
  const touched = new Set<string>();
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-capture-run-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    // The captured ops write to the namespaces of the logs: drop them again.
    const client = new MongoClient(crudUri());
    await client.connect();
    try {
      for (const db of touched) await client.db(db).dropDatabase();
    } finally {
      await client.close();
    }
  });

  /** Captures the sources; returns the summary and the workload file's path. */
  async function capture(
    sources: string[],
    label: string,
    flags: string[] = [],
  ): Promise<{ summary: CaptureSummary; workloadFile: string; weights: number[] }> {
    const captured = join(dir, `${label}-capture`);
    const run = await runCli(['capture', ...flags, ...sources, '--out', captured]);
    expect(run.code).toBe(0);
    const summary = JSON.parse(
      readFileSync(join(captured, 'capture.json'), 'utf8'),
    ) as CaptureSummary;
    for (const shape of summary.shapes) touched.add(shape.ns.split('.')[0]);
    const workloadFile = join(captured, 'workload.json');
    const ops = (JSON.parse(readFileSync(workloadFile, 'utf8')) as { ops: { weight: number }[] })
      .ops;
    const totalWeight = ops.reduce((sum, op) => sum + op.weight, 0);
    return { summary, workloadFile, weights: ops.map((op) => (op.weight / totalWeight) * 100) };
  }

  /**
   * The 2-point promise with enough ops that it is safe. Op i's executed count over n weighted draws is
   * Binomial(n, p_i); its share wanders by sigma_i = sqrt(p_i(1 - p_i)/n). 2 points are 5 sigma for
   * every op when n >= (5 / 0.02)^2 * max p(1 - p) = 62,500 * max p(1 - p): 15,000 ops for a 60/30/10
   * mix, 6,173 for nine ops of 1/9. A 5-sigma miss has probability 5.7e-7 per op (under 1e-5 for
   * nine). The machine's load sets how long that takes (the test double served ~110 ops/s with 8
   * clients on this 2-core machine shared by 7 sessions, thousands unloaded), so the replay is one
   * run of exactly that many ops (`--ops`, claimed from one counter by the 8 clients): never a fixed
   * time, and no seconds of ops the check does not need.
   */
  async function replayUntilSafe(
    workloadFile: string,
    weights: number[],
    label: string,
    enoughOps?: number,
  ): Promise<{ counts: number[]; executed: number; stderr: string }> {
    const safeOps =
      enoughOps ?? Math.ceil(62_500 * Math.max(...weights.map((w) => (w / 100) * (1 - w / 100))));
    const out = join(dir, `${label}-run`);
    const started = Date.now();
    const result = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--db',
      uniqueDbName(label),
      '--workload-file',
      workloadFile,
      '--no-load',
      '--clients',
      '8',
      '--ops',
      String(safeOps),
      '--warmup',
      '0',
      '--seed',
      '100',
      '--out',
      out,
      '--workers',
      '1',
    ]);
    expect(result.stderr).not.toContain('unexpected error');
    expect(result.code).toBe(0);
    const replayed = await loadResult(join(out, 'results.json'));
    // the replay names the workload file it ran by its bytes' hash
    expect(replayed.config.workloadFileSha256).toBe(
      createHash('sha256').update(readFileSync(workloadFile)).digest('hex'),
    );
    const step = replayed.steps[0];
    const counts = step.opCounts ?? [];
    // Every attempt is counted once: successes and failures (none expected here).
    expect(step.ops.errors).toBe(0);
    const executed = counts.reduce((a, b) => a + b, 0);
    expect(executed).toBe(step.ops.reads + step.ops.writes);
    const shares = counts.map((n) => ((n / executed) * 100).toFixed(2));
    console.log(
      `${label}: ${executed} ops executed in ${((Date.now() - started) / 1000).toFixed(1)} s (8 clients, >= ${safeOps} needed); shares ${shares.join('/')} vs weights ${weights.map((w) => w.toFixed(2)).join('/')}`,
    );
    expect(executed).toBeGreaterThanOrEqual(safeOps);
    return { counts, executed, stderr: result.stderr };
  }

  function expectWithin2Points(counts: number[], executed: number, weights: number[]): void {
    counts.forEach((n, op) => expect(Math.abs((n / executed) * 100 - weights[op])).toBeLessThan(2));
  }

  it('the real lines of 4.4..8.0: every shape replayed with its share of the log (within 2 points)', async () => {
    const { summary, workloadFile, weights } = await capture([LOGS], 'fixtures');
    // each shape once in the log: equal weights, equal shares
    summary.shapes.forEach((shape) => expect(weights[shape.op]).toBeCloseTo(shape.sharePercent, 1));
    const { counts, executed } = await replayUntilSafe(workloadFile, weights, 'fixtures');
    expect(counts).toHaveLength(summary.shapes.length);
    expect(counts.every((c) => c > 0)).toBe(true);
    expectWithin2Points(counts, executed, weights);
  }, 600_000);

  it('--replay-rate 1x issues the ops at the rate the log was served (open model), 2x at twice that', async () => {
    const file = join(dir, 'paced.log');
    writeFileSync(file, syntheticLog(600, 30).text); // 20 statements/s
    const captured = join(dir, 'paced-capture');
    expect((await runCli(['capture', file, '--out', captured])).code).toBe(0);
    const workload = JSON.parse(readFileSync(join(captured, 'workload.json'), 'utf8')) as {
      capture: { opsPerSecond: number; perSecond: number[] };
    };
    expect(workload.capture.opsPerSecond).toBeCloseTo(600 / 30, 0);
    for (const shape of (
      JSON.parse(readFileSync(join(captured, 'capture.json'), 'utf8')) as CaptureSummary
    ).shapes)
      touched.add(shape.ns.split('.')[0]);
    for (const multiple of [1, 2]) {
      const out = join(dir, `paced-run-${multiple}x`);
      const run = await runCli([
        'run',
        '--uri',
        crudUri(),
        '--db',
        uniqueDbName('paced'),
        '--workload-file',
        join(captured, 'workload.json'),
        '--no-load',
        '--replay-rate',
        `${multiple}x`,
        '--clients',
        '4',
        '--seconds',
        '3',
        '--warmup',
        '0',
        '--out',
        out,
        '--workers',
        '1',
      ]);
      expect(run.code).toBe(0);
      const result = await loadResult(join(out, 'results.json'));
      // The captured per-second curve, scaled, is the arrival schedule (stages), not a constant rate.
      expect(result.config.rate ?? null).toBeNull();
      expect(result.config.rateSpec).toMatchObject({ kind: 'stages' });
      // The schedule is the curve's first three seconds, times the multiple; every op due in the 3 s window
      // ran or, where the machine could not start it within the drop grace, is counted dropped (at 20 or
      // 40 ops/s the test double keeps up on a quiet machine; at load ~20 on 2 cores it did not).
      const scheduled =
        workload.capture.perSecond.slice(0, 3).reduce((a, b) => a + b, 0) * multiple;
      expect(scheduled).toBeGreaterThan(0);
      const arrival = result.steps[0].arrival!;
      expect(Math.abs(arrival.scheduled - scheduled)).toBeLessThanOrEqual(4);
      const issued = (result.steps[0].opCounts ?? []).reduce((a, b) => a + b, 0);
      expect(issued + arrival.dropped).toBe(arrival.scheduled);
    }
  });

  it("a skewed log (60/30/10), under load, several clients: each op's executed share is within 2 points of its weight", async () => {
    const file = join(dir, 'skewed.log');
    writeFileSync(file, syntheticLog(3000, 30).text);
    const { summary, workloadFile, weights } = await capture([file], 'skewed');
    expect(summary.shapes.map((s) => s.sharePercent)).toEqual([60, 30, 10]);
    [60, 30, 10].forEach((w, op) => expect(weights[op]).toBeCloseTo(w, 6));
    const { counts, executed } = await replayUntilSafe(workloadFile, weights, 'skewed');
    expect(executed).toBeGreaterThanOrEqual(15_000);
    expectWithin2Points(counts, executed, weights);
  }, 600_000);

  it('what applications log: 60 finds, 30 truncated inserts, 10 sequence updates and 5 failed finds replay 60/30/10 (within 3 points)', async () => {
    const t0 = Date.parse('2025-09-25T23:00:00.000Z');
    const sizes = ['small', 'medium', 'large'];
    const lines: string[] = [];
    for (let i = 0; i < 105; i++) {
      const at = t0 + i * 100;
      const conn = `conn${300 + (i % 4)}`;
      const r = i % 21;
      // per 21 entries: 12 finds, 6 truncated inserts, 2 sequence updates, 1 failed find
      const entry =
        r < 12
          ? find(at, conn, sizes[i % 3])
          : r < 18
            ? truncatedInsert(at, conn)
            : r < 20
              ? sequenceUpdate(at, conn)
              : failedFind(at, conn);
      lines.push(JSON.stringify(entry));
    }
    const file = join(dir, 'applications.log');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const { summary, workloadFile, weights } = await capture([file], 'applications');
    expect(
      summary.shapes.map((s) => `${s.type} ${s.count}${s.synthetic ? ' synthetic' : ''}`),
    ).toEqual(['find 60', 'insert 30', 'update 10 synthetic']);
    expect(summary.skipped).toEqual([
      expect.objectContaining({ reason: 'failed on the server', count: 5 }),
    ]);
    const md = readFileSync(join(dirname(workloadFile), 'capture.md'), 'utf8');
    expect(md).toMatch(
      /\| failed on the server \| 5 \| .*applications\.log:21: find on test\.pizzas: MaxTimeMSExpired \(50\)/,
    );
    // 2,000 ops: 3 points are over 4 standard deviations of the draw for every op (60%: sd 1.1 points)
    const { counts, executed, stderr } = await replayUntilSafe(
      workloadFile,
      weights,
      'applications',
      2000,
    );
    // --no-load on a target whose read/update namespaces are empty: said, naming them (inserts may start empty)
    expect(stderr).toMatch(
      /warning: --no-load: the workload's namespaces (test\.pizzas, testdb\.__examples|testdb\.__examples, test\.pizzas) hold no documents/,
    );
    expect(stderr).toContain('--docs-like');
    counts.forEach((n, op) => expect(Math.abs((n / executed) * 100 - weights[op])).toBeLessThan(3));
  }, 600_000);

  it('$queryStats, two snapshots: the find/aggregate/distinct/update shapes replay with the shares of their execCount difference (within 3 points)', async () => {
    const { summary, workloadFile, weights } = await capture(
      [join(QUERY_STATS, 'window-before.json'), join(QUERY_STATS, 'window-after.json')],
      'query-stats',
      ['--query-stats'],
    );
    expect(summary.shapes.map((s) => `${s.type} ${s.count}`)).toEqual([
      'find 600',
      'aggregate 300',
      'distinct 100',
      'update 70',
    ]);
    [600, 300, 100, 70].forEach((n, op) => expect(weights[op]).toBeCloseTo((n / 1070) * 100, 6));
    // 2,000 ops: 3 points are over 4 standard deviations of the draw for every op (60%: sd 1.1 points)
    const { counts, executed } = await replayUntilSafe(workloadFile, weights, 'query-stats', 2000);
    counts.forEach((n, op) => expect(Math.abs((n / executed) * 100 - weights[op])).toBeLessThan(3));
  }, 600_000);
});
