/**
 * `$queryStats` as a capture source, on real output: the MongoDB Manual's two examples (printed there,
 * test/fixtures/capture/query-stats/README.md cites them) and two snapshots in the same layout. Weights
 * from one snapshot (cumulative) and from two (their difference), placeholders given values, latency
 * per shape, unknown fields ignored, unreadable entries skipped with their reason; the live path
 * (--uri) through the driver against the recording server, which answers the stage with the same
 * documents, or refuses it as a server without it does.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BSON, Decimal128, Int32, Long, Timestamp } from 'mongodb';
import type { CaptureSummary, CapturedWorkload } from '../../lib/capture';
import {
  captureFromQueryStats,
  commandOf,
  parseQueryStatsText,
} from '../../lib/capture/query-stats';
import { renderCaptureMarkdown } from '../../lib/capture';
import { parseOps } from '../../lib/workload/language/op-spec';
import { prepareWorkload } from '../../lib/workload/engine/compile-ops';
import { fillPlaceholders } from '../../lib/capture/query-stats-values';
import { MongoClient } from 'mongodb';
import { runCli, usageMessage } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { RecordingServer, startRecordingServer } from '../support/recording-server';

const DIR = join(__dirname, '..', 'fixtures', 'capture', 'query-stats');
const fixture = (name: string) => join(DIR, name);
const read = (name: string) => readFileSync(fixture(name), 'utf8');

function capture(names: string[], template?: Record<string, unknown>) {
  return captureFromQueryStats(
    names.map((n) => parseQueryStatsText(read(n), n)),
    {
      name: 'qs',
      values: { template },
      valuesFrom: template ? 'docs-like' : 'type',
      insertDocument: {},
      insertDocuments: 'placeholder',
    },
  );
}

describe('capture --query-stats: saved output', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-query-stats-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the Manual's untransformed example: one snapshot, weights are execCount since first seen, the covered span stated", () => {
    const { workload, summary } = capture(['manual-untransformed.json']);
    expect(summary.shapes.map((s) => `${s.type} ${s.ns} ${s.count}`)).toEqual([
      'aggregate test.products 3',
      'find test.products 1',
    ]);
    expect(workload.ops.map((o) => o.weight)).toEqual([3, 1]);
    // "?number" and "?string" became generators of their type (no --docs-like): no literal invented as the user's
    expect(workload.ops[0]).toMatchObject({
      op: 'command',
      ns: 'test.products',
      command: {
        aggregate: 'products',
        pipeline: [{ $match: { qty: { $gt: { '#RAND_INT': [0, 10000] } } } }],
        cursor: {},
      },
    });
    expect(workload.ops[1]).toMatchObject({
      op: 'find',
      ns: 'test.products',
      query: { item: { $eq: { '#RAND_STRING': [8] } } },
    });
    expect(JSON.stringify(workload)).not.toMatch(/"\?(string|number)"/);
    // latency per shape: totalExecMicros.sum / execCount = 3084 / 3; max and min as the server kept them
    expect(summary.shapes[0].queryStats).toEqual({
      execCount: 3,
      meanExecMicros: 1028,
      meanFirstResponseMicros: 1028,
      meanDocsReturned: 1,
      maxExecMicros: 2499,
      minExecMicros: 235,
      firstSeen: '2023-11-29T21:16:17.796Z',
      latestSeen: '2023-11-29T21:17:12.385Z',
    });
    expect(summary.shapes[0].serverMillis).toBe(3.08);
    expect(summary.shapes[0].shapeHashes).toEqual([
      'uxMLCvpiJ5N/IRqt4c28/0A8F01C8AA16CA805FF5C1A5737535F97E40C2A90CE91A82CCB7A74C7CCB9C48',
    ]);
    expect(summary.queryStats).toMatchObject({
      mode: 'cumulative',
      firstSeen: '2023-09-14T12:30:27.989Z',
      latestSeen: '2023-11-29T21:17:12.385Z',
      values: 'type',
    });
    // the key's cursor.batchSize ("?number", outside queryShape) is not sent: the server's default batch
    expect(summary.queryStats?.literals).toEqual({
      fromSample: 0,
      fromDocsLike: 0,
      byType: 2,
      expressionConstants: 0,
      dropped: {},
      limitsFromDocsReturned: 0,
    });
    // cumulative counts have no common span: no pace for --replay-rate
    expect(workload.capture).toBeUndefined();
    expect(summary.opsPerSecond).toBeUndefined();
  });

  it("two snapshots: weights are the difference of execCount (600/300/100, and the update's 70), the latency the window's; unknown fields ignored; skips counted with reasons", () => {
    const { workload, summary } = capture(['window-before.json', 'window-after.json']);
    expect(summary.shapes.map((s) => `${s.type} ${s.count}`)).toEqual([
      'find 600',
      'aggregate 300',
      'distinct 100',
      'update 70',
    ]);
    expect(summary.shapes.map((s) => s.sharePercent)).toEqual([56.07, 28.04, 9.35, 6.54]);
    // (480,000 - 300,000) / (1,600 - 1,000) µs; the distinct and update entries are new: all of them is in the window
    expect(summary.shapes.map((s) => s.queryStats?.meanExecMicros)).toEqual([300, 1200, 500, 300]);
    expect(summary.shapes.slice(0, 3).map((s) => s.queryStats?.meanFirstResponseMicros)).toEqual([
      250, 1150, 500,
    ]);
    expect(summary.shapes[0].queryStats?.meanDocsReturned).toBe(8);
    expect(summary.queryStats).toMatchObject({ mode: 'window', windowSeconds: 300 });
    // the window's pace: 1,070 executions over the 300 s between the snapshots' asOf
    expect(workload.capture).toEqual({
      opsPerSecond: 3.567,
      firstAt: '2025-09-25T23:00:00.000Z',
      lastAt: '2025-09-25T23:05:00.000Z',
    });
    expect(Object.fromEntries(summary.skipped.map((s) => [s.reason, s.count]))).toEqual({
      'not a workload command': 1,
      'not run between the snapshots': 1,
      'a literal that cannot be generated': 1,
    });
    const examples = summary.skipped.flatMap((s) => s.examples).join('\n');
    expect(examples).toMatch(/aggregate on a changeStream/);
    expect(examples).toMatch(/a literal of type \?regex at name/);
    // the find: the key's readConcern travels with it (a command op), its limit is the most it returned,
    // maxTimeMS (normalized) and the unknown key field are not sent
    expect(workload.ops[0]).toEqual({
      op: 'command',
      ns: 'shop.orders',
      weight: 600,
      command: {
        find: 'orders',
        filter: {
          status: { $eq: { '#RAND_STRING': [8] } },
          qty: { $gte: { '#RAND_INT': [0, 10000] } },
        },
        sort: { qty: -1 },
        limit: 20,
        readConcern: { level: 'majority' },
      },
    });
    // an expression constant ($sum: "?number") replays as 1: the work is the same whatever the constant
    expect(workload.ops[1].command).toEqual({
      aggregate: 'orders',
      pipeline: [
        { $match: { qty: { $gt: { '#RAND_INT': [0, 10000] } } } },
        { $group: { _id: '$status', n: { $sum: 1 } } },
      ],
      cursor: {},
    });
    expect(workload.ops[2].command).toEqual({
      distinct: 'orders',
      key: 'status',
      query: { customer: { $in: [{ '#RAND_INT': [0, 10000] }] } },
    });
    // the update shape (master collects writes where its feature flag is on): an update op
    expect(workload.ops[3]).toEqual({
      op: 'update',
      ns: 'shop.orders',
      query: { _id: { $eq: { '#RAND_INT': [0, 10000] } } },
      update: { $set: { status: { '#RAND_STRING': [8] } } },
      weight: 70,
    });
  });

  it('--docs-like: a placeholder takes the template of its field where the types agree, else a generator of its type', () => {
    const template = {
      status: { '#RAND_STRING': [7] },
      qty: { '#RAND_INT': [1, 51] },
      customer: { name: { '#RAND_STRING': [12] } },
    };
    const { workload, summary } = capture(['window-before.json', 'window-after.json'], template);
    expect(workload.ops[0].command).toMatchObject({
      filter: { status: { $eq: { '#RAND_STRING': [7] } }, qty: { $gte: { '#RAND_INT': [1, 51] } } },
    });
    // customer is a sub-document in the template, the shape compares it with numbers: by type
    expect(workload.ops[2].command).toMatchObject({
      query: { customer: { $in: [{ '#RAND_INT': [0, 10000] }] } },
    });
    // the update's $set takes status's template; its _id filter has no template: by type
    expect(workload.ops[3]).toMatchObject({
      update: { $set: { status: { '#RAND_STRING': [7] } } },
    });
    expect(summary.queryStats?.literals).toMatchObject({
      fromDocsLike: 4,
      byType: 2,
      expressionConstants: 1,
      limitsFromDocsReturned: 1,
    });
    // a date: within the entry's first..latest seen; a dotted path reaches into the template
    const filled = fillPlaceholders(
      'find',
      { filter: { 'customer.name': '?string', at: { $lt: '?date' } } },
      { template },
      { firstSeen: new Date(1000), latestSeen: new Date(5000) },
    );
    expect(filled).toMatchObject({
      command: {
        filter: {
          'customer.name': { '#RAND_STRING': [12] },
          at: { $lt: { '#RAND_DATE': [1000, 5000] } },
        },
      },
    });
    // a hint with a placeholder names no index we can know: dropped, counted
    expect(fillPlaceholders('find', { filter: {}, hint: { qty: '?number' } }, {}, {})).toEqual({
      command: { filter: {} },
      counts: expect.objectContaining({ dropped: { hint: 1 } }),
    });
    // an expression: a number is 1, null null; a string there has no value to give
    expect(
      fillPlaceholders(
        'aggregate',
        { pipeline: [{ $group: { _id: '?null', n: { $sum: '?number' } } }] },
        {},
        {},
      ),
    ).toMatchObject({ command: { pipeline: [{ $group: { _id: null, n: { $sum: 1 } } }] } });
    expect(
      fillPlaceholders(
        'aggregate',
        { pipeline: [{ $project: { label: { $concat: ['$a', '?string'] } } }] },
        {},
        {},
      ),
    ).toEqual({ cannot: 'a literal of type ?string in an expression' });
  });

  it("--docs-like --keep-sample (the sample is on disk anyway): a filter placeholder draws among its field's sampled values, weighted", () => {
    const sample = [
      { status: 'shipped', qty: 5 },
      { status: 'open', qty: 7 },
      { status: 'shipped', qty: 9 },
    ];
    const { workload, summary } = captureFromQueryStats(
      ['window-before.json', 'window-after.json'].map((n) => parseQueryStatsText(read(n), n)),
      {
        name: 'qs',
        values: { template: { status: { '#RAND_STRING': [7] } }, sample },
        valuesFrom: 'sample',
        insertDocument: {},
        insertDocuments: 'docs-like',
      },
    );
    expect(workload.ops[0].command).toMatchObject({
      filter: {
        status: { $eq: { '#PICK': { values: ['shipped', 'open'], weights: [2, 1] } } },
        qty: { $gte: { '#PICK': { values: [5, 7, 9], weights: [1, 1, 1] } } },
      },
    });
    // no sampled customer: by type
    expect(workload.ops[2].command).toMatchObject({
      query: { customer: { $in: [{ '#RAND_INT': [0, 10000] }] } },
    });
    expect(summary.queryStats?.literals).toMatchObject({ fromSample: 4, byType: 2 });
  });

  it("master's layout: asOf a Date, metrics under cursor / queryExec / queryPlanner, the write shapes replayed as update, remove and insert ops", () => {
    const { workload, summary } = capture(['master-before.jsonl', 'master-after.jsonl']);
    expect(summary.shapes.map((s) => `${s.type} ${s.ns} ${s.count}`)).toEqual([
      'find shop.orders 300',
      'update shop.orders 50',
      'remove shop.carts 20',
      'insert shop.events 10',
    ]);
    // asOf as Dates, 300 s apart: the window and its pace (380 executions)
    expect(summary.queryStats).toMatchObject({ mode: 'window', windowSeconds: 300 });
    expect(workload.capture).toEqual({
      opsPerSecond: 1.267,
      firstAt: '2026-03-02T10:00:00.000Z',
      lastAt: '2026-03-02T10:05:00.000Z',
    });
    // firstResponseExecMicros read under cursor, docsReturned under queryExec
    expect(summary.shapes[0].queryStats).toMatchObject({
      meanExecMicros: 400,
      meanFirstResponseMicros: 350,
      meanDocsReturned: 12,
    });
    const firstSeen = Date.parse('2026-03-02T09:00:00.000Z');
    const latestSeen = Date.parse('2026-03-02T10:04:59.000Z');
    expect(workload.ops).toEqual([
      {
        op: 'find',
        ns: 'shop.orders',
        query: { status: { $eq: { '#RAND_STRING': [8] } } },
        sort: { placed: -1 },
        limit: 40,
        weight: 300,
      },
      {
        op: 'update',
        ns: 'shop.orders',
        query: { _id: { $eq: { '#RAND_INT': [0, 10000] } } },
        update: { $set: { status: { '#RAND_STRING': [8] } } },
        weight: 50,
      },
      // limit: 0 is a multi delete (writeMultiDeleteProperty)
      {
        op: 'remove',
        ns: 'shop.carts',
        query: { expires: { $lt: { '#RAND_DATE': [firstSeen, latestSeen] } } },
        multi: true,
        weight: 20,
      },
      // writes.nInserted / execCount: batches of 3 (90 documents in 30 inserts)
      {
        op: 'insert',
        ns: 'shop.events',
        doc: Array.from({ length: 3 }, () => ({ capturedBy: 'mongo-bench capture' })),
        weight: 10,
      },
    ]);
    // a replacement update ("?object") has no document to send
    expect(summary.skipped).toEqual([
      {
        reason: 'a literal that cannot be generated',
        count: 1,
        examples: ['master-after.jsonl #5: update on shop.orders: a literal of type ?object'],
      },
    ]);
    expect(renderCaptureMarkdown(summary, 'c.png')).toContain(
      '**Writes.** 3 shape(s) are writes the server collected (update, remove, insert)',
    );
    prepareWorkload(parseOps(workload.ops, { defaultNs: 'mongo_bench.docs' }));
    const sha = (name: string) =>
      createHash('sha256')
        .update(readFileSync(fixture(name)))
        .digest('hex');
    expect(workload.capturedFrom).toEqual({
      kind: 'queryStats',
      sources: ['master-before.jsonl', 'master-after.jsonl'].map((name) => ({
        name,
        lines: 5,
        sha256: sha(name),
      })),
    });
  });

  it('a write shape with a field its op cannot send (let, c, arrayFilters, collation) is skipped, naming it', () => {
    const [update] = parseQueryStatsText(read('master-after.jsonl'), 'm').entries.slice(1);
    const withLet = { ...update, shape: { ...update.shape, let: { when: '?date' } } };
    expect(commandOf(withLet, {})).toEqual({
      skip: {
        origin: 'm #2',
        reason: 'a field the replay op cannot send',
        detail: 'update on shop.orders with let: the op sends q, u, multi and upsert only',
      },
    });
  });

  it("the Manual's transformed example (one document a line): hashed names cannot be replayed, said plainly (exit 2)", async () => {
    const message = usageMessage(() => capture(['manual-transformed.jsonl']));
    expect(message).toMatch(/no workload found .*identifiers hashed \(transformIdentifiers\): 2/);
    const run = await runCli([
      'capture',
      '--query-stats',
      fixture('manual-transformed.jsonl'),
      '--out',
      join(dir, 'hashed'),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /\$queryStats holds the shapes the server collected \(find, aggregate and distinct; count, update, delete and insert where the release and its feature flags collect them\)/,
    );
  });

  it('bad input: mongosh display format, not entries, wrong option combinations (exit 2, naming the option)', async () => {
    expect(
      usageMessage(() =>
        parseQueryStatsText('[ { key: {}, metrics: { execCount: Long("1") } } ]', 'shell.txt'),
      ),
    ).toMatch(/mongosh's display format .*EJSON\.stringify/);
    expect(usageMessage(() => parseQueryStatsText('{"a": 1}\n{"b": 2}', 'x.json'))).toMatch(
      /no \$queryStats entry in 2 documents/,
    );
    expect(usageMessage(() => capture(['window-after.json', 'window-before.json']))).toMatch(
      /the first was read after the second .*give the earlier snapshot first/,
    );
    const cases: [string[], RegExp][] = [
      [
        ['--query-stats', fixture('window-before.json'), '--query-stats-window', '5'],
        /--query-stats-window runs the stage twice on --uri/,
      ],
      [['--query-stats'], /--query-stats needs FILE/],
      [['--query-stats', 'a.json', 'b.json', 'c.json'], /one file \(cumulative\) or two/],
      [['--query-stats-window', '5'], /--query-stats-window needs --uri URI --query-stats/],
      [
        ['--query-stats', fixture('window-before.json'), '--sampled'],
        /--sampled does not apply to --query-stats/,
      ],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(['capture', ...args, '--out', join(dir, 'bad')]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
    }
  });

  it('the CLI writes capture.md with the window, the writes, the values and the latency per shape', async () => {
    const out = join(dir, 'window');
    const run = await runCli([
      'capture',
      '--query-stats',
      fixture('window-before.json'),
      fixture('window-after.json'),
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^1,070 executions \(between the snapshots\) in 4 shapes from 10 \$queryStats entries:/,
    );
    const md = readFileSync(join(out, 'capture.md'), 'utf8');
    expect(md).toContain('the difference of two snapshots');
    expect(md).toContain('300 s apart');
    expect(md).toContain('**Writes.** 1 shape(s) are writes the server collected (update)');
    expect(md).toMatch(/\| 0 \| find \| shop\.orders \| 600 \| 300 \| 250 \| 8 \| 2,400 \| 120 \|/);
    expect(md).toMatch(/\| not run between the snapshots \| 1 \|/);
    const summary = JSON.parse(readFileSync(join(out, 'capture.json'), 'utf8')) as CaptureSummary;
    expect(summary.shapes[0].queryStats?.execCount).toBe(600);
    // the workload is the same file the log and profiler sources write
    const workload = JSON.parse(
      readFileSync(join(out, 'workload.json'), 'utf8'),
    ) as CapturedWorkload;
    expect(workload.ops.map((o) => o.weight)).toEqual([600, 300, 100, 70]);
  });
});

/**
 * The fixture's canonical Extended JSON as the BSON values a server sends (Long, Decimal128, Date,
 * Timestamp). Not EJSON.parse: it would read the shape's `{$regex: "?regex"}` as a regular expression.
 */
function toBson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toBson);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  if (typeof o.$numberLong === 'string') return Long.fromString(o.$numberLong);
  if (typeof o.$numberInt === 'string') return new Int32(Number(o.$numberInt));
  if (typeof o.$numberDecimal === 'string') return Decimal128.fromString(o.$numberDecimal);
  if (typeof o.$date === 'string') return new Date(o.$date);
  const ts = o.$timestamp as { t: number; i: number } | undefined;
  if (ts && typeof ts.t === 'number') return new Timestamp({ t: ts.t, i: ts.i });
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, toBson(x)]));
}

describeNeeding(
  'crud',
  'capture --query-stats --docs-like URI/db.coll on the CRUD test server',
  () => {
    it('the template (and with --keep-sample the sampled values) of the sampled collection fill the placeholders', async () => {
      const db = uniqueDbName('qs-docs-like');
      const client = new MongoClient(crudUri());
      const out = mkdtempSync(join(tmpdir(), 'mb-query-stats-docs-like-'));
      try {
        await client.connect();
        await client
          .db(db)
          .collection('orders')
          .insertMany([
            { status: 'shipped', qty: 5 },
            { status: 'open', qty: 7 },
            { status: 'shipped', qty: 9 },
          ]);
        const files = [fixture('window-before.json'), fixture('window-after.json')];
        const run = await runCli([
          'capture',
          '--query-stats',
          ...files,
          '--docs-like',
          `${crudUri()}/${db}.orders`,
          '--keep-sample',
          '--out',
          out,
        ]);
        expect(run.code).toBe(0);
        const workload = JSON.parse(
          readFileSync(join(out, 'workload.json'), 'utf8'),
        ) as CapturedWorkload;
        expect(workload.ops[0].command).toMatchObject({
          filter: {
            status: { $eq: { '#PICK': { values: ['shipped', 'open'], weights: [2, 1] } } },
          },
        });
        expect(readFileSync(join(out, 'capture.md'), 'utf8')).toContain(
          "a pick among its field's sampled values",
        );
      } finally {
        await client.db(db).dropDatabase();
        await client.close();
        rmSync(out, { recursive: true, force: true });
      }
    });
  },
);

describe('capture --uri URI --query-stats: the stage through the driver (recording server)', () => {
  let server: RecordingServer;
  let dir: string;
  let answer: 'snapshots' | 'refuse' | 'unknown stage' = 'snapshots';
  let calls = 0;
  const snapshots = ['window-before.json', 'window-after.json'].map(
    (n) => toBson(JSON.parse(read(n))) as BSON.Document[],
  );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-query-stats-live-'));
    server = await startRecordingServer({
      handlers: {
        aggregate: (body, db) => {
          const pipeline = body.pipeline as BSON.Document[];
          if (db !== 'admin' || !pipeline?.[0] || !('$queryStats' in pipeline[0])) return undefined;
          // QueryFeatureNotAllowed where the stage is off (jstests/noPassthrough/queryStats/query_stats_feature_flag.js);
          // 40324 "Unrecognized pipeline stage name" on a server without it
          if (answer === 'refuse')
            return {
              ok: 0,
              code: 224,
              codeName: 'QueryFeatureNotAllowed',
              errmsg: '$queryStats is not allowed in the current configuration',
            };
          if (answer === 'unknown stage')
            return {
              ok: 0,
              code: 40324,
              codeName: 'Location40324',
              errmsg: "Unrecognized pipeline stage name: '$queryStats'",
            };
          const batch = snapshots[Math.min(calls++, 1)];
          return {
            cursor: { id: Long.fromNumber(0), ns: 'admin.$cmd.aggregate', firstBatch: batch },
          };
        },
      },
    });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--query-stats-window: two snapshots, weights from their difference', async () => {
    answer = 'snapshots';
    calls = 0;
    const out = join(dir, 'live');
    const run = await runCli([
      'capture',
      '--uri',
      server.uri,
      '--query-stats',
      '--query-stats-window',
      '0.2',
      '--out',
      out,
    ]);
    expect(run.stderr).toContain('first $queryStats snapshot: 3 entries; the second in 0.2 s');
    expect(run.code).toBe(0);
    expect(calls).toBe(2);
    const summary = JSON.parse(readFileSync(join(out, 'capture.json'), 'utf8')) as CaptureSummary;
    expect(summary.shapes.map((s) => `${s.type} ${s.count}`)).toEqual([
      'find 600',
      'aggregate 300',
      'distinct 100',
      'update 70',
    ]);
    // the server's asOf (300 s apart), not the 0.2 s the tool waited here
    expect(summary.queryStats).toMatchObject({ mode: 'window', windowSeconds: 300 });
    // workload.json names the reads, not the host
    const written = readFileSync(join(out, 'workload.json'), 'utf8');
    expect((JSON.parse(written) as CapturedWorkload).capturedFrom).toEqual({
      kind: 'queryStats',
      sources: [
        { name: '$queryStats', documents: 3 },
        { name: '$queryStats +0.2s', documents: 7 },
      ],
    });
    expect(written).not.toContain('127.0.0.1');
    const sent = server
      .userCommands()
      .filter((c) => c.name === 'aggregate')
      .map((c) => ({ db: c.db, body: c.body }));
    expect(sent[0]).toEqual({
      db: 'admin',
      body: expect.objectContaining({ aggregate: 1, pipeline: [{ $queryStats: {} }] }),
    });
  });

  it('a server that refuses the stage: its error, and what is needed (exit 1)', async () => {
    answer = 'refuse';
    let run = await runCli([
      'capture',
      '--uri',
      server.uri,
      '--query-stats',
      '--out',
      join(dir, 'refused'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /refused \$queryStats: \$queryStats is not allowed in the current configuration \(QueryFeatureNotAllowed: .*Atlas clusters of tier M10 and up/,
    );
    answer = 'unknown stage';
    run = await runCli([
      'capture',
      '--uri',
      server.uri,
      '--query-stats',
      '--out',
      join(dir, 'unknown'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /has no \$queryStats stage \(the Manual lists it as new in 6\.0\.7 and in 7\.0\.12, enabled on MongoDB Atlas clusters of tier M10 and up/,
    );
  });

  it('an empty saved output: no workload, said with the reason (exit 2)', async () => {
    answer = 'snapshots';
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '[]');
    const run = await runCli(['capture', '--query-stats', empty, '--out', join(dir, 'empty-out')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no workload found/);
  });
});
