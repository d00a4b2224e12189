import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { crudKind, crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { RunOptions } from '../../lib/run/options/run-options';
import { presetOps } from '../../lib/workload/language/presets';
import { runBenchmark } from '../../lib/run/benchmark';
import { BenchmarkEvent } from '../../lib/run/events';
import { main } from '../../lib/cli/main';
import { ResultDocument, StepResult } from '../../lib/result';
import { captureContext } from '../support/cli';

function options(overrides: Partial<RunOptions> & { ns: string }): RunOptions {
  const docs = overrides.docs ?? 300;
  return {
    uri: crudUri(),
    workload: { name: '6to1', ops: presetOps('6to1', { ns: overrides.ns, docs, docSize: 256 }) },
    clients: [2],
    seconds: 1,
    warmupSeconds: 0,
    trials: 1,
    load: true,
    docs,
    docSize: 256,
    batchSize: 100,
    label: 'test',
    randomSeed: 7,
    serverSelectionTimeoutMS: 5000,
    ...overrides,
  };
}

/** The window's seconds plus the overrun (ops in flight at the close): every counted op once. */
function sumSeries(step: StepResult, key: 'reads' | 'writes' | 'errors'): number {
  return step.perSecond.reduce((s, p) => s + p[key], 0) + (step.overrun?.[key] ?? 0);
}

describeNeeding('crud', 'workload engine against the CRUD test server', () => {
  let client: MongoClient;
  let outDir: string;

  beforeAll(async () => {
    client = await new MongoClient(crudUri(), { serverSelectionTimeoutMS: 5000 }).connect();
    outDir = mkdtempSync(join(tmpdir(), 'mb-engine-'));
  });

  afterAll(async () => {
    await client?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('6:1 run: the $inc-ed counters on the server add up to the updates reported, reads:writes is 6:1 within one pass per client', async () => {
    const db = uniqueDbName('six_to_one');
    const ns = `${db}.docs`;
    const events: BenchmarkEvent['type'][] = [];
    const seen: ResultDocument[] = [];
    // 2 s windows: the first progress tick comes at 1 s, which a 1 s window (no warm-up) races with its own close.
    const result = await runBenchmark(
      options({ ns, clients: [1, 4], trials: 2, seconds: 2, outDir: join(outDir, 'six') }),
      {
        onEvent: (e) => events.push(e.type),
        onStepComplete: (r) => {
          seen.push(JSON.parse(JSON.stringify(r)));
        },
      },
    );
    try {
      expect(result.complete).toBe(true);
      expect(result.steps.map((s) => s.clients)).toEqual([1, 4]);
      if (crudKind() === 'mongo-java-server') expect(result.target.testDouble).toBe(true);

      const [{ total }] = await client
        .db(db)
        .collection('docs')
        .aggregate<{ total: number }>([{ $group: { _id: null, total: { $sum: '$counter' } } }])
        .toArray();
      const updates = result.steps.reduce((s, step) => s + step.ops.writes, 0);
      expect(updates).toBeGreaterThan(50);
      expect(total).toBe(updates);
      expect(await client.db(db).collection('docs').countDocuments()).toBe(300);

      for (const step of result.steps) {
        expect(step.status).toBe('ok');
        expect(step.trials).toBe(2);
        expect(step.ops.errors).toBe(0);
        // 6:1 within one pass per client and trial: no op starts after the window closes (bench.cpp's
        // shouldStop() before every op), so each client may stop up to six reads short of its write.
        expect(step.ops.reads - 6 * step.ops.writes).toBeGreaterThanOrEqual(0);
        expect(step.ops.reads - 6 * step.ops.writes).toBeLessThanOrEqual(
          6 * step.clients * step.trials,
        );
        expect(sumSeries(step, 'reads')).toBe(step.ops.reads);
        expect(sumSeries(step, 'writes')).toBe(step.ops.writes);
        expect(step.latencyByOpMicros?.findOne.count).toBe(step.ops.reads);
        expect(step.latencyByOpMicros?.update.count).toBe(step.ops.writes);
        expect(step.benchRun.totalOps).toBe(step.ops.reads + step.ops.writes);
        expect(step.trialStats?.opsPerSec.values).toHaveLength(2);
        expect(step.peakOpsPerSec.total).toBeGreaterThanOrEqual(step.opsPerSec.total * 0.5);
        expect(step.latencyMicros.reads.p50).toBeGreaterThan(0);
      }
      // results.json was rewritten after every step; the hook saw the result grow.
      expect(seen.map((r) => r.steps.length)).toEqual([1, 2]);
      const written = JSON.parse(
        readFileSync(join(outDir, 'six', 'results.json'), 'utf8'),
      ) as ResultDocument;
      expect(written).toEqual(JSON.parse(JSON.stringify(result)));
      expect(events).toEqual(
        expect.arrayContaining([
          'connected',
          'load-start',
          'load-done',
          'step-start',
          'tick',
          'step-done',
          'results-written',
        ]),
      );
    } finally {
      await client.db(db).dropDatabase();
    }
  });

  it('counts a failing op (duplicate-key insert) as an error without stopping the run', async () => {
    const db = uniqueDbName('dup_key');
    const ns = `${db}.docs`;
    const ops = [
      { op: 'findOne', query: { _id: { '#RAND_INT': [0, 100] } } },
      { op: 'insert', doc: { _id: { '#RAND_INT': [0, 100] }, dup: true } },
    ];
    // 41 server ops (an op count), not a second's worth: a loaded machine failed 5 inserts in one, for
    // more than 10 wanted.
    const result = await runBenchmark(
      options({ ns, docs: 100, workload: { name: 'dup', ops }, clients: [2], ops: 41 }),
    );
    try {
      expect(result.complete).toBe(true);
      const [step] = result.steps;
      expect(step.status).toBe('ok');
      expect(step.ops.writes).toBe(0);
      expect(step.ops.errors).toBeGreaterThan(10);
      // Each client alternates findOne / insert: reads and failed inserts differ by at most one per client.
      expect(Math.abs(step.ops.reads - step.ops.errors)).toBeLessThanOrEqual(2);
      expect(sumSeries(step, 'errors')).toBe(step.ops.errors);
      expect(step.errorSamples?.[0].error).toMatch(/11000|DuplicateKey/);
      expect(step.errorSamples?.[0].count).toBe(step.ops.errors);
      // benchRun's own figures: it never reads a write command's reply, so a duplicate key is an op, not an error.
      expect(step.benchRun.errCount).toBe(0);
      expect(step.benchRun.inserts).toBe(step.ops.errors);
      expect(step.benchRun.totalOps).toBe(step.ops.reads + step.ops.errors);
      expect(await client.db(db).collection('docs').countDocuments({ dup: true })).toBe(0);
    } finally {
      await client.db(db).dropDatabase();
    }
  });

  it('insert-only inserts a fresh document per op; a later run with load: false keeps the data', async () => {
    const db = uniqueDbName('insert_only');
    const ns = `${db}.docs`;
    const docs = 50;
    const coll = client.db(db).collection('docs');
    try {
      const inserts = await runBenchmark(
        options({
          ns,
          docs,
          workload: {
            name: 'insert-only',
            ops: presetOps('insert-only', { ns, docs, docSize: 256 }),
          },
        }),
      );
      const [step] = inserts.steps;
      expect(step.ops.errors).toBe(0);
      expect(step.ops.writes).toBeGreaterThan(20);
      expect(await coll.countDocuments()).toBe(docs + step.ops.writes);

      const sixToOne = await runBenchmark(
        options({
          ns,
          docs,
          load: false,
          workload: { name: '6to1', ops: presetOps('6to1', { ns, docs, docSize: 256 }) },
        }),
      );
      expect(await coll.countDocuments()).toBe(docs + step.ops.writes);
      const [{ total }] = await coll
        .aggregate<{ total: number }>([{ $group: { _id: null, total: { $sum: '$counter' } } }])
        .toArray();
      expect(total).toBe(sixToOne.steps[0].ops.writes);
    } finally {
      await client.db(db).dropDatabase();
    }
  });

  it('--rate schedules ops at the target rate and measures latency from the intended start', async () => {
    const db = uniqueDbName('rate');
    const result = await runBenchmark(
      options({ ns: `${db}.docs`, clients: [4], seconds: 2, rate: 200 }),
    );
    try {
      const [step] = result.steps;
      const arrival = step.arrival!;
      // The schedule holds the target exactly: 2 s at 200 ops/s, every due op run or counted dropped.
      expect(Math.abs(arrival.scheduled - 400)).toBeLessThanOrEqual(1);
      expect(step.ops.reads + step.ops.writes + step.ops.errors + arrival.dropped).toBe(
        arrival.scheduled,
      );
      // What ran never outpaces the target.
      expect(step.opsPerSec.total).toBeLessThan(215);
      // It holds the rate where this machine kept up, as the result says: no op dropped or started late
      // (a loaded machine's test double answered 165.6 ops/s, for 170 wanted, and the step said so).
      if (arrival.dropped === 0 && arrival.late === 0)
        expect(step.opsPerSec.total).toBeGreaterThan(170);
      expect(result.config.rate).toBe(200);
    } finally {
      await client.db(db).dropDatabase();
    }
  });

  it('an aborted run stops its clients and writes results with complete: false', async () => {
    const db = uniqueDbName('abort');
    const controller = new AbortController();
    const dir = join(outDir, 'abort');
    let abortedAt = 0;
    const result = await runBenchmark(
      options({ ns: `${db}.docs`, clients: [2, 4], seconds: 5, outDir: dir }),
      {
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === 'step-start')
            setTimeout(() => {
              abortedAt = performance.now();
              controller.abort('SIGINT');
            }, 800);
        },
      },
    );
    try {
      // Timed from the abort, not from the run's start (the load before it and a timer fired late on a
      // loaded machine are no part of stopping): a run that went on would take the 4.2 s left of the
      // step's window, and the next step's 5 s.
      expect(abortedAt).toBeGreaterThan(0);
      expect(performance.now() - abortedAt).toBeLessThan(3000);
      expect(result.complete).toBe(false);
      expect(result.incompleteReason).toBe('interrupted (SIGINT)');
      expect(result.steps).toHaveLength(1);
      expect(result.steps[0].status).toBe('interrupted');
      expect(result.steps[0].ops.reads).toBeGreaterThan(0);
      expect(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')).complete).toBe(false);
    } finally {
      await client.db(db).dropDatabase();
    }
  });

  it('mongo-bench run --uri ... --json prints the result document and writes results.json', async () => {
    const db = uniqueDbName('cli');
    const dir = join(outDir, 'cli');
    const ctx = captureContext();
    const argv = [
      'node',
      'mongo-bench',
      'run',
      '--uri',
      crudUri(),
      '--clients',
      '1,2',
      '--seconds',
      '1',
      '--warmup',
      '0',
      '--docs',
      '200',
      '--doc-size',
      '300',
      '--ns',
      `${db}.docs`,
      '--out',
      dir,
      '--json',
      '--label',
      'cli test',
    ];
    try {
      const code = await main(argv, ctx);
      expect({ code, stderr: ctx.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      const printed = JSON.parse(ctx.stdout) as ResultDocument;
      expect(printed.schema).toBe('mongo-bench/result@1');
      expect(printed.label).toBe('cli test');
      expect(printed.target.uri).toBe(crudUri());
      expect(printed.steps.map((s) => s.clients)).toEqual([1, 2]);
      expect(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'))).toEqual(printed);
      // Tables went to stderr so stdout stays one JSON document.
      expect(ctx.stderr).toMatch(/^clients 2: 1 s x 1 trial$/m);
      expect(ctx.stderr).toMatch(/^reads\s+[\d,]+\s+[\d,.]+/m);
    } finally {
      await client.db(db).dropDatabase();
    }
  });
});
