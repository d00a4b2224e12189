/** `mongo-bench capture` from mongod logs: the real fixture lines of 4.4..8.0, skew, files, .gz, bad input, atomic output. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { captureFromLogs } from '../../lib/capture';
import type { CaptureSummary } from '../../lib/capture';
import { parseLogLine } from '../../lib/capture/log-line';
import { prepareWorkload } from '../../lib/workload/engine/compile-ops';
import { parseOps } from '../../lib/workload/language/op-spec';
import { parseWorkloadText } from '../../lib/workload/language/workload-file';
import { weightedOpPicker } from '../../lib/workload/language/weighted-pick';
import { UsageError } from '../../lib/config/errors';
import { runCli, usageMessage } from '../support/cli';
import { resolveBenchmarkOptions } from '../../lib/run/options/run-options';
import { syntheticLog } from './synthetic-log';

const LOGS = join(__dirname, '..', 'fixtures', 'capture', 'logs');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

async function usageError(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}

/** The workload file as `run --workload-file` reads it: parsed, validated, every template compiled. */
function runnable(workloadJson: string): ReturnType<typeof parseOps> {
  const file = parseWorkloadText(workloadJson, 'workload.json');
  const specs = parseOps(file.ops, { defaultNs: 'mongo_bench.docs' });
  prepareWorkload(specs);
  return specs;
}

describe('capture from the real log lines of 4.4, 5.0, 6.0, 7.0, 8.0 (test/fixtures/capture)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-capture-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('groups the workload into shapes, skips and counts the rest with file:line, and writes a runnable workload', async () => {
    const out = join(dir, 'fixtures');
    const { code, stdout, stderr } = await runCli(['capture', LOGS, '--out', out]);
    expect(stderr).not.toContain('error');
    expect(code).toBe(0);
    expect(stdout).toContain('19 statements in 19 shapes');
    const summary = JSON.parse(readFileSync(join(out, 'capture.json'), 'utf8')) as CaptureSummary;
    expect(summary.shapes.map((s) => `${s.type} ${s.ns}`).sort()).toEqual(
      [
        'aggregate test.pizzas',
        'find test.pizzas',
        'remove Restaurant.pizzas',
        'update Restaurant.pizzas',
        'findAndModify Restaurant.pizzas',
        'findAndModify stringr.devices',
        'update testcase.samplecollection',
        'remove _KEYHOLE_88800.examples',
        'find db.coll',
        // 6.0.0 (6.0.log) and 6.0.11 (6.0.11.log)
        'insert my_db.school',
        'find my_db.school',
        'find testdb.vehicles',
        // 2025-before-8.0.log line 5: a getMore whose find is not in the log, as its originatingCommand
        'find Restaurant.pizzas',
        'findOne testdb.__examples',
        'update testdb.__examples',
        'remove testdb.__examples',
        'distinct testdb.vehicles',
        // 7.0.25 (7.0.25.log)
        'aggregate counpaign.customers',
        'findOne counpaign.admins',
      ].sort(),
    );
    const skipped = Object.fromEntries(summary.skipped.map((s) => [s.reason, s.count]));
    expect(skipped).toEqual({
      'internal namespace (admin, config, local)': 5,
      'write command already counted by its statements': 3,
      'does not parse': 1,
      'cut (the line ends before its JSON does: truncated when logged or pasted)': 1,
      'not a workload command': 2,
      'truncated by the server (maxLogSizeKB)': 1,
    });
    const examples = summary.skipped.flatMap((s) => s.examples).join('\n');
    expect(examples).toContain(
      'truncated-and-broken.log:3: 300 characters; Unterminated string in JSON at position 300',
    );
    expect(examples).toContain('truncated-and-broken.log:4: Unexpected token');
    expect(examples).toContain('2025-before-8.0.log:4: createIndexes');
    expect(examples).toContain('7.0.log:1: config.system.sessions');
    expect(examples).toContain('5.0.log:4: admin.$cmd');
    expect(examples).toContain('6.0.log:4: admin.$cmd');
    expect(examples).toContain('6.0.11.log:2: aggregate with $collStats');
    expect(examples).toContain('6.0.11.log:7: delete on testdb.$cmd');
    // queryHash (4.4-7.0) and planCacheShapeHash (8.0) are both the server's shape.
    expect(summary.shapes.find((s) => s.ns === 'db.coll')?.shapeHashes).toEqual(['9C05019A']);
    expect(summary.shapes.find((s) => s.ns === 'stringr.devices')?.shapeHashes).toEqual([
      '16FE1304',
    ]);
    expect(summary.shapes.find((s) => s.ns === 'stringr.devices')?.latencyMillis).toEqual({
      p50: 151,
      p95: 151,
      max: 151,
    });
    // 6.0.0 logs queryExecutionEngine, 6.0.11 queryFramework beside the same queryHash.
    expect(
      summary.shapes.find((s) => s.type === 'find' && s.ns === 'my_db.school')?.shapeHashes,
    ).toEqual(['17830885']);
    expect(
      summary.shapes.find((s) => s.type === 'find' && s.ns === 'testdb.vehicles')?.shapeHashes,
    ).toEqual(['7C953B42']);
    expect(summary.shapes.find((s) => s.ns === 'counpaign.customers')?.shapeHashes).toEqual([
      '773D8541',
    ]);

    const workloadText = readFileSync(join(out, 'workload.json'), 'utf8');
    // Driver metadata is gone; the read preference and write concern became the op's own.
    for (const field of [
      'lsid',
      '$clusterTime',
      'txnNumber',
      '$db',
      '$readPreference',
      'provenance',
    ])
      expect(workloadText).not.toContain(`"${field}"`);
    const specs = runnable(workloadText);
    expect(specs).toHaveLength(19);
    expect(specs.every((s) => s.weight === 1)).toBe(true);
    const find = specs.find((s) => s.type === 'find' && s.ns?.coll === 'pizzas');
    expect(find).toMatchObject({
      query: { size: 'medium' },
      readPreference: { mode: 'primaryPreferred' },
    });
    const fam = specs.find((s) => s.ns?.db === 'stringr');
    expect(fam?.command).toMatchObject({
      findAndModify: 'devices',
      upsert: true,
      writeConcern: { w: 'majority' },
    });
    const multiUpdate = specs.find((s) => s.ns?.db === 'testcase');
    expect(multiUpdate).toMatchObject({ type: 'update', multi: true });
    expect(specs.find((s) => s.ns?.db === '_KEYHOLE_88800')).toMatchObject({
      type: 'remove',
      multi: true,
    });
    // 6.0: the WRITE-component statements of one connection, then the delete command they belong to.
    const examples60 = specs.filter((s) => s.ns?.db === 'testdb' && s.ns.coll === '__examples');
    expect(examples60.map((s) => s.type).sort()).toEqual(['findOne', 'remove', 'update']);
    expect(examples60.find((s) => s.type === 'update')).toMatchObject({
      query: { email: 'Ulysses.O.Johnson@aol.com' },
      update: { $set: { timestamp: expect.anything() } },
    });
    expect(examples60.find((s) => s.type === 'remove')?.multi ?? false).toBe(false); // limit: 1
    expect(specs.find((s) => s.ns?.db === 'testdb' && s.type === 'find')).toMatchObject({
      query: { color: 'Red' },
      sort: { brand: -1 },
    });
    expect(
      specs.find((s) => s.ns?.coll === 'vehicles' && s.type === 'command')?.command,
    ).toMatchObject({ distinct: 'vehicles', key: 'color' });
    expect(specs.find((s) => s.ns?.db === 'my_db' && s.type === 'insert')).toBeDefined();
    expect(
      specs.find((s) => s.ns?.db === 'counpaign' && s.type === 'command')?.command,
    ).toMatchObject({
      aggregate: 'customers',
      pipeline: [{ $match: {} }, { $group: { _id: 1, n: { $sum: 1 } } }],
    });

    // its first batch (batchSize 1) and the getMore's one document: read as far as the log shows
    expect(
      specs.find(
        (s) => s.ns?.db === 'Restaurant' && (s.command as { find?: string })?.find === 'pizzas',
      ),
    ).toMatchObject({
      command: {
        find: 'pizzas',
        filter: { size: { $in: ['small', 'medium', 'large'] } },
        batchSize: 1,
        limit: 2,
      },
      readPreference: { mode: 'primaryPreferred' },
    });
    const md = readFileSync(join(out, 'capture.md'), 'utf8');
    expect(md).toContain('1 getMore of 1 cursor whose opening command is not in the source');
    expect(md).toContain('slowms: 0');
    expect(md).toContain('![share of operations and of server time by shape](capture-shapes.png)');
    const png = readFileSync(join(out, 'capture-shapes.png'));
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(png.length).toBeGreaterThan(10_000);
  });

  it('--json prints the summary that capture.json holds', async () => {
    const out = join(dir, 'json');
    const { code, stdout } = await runCli([
      'capture',
      join(LOGS, '4.4.log'),
      '--out',
      out,
      '--json',
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(JSON.parse(readFileSync(join(out, 'capture.json'), 'utf8')));
  });

  it('reads .gz files (by content) and several files the same as the plain ones', async () => {
    const gz = join(dir, 'mongod.log.1.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(LOGS, '2025-before-8.0.log'))));
    const fromGz = await captureFromLogs([gz, join(LOGS, '4.4.log')]);
    const plain = await captureFromLogs([join(LOGS, '2025-before-8.0.log'), join(LOGS, '4.4.log')]);
    expect(fromGz.workload.ops).toEqual(plain.workload.ops);
    expect(fromGz.summary.statements).toBe(plain.summary.statements);
    expect(fromGz.summary.sources).toEqual([gz, join(LOGS, '4.4.log')]);
  });

  it('turns constants into picks with their frequencies, and many distinct integers into a range', async () => {
    const log = syntheticLog(6000, 60);
    const file = join(dir, 'skewed.log');
    writeFileSync(file, log.text);
    const { workload, summary } = await captureFromLogs([file]);
    expect(summary.shapes.map((s) => [s.type, s.count])).toEqual([
      ['find', log.counts.find],
      ['update', log.counts.update],
      ['remove', log.counts.remove],
    ]);
    expect(summary.shapes.map((s) => s.sharePercent)).toEqual([60, 30, 10]);
    expect(summary.opsPerSecond).toBeCloseTo(6000 / 60, 0);
    type Op = { weight: number; query: Record<string, Record<string, unknown>>; update: unknown };
    const [find, update] = workload.ops as unknown as Op[];
    expect(find.weight).toBe(log.counts.find);
    const pick = find.query.size['#PICK'] as { values: string[]; weights: number[] };
    expect(Object.fromEntries(pick.values.map((v, i) => [v, pick.weights[i]]))).toEqual(
      Object.fromEntries(log.sizes),
    );
    expect(pick.values[0]).toBe('small'); // the most frequent first
    const range = update.query.orderId['#RAND_INT'] as [number, number];
    expect(range[0]).toBeGreaterThanOrEqual(0);
    expect(range[1]).toBeLessThanOrEqual(5000);
    expect(range[1] - range[0]).toBeGreaterThan(4000);
    expect(update.update).toEqual({ $set: { price: 20 } }); // one value seen: stays a constant
    runnable(JSON.stringify(workload));

    // The mix a run draws from these weights (the engine's picker, per client seed): within 2 points
    // of the log's shares over 100,000 draws from 4 clients.
    const weights = workload.ops.map((op) => op.weight as number);
    const drawn = new Array<number>(weights.length).fill(0);
    for (let client = 0; client < 4; client++) {
      const pick = weightedOpPicker(weights, 7 + client)!;
      for (let i = 0; i < 25_000; i++) drawn[pick()]++;
    }
    summary.shapes.forEach((shape) =>
      expect(Math.abs((drawn[shape.op] / 100_000) * 100 - shape.sharePercent)).toBeLessThan(2),
    );
  });
});

describe('capture: bad input', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-capture-bad-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names a file that does not exist', async () => {
    expect(await usageError(captureFromLogs([join(dir, 'nope.log')]))).toBe(
      `capture: cannot read ${join(dir, 'nope.log')}: no such file or directory`,
    );
  });

  it('refuses a file with no log entry, naming its file and first line', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'hello\nthis is not a log\n');
    expect(await usageError(captureFromLogs([file]))).toMatch(
      new RegExp(
        `^capture: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1: not a mongod/mongos JSON log \\(4\\.4 or later\\): Unexpected token`,
      ),
    );
  });

  it('says when a log is the text format of 4.2 and older', async () => {
    const file = join(dir, 'old.log');
    writeFileSync(
      file,
      '2019-07-01T10:00:00.000+0000 I COMMAND  [conn1] command test.c command: find { find: "c" } 150ms\n',
    );
    expect(await usageError(captureFromLogs([file]))).toContain(
      `${file}:1: not a mongod/mongos JSON log (4.4 or later): a pre-4.4 text log line`,
    );
  });

  it('names the file and line where a .gz file breaks off', async () => {
    const file = join(dir, 'cut.log.gz');
    const whole = gzipSync(readFileSync(join(LOGS, '2025-before-8.0.log')));
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length * 0.6)));
    expect(await usageError(captureFromLogs([file]))).toMatch(
      new RegExp(
        `^capture: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: not a complete gzip stream`,
      ),
    );
  });

  it('says how to make the server log every op when a log holds no workload', async () => {
    expect(await usageError(captureFromLogs([join(LOGS, '5.0.log')]))).toMatch(
      /no workload found .*slowms: 0/,
    );
  });

  it('a failed capture leaves the previous workload.json as it was (exit 2)', async () => {
    const out = join(dir, 'kept');
    const first = await runCli(['capture', join(LOGS, '4.4.log'), '--out', out]);
    expect(first.code).toBe(0);
    const before = readFileSync(join(out, 'workload.json'), 'utf8');
    const bad = join(dir, 'garbage.log');
    writeFileSync(bad, 'garbage\n');
    const second = await runCli(['capture', join(LOGS, '2025-before-8.0.log'), bad, '--out', out]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`${bad}:1: not a mongod/mongos JSON log`);
    expect(readFileSync(join(out, 'workload.json'), 'utf8')).toBe(before);
    expect(existsSync(join(out, 'capture.md'))).toBe(true);
  });

  it('--help explains sources, shapes, skips, outputs and how to log every op', async () => {
    const { code, stdout } = await runCli(['capture', '--help']);
    expect(code).toBe(0);
    for (const text of [
      '--out',
      '--name',
      'Slow query',
      'getMore',
      'maxLogSizeKB',
      'weight',
      '#PICK',
      'slowms: 0',
      'sampleRate',
      '--query-stats',
      '--query-stats-window',
      'workload.json',
      'capture.md',
      'Exit codes',
    ]) {
      expect(stdout).toContain(text);
    }
  });
});

describe('parseLogLine', () => {
  it('reads the 8.0 planCacheShapeHash and the 4.4 queryHash as the shape hash', () => {
    const line80 = readFileSync(join(LOGS, '8.0.log'), 'utf8').trim();
    const line44 = readFileSync(join(LOGS, '4.4.log'), 'utf8').split('\n')[0];
    expect(parseLogLine(line80, 'x')).toMatchObject({
      served: { shapeHash: '9C05019A', durationMillis: 101, ns: 'db.coll', kind: 'command' },
    });
    expect(parseLogLine(line44, 'x')).toMatchObject({
      served: { shapeHash: '16FE1304', connection: 'conn4479' },
    });
  });

  it('reads the 5.0 Slow query line (a driver hello on admin.$cmd), which capture skips as an internal namespace', async () => {
    const line50 = readFileSync(join(LOGS, '5.0.log'), 'utf8').split('\n')[3];
    expect(parseLogLine(line50, '5.0.log:4')).toMatchObject({
      served: {
        ns: 'admin.$cmd',
        kind: 'command',
        command: { hello: true },
        durationMillis: 517,
        connection: 'conn2',
        at: new Date('2021-08-10T07:38:34.388Z'),
      },
    });
    expect(await usageError(captureFromLogs([join(LOGS, '5.0.log')]))).toContain(
      '(4 records read; skipped internal namespace (admin, config, local): 1)',
    );
  });

  it("reads the 7.0 line (listIndexes by the server's own session refresh) and the 6.0/7.0-era find with its queryHash", () => {
    const line70 = readFileSync(join(LOGS, '7.0.log'), 'utf8').split('\n')[0];
    expect(parseLogLine(line70, '7.0.log:1')).toMatchObject({
      served: {
        ns: 'config.system.sessions',
        kind: 'command',
        command: { listIndexes: 'system.sessions' },
        durationMillis: 6695,
        connection: 'LogicalSessionCacheRefresh',
      },
    });
    const find = readFileSync(join(LOGS, '2025-before-8.0.log'), 'utf8').split('\n')[2];
    expect(parseLogLine(find, '2025-before-8.0.log:3')).toMatchObject({
      served: { ns: 'test.pizzas', kind: 'command', shapeHash: 'F1FEE1FA', connection: 'conn40' },
    });
  });

  it('reads the 6.0.0 find (queryExecutionEngine) and the 6.0.11 WRITE update statement; each 6.0 and 7.0.25 file carries its Build Info line', () => {
    const lines60 = readFileSync(join(LOGS, '6.0.log'), 'utf8').trimEnd().split('\n');
    const lines6011 = readFileSync(join(LOGS, '6.0.11.log'), 'utf8').trimEnd().split('\n');
    const lines7025 = readFileSync(join(LOGS, '7.0.25.log'), 'utf8').trimEnd().split('\n');
    // The version evidence travels with the lines (test/fixtures/capture/README.md).
    const built = (line: string): unknown =>
      (JSON.parse(line) as { attr: { buildInfo: { version: string } } }).attr.buildInfo.version;
    expect([built(lines60[0]), built(lines6011[0]), built(lines7025[0])]).toEqual([
      '6.0.0',
      '6.0.11',
      '7.0.25',
    ]);
    expect(parseLogLine(lines60[0], '6.0.log:1')).toBeUndefined();
    expect(parseLogLine(lines60[2], '6.0.log:3')).toMatchObject({
      served: {
        ns: 'my_db.school',
        kind: 'command',
        command: { find: 'school', filter: {} },
        shapeHash: '17830885',
        durationMillis: 134,
        connection: 'conn42',
      },
    });
    expect(parseLogLine(lines6011[4], '6.0.11.log:5')).toMatchObject({
      served: {
        ns: 'testdb.__examples',
        kind: 'update',
        command: { q: { email: 'Ulysses.O.Johnson@aol.com' }, multi: false, upsert: false },
        shapeHash: 'A55E809A',
        connection: 'conn618',
      },
    });
    expect(parseLogLine(lines7025[1], '7.0.25.log:2')).toMatchObject({
      served: {
        ns: 'counpaign.customers',
        kind: 'command',
        shapeHash: '773D8541',
        connection: 'conn166',
      },
    });
  });

  it('passes over entries that are not Slow query entries', () => {
    const line = readFileSync(join(LOGS, '5.0.log'), 'utf8').split('\n')[0];
    expect(parseLogLine(line, 'x')).toBeUndefined();
  });
});

describe('run --replay-rate', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-replay-rate-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is a multiple of the captured rate, and says what is wrong otherwise', () => {
    const captured = join(dir, 'captured.json');
    writeFileSync(
      captured,
      JSON.stringify({
        name: 'c',
        ops: [{ op: 'find', query: {}, weight: 1 }],
        capture: { opsPerSecond: 40 },
      }),
    );
    const plain = join(dir, 'plain.json');
    writeFileSync(plain, JSON.stringify([{ op: 'find', query: {} }]));
    expect(resolveBenchmarkOptions({ workloadFile: captured, replayRate: '2x' }).rate).toBe(80);
    expect(resolveBenchmarkOptions({ workloadFile: captured, replayRate: '0.5' }).rate).toBe(20);
    expect(
      usageMessage(() => resolveBenchmarkOptions({ workloadFile: captured, replayRate: 'fast' })),
    ).toBe('option --replay-rate: expected a multiple such as 1x, 2x or 0.5x, got "fast"');
    expect(
      usageMessage(() =>
        resolveBenchmarkOptions({ workloadFile: captured, replayRate: '1x', rate: 5 }),
      ),
    ).toMatch(/^options --rate and --replay-rate cannot be combined/);
    expect(usageMessage(() => resolveBenchmarkOptions({ replayRate: '1x' }))).toMatch(
      /^option --replay-rate needs --workload-file/,
    );
    expect(
      usageMessage(() => resolveBenchmarkOptions({ workloadFile: plain, replayRate: '1x' })),
    ).toBe(
      `option --replay-rate: workload file ${plain} has no "capture" rate (write it with mongo-bench capture)`,
    );
  });
});
