/**
 * Capture -> run end to end on the CRUD test server: the workload captured from the real fixture
 * lines (and from a skewed log in their format) runs unchanged with `run --workload-file`, and the
 * replay's per-shape shares (results.json steps[].opCounts) match the log's within 2 points.
 * The server's numbers are a test double's; only the mix is checked.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { CaptureSummary } from '../../lib/capture';
import { loadResult } from '../../lib/report';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { syntheticLog } from './synthetic-log';

const LOGS = join(__dirname, '..', 'fixtures', 'capture', 'logs');

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

  async function captureAndReplay(sources: string[], label: string): Promise<{ summary: CaptureSummary; shares: number[]; counts: number[] }> {
    const captured = join(dir, `${label}-capture`);
    const capture = await runCli(['capture', ...sources, '--out', captured]);
    expect(capture.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(captured, 'capture.json'), 'utf8')) as CaptureSummary;
    for (const shape of summary.shapes) touched.add(shape.ns.split('.')[0]);
    const out = join(dir, `${label}-run`);
    const run = await runCli([
      'run', '--uri', crudUri(), '--db', uniqueDbName(label), '--workload-file', join(captured, 'workload.json'), '--no-load',
      '--clients', '8', '--seconds', '3', '--warmup', '0', '--seed', '7', '--out', out, '--workers', '1',
    ]);
    expect(run.stderr).not.toContain('unexpected error');
    expect(run.code).toBe(0);
    const result = await loadResult(join(out, 'results.json'));
    const step = result.steps[0];
    const counts = step.opCounts ?? [];
    const total = counts.reduce((s, n) => s + n, 0);
    // Every attempt is counted once: successes and failures (none expected here).
    expect(step.ops.errors).toBe(0);
    expect(total).toBe(step.ops.reads + step.ops.writes);
    expect(total).toBeGreaterThan(100);
    return { summary, counts, shares: counts.map((n) => (n / total) * 100) };
  }

  /**
   * 2 points, the promise; on a loaded machine the test double serves few ops in 3 s, and a draw of n
   * ops wanders by sqrt(p(1-p)/n) from p: then 4 of those (printed) instead. At the CRUD server's
   * usual few thousand ops/s, 4 sigma is below 2 points and the bound is exactly 2.
   */
  function expectShares(summary: CaptureSummary, shares: number[], counts: number[]): void {
    const n = counts.reduce((s, c) => s + c, 0);
    const bounds = summary.shapes.map((shape) => {
      const p = shape.sharePercent / 100;
      return Math.max(2, 400 * Math.sqrt((p * (1 - p)) / n));
    });
    if (bounds.some((b) => b > 2)) console.log(`only ${n} ops replayed (a loaded machine): share bounds ${bounds.map((b) => b.toFixed(1)).join(', ')} points instead of 2`);
    summary.shapes.forEach((shape, i) => expect(Math.abs(shares[shape.op] - shape.sharePercent)).toBeLessThan(bounds[i]));
  }

  it('the real lines of 4.4..8.0: every shape replayed with its share of the log (within 2 points)', async () => {
    const { summary, shares, counts } = await captureAndReplay([LOGS], 'fixtures');
    expect(counts).toHaveLength(summary.shapes.length);
    expect(counts.every((c) => c > 0)).toBe(true);
    expectShares(summary, shares, counts);
  });

  it('--replay-rate 1x issues the ops at the rate the log was served (open model), 2x at twice that', async () => {
    const file = join(dir, 'paced.log');
    writeFileSync(file, syntheticLog(600, 30).text); // 20 statements/s
    const captured = join(dir, 'paced-capture');
    expect((await runCli(['capture', file, '--out', captured])).code).toBe(0);
    const workload = JSON.parse(readFileSync(join(captured, 'workload.json'), 'utf8')) as { capture: { opsPerSecond: number } };
    expect(workload.capture.opsPerSecond).toBeCloseTo(600 / 30, 0);
    for (const shape of (JSON.parse(readFileSync(join(captured, 'capture.json'), 'utf8')) as CaptureSummary).shapes) touched.add(shape.ns.split('.')[0]);
    for (const multiple of [1, 2]) {
      const out = join(dir, `paced-run-${multiple}x`);
      const run = await runCli([
        'run', '--uri', crudUri(), '--db', uniqueDbName('paced'), '--workload-file', join(captured, 'workload.json'), '--no-load',
        '--replay-rate', `${multiple}x`, '--clients', '4', '--seconds', '3', '--warmup', '0', '--out', out, '--workers', '1',
      ]);
      expect(run.code).toBe(0);
      const result = await loadResult(join(out, 'results.json'));
      expect(result.config.rate).toBeCloseTo(workload.capture.opsPerSecond * multiple, 5);
      // Every op scheduled in the 3 s window is issued (at 20 or 40 ops/s the test double keeps up).
      const issued = (result.steps[0].opCounts ?? []).reduce((a, b) => a + b, 0);
      expect(Math.abs(issued - workload.capture.opsPerSecond * multiple * 3)).toBeLessThanOrEqual(4);
    }
  });

  /**
   * The 2-point promise under load, with enough ops that it is safe. Each op's executed count over n
   * weighted draws is Binomial(n, p); its share wanders by sigma = sqrt(p(1-p)/n), at most
   * sqrt(0.24/n) for the 60/30/10 mix (p = 0.6). 2 points are 5 sigma when n >= 0.24 * (5 / 0.02)^2
   * = 15,000; a 5-sigma miss has probability 5.7e-7 per op, under 2e-6 for the three together.
   * The machine's load sets how long that takes (the test double served ~110 ops/s with 8 clients on
   * this 2-core machine shared by 7 sessions, thousands unloaded), so the runs continue, each with its
   * own seed (independent draws), until their executed ops add up to 15,000: never a fixed time.
   */
  const SAFE_OPS = 15_000;
  it('under load, several clients: each op\'s executed share is within 2 points of its weight (>= 15,000 ops)', async () => {
    const file = join(dir, 'skewed.log');
    writeFileSync(file, syntheticLog(3000, 30).text);
    const captured = join(dir, 'skewed-capture');
    expect((await runCli(['capture', file, '--out', captured])).code).toBe(0);
    const summary = JSON.parse(readFileSync(join(captured, 'capture.json'), 'utf8')) as CaptureSummary;
    for (const shape of summary.shapes) touched.add(shape.ns.split('.')[0]);
    expect(summary.shapes.map((s) => s.sharePercent)).toEqual([60, 30, 10]);
    const workload = JSON.parse(readFileSync(join(captured, 'workload.json'), 'utf8')) as { ops: { weight: number }[] };
    const totalWeight = workload.ops.reduce((sum, op) => sum + op.weight, 0);
    const weights = workload.ops.map((op) => (op.weight / totalWeight) * 100);

    const counts = new Array<number>(workload.ops.length).fill(0);
    let executed = 0;
    let measured = 0;
    let seconds = 3;
    for (let run = 0; run < 6 && executed < SAFE_OPS; run++) {
      const out = join(dir, `shares-run-${run}`);
      const result = await runCli([
        'run', '--uri', crudUri(), '--db', uniqueDbName('shares'), '--workload-file', join(captured, 'workload.json'), '--no-load',
        '--clients', '8', '--seconds', String(seconds), '--warmup', '0', '--seed', String(100 + run), '--out', out, '--workers', '1',
      ]);
      expect(result.code).toBe(0);
      const step = (await loadResult(join(out, 'results.json'))).steps[0];
      expect(step.ops.errors).toBe(0);
      (step.opCounts ?? []).forEach((n, op) => (counts[op] += n));
      executed = counts.reduce((a, b) => a + b, 0);
      measured += seconds;
      // What is left, at the rate seen so far (+25%), in one more run of at most 2 minutes.
      seconds = Math.min(120, Math.max(3, Math.ceil(((SAFE_OPS - executed) * 1.25 * measured) / Math.max(1, executed))));
    }
    console.log(`share check: ${executed} ops executed in ${measured} s measured (8 clients); shares ${counts.map((n) => ((n / executed) * 100).toFixed(2)).join('/')} vs weights ${weights.join('/')}`);
    expect(executed).toBeGreaterThanOrEqual(SAFE_OPS);
    counts.forEach((n, op) => expect(Math.abs((n / executed) * 100 - weights[op])).toBeLessThan(2));
  }, 600_000);
});
