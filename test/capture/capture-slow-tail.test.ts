/**
 * The slow tail as real logs hold it, and the log formats after 8.0: getMores whose opening command was
 * not logged, lines cut before their JSON ends, captures that span days, what the shortest logged time
 * says of slowms, the sources workload.json names, master's wrapped truncation report and `fromRouter`.
 * The entries are real lines changed as the server's source says (./second-reading-log).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { captureFromLogs, renderCaptureMarkdown, writeCapture } from '../../lib/capture';
import type { CaptureOutcome } from '../../lib/capture';
import { CaptureBuilder } from '../../lib/capture/capture';
import { servedFromProfile } from '../../lib/capture/profiler';
import { parseOps } from '../../lib/workload/language/op-spec';
import { readWorkloadFile } from '../../lib/workload/language/workload-file';
import { prepareWorkload } from '../../lib/workload/engine/compile-ops';
import {
  find,
  getMore,
  openingFind,
  realLine,
  truncatedInsertWrapped,
  truncatedUpdateWrapped,
} from './second-reading-log';

const LOGS = join(__dirname, '..', 'fixtures', 'capture', 'logs');
const T0 = Date.parse('2025-09-25T23:00:00.000Z');
const json = (e: unknown) => JSON.stringify(e);
const skippedBy = (o: CaptureOutcome) =>
  Object.fromEntries(o.summary.skipped.map((s) => [s.reason, s.count]));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mb-capture-tail-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
function logFile(lines: string[]): string {
  const file = join(dir, `tail-${fileNo++}.log`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
const captureLines = (lines: string[]) => captureFromLogs([logFile(lines)]);

/** A find with a filter and a sort (the shape of an application's heaviest read path). */
const ORDERS_FIND = {
  find: 'orders',
  filter: { customer: 42, status: 'open' },
  sort: { placed: -1 },
  lsid: { id: { $uuid: 'ee544a5a-d47b-4ee5-9ca1-f2859e69a650' } },
  $db: 'shop',
};

describe('getMores whose opening command is not in the log', () => {
  it('build the shape from originatingCommand, count their time under it, and replay as far as the log shows the cursor read', async () => {
    const lines = [
      // ten fast finds of another shape, 110 ms each (the slow tail at slowms 100)
      ...Array.from({ length: 10 }, (_, i) => {
        const e = find(T0 + i * 1000, 'conn1');
        e.attr.durationMillis = 110;
        return json(e);
      }),
      // one cursor: its find was fast (unlogged), two getMores of 101 documents were slow
      json(
        getMore(T0 + 20_000, 'conn2', {
          cursorId: 77,
          durationMillis: 2086,
          nreturned: 101,
          originatingCommand: ORDERS_FIND,
        }),
      ),
      json(
        getMore(T0 + 22_000, 'conn2', {
          cursorId: 77,
          durationMillis: 1200,
          nreturned: 101,
          originatingCommand: ORDERS_FIND,
        }),
      ),
    ];
    const o = await captureLines(lines);
    expect(skippedBy(o)).toEqual({});
    const orders = o.summary.shapes.find((s) => s.ns === 'shop.orders')!;
    expect(orders).toMatchObject({
      type: 'find',
      count: 1,
      serverMillis: 3286,
      cursorsFromGetMores: 1,
      latencyMillis: { p50: 3286, p95: 3286, max: 3286 },
    });
    // 3,286 of 4,386 ms: the heaviest read path is the workload's largest share of server time
    expect(orders.serverSharePercent).toBe(74.92);
    // the default first batch (101) and the two logged batches: 303 documents, not the whole result
    expect(o.workload.ops[orders.op]).toEqual({
      op: 'command',
      ns: 'shop.orders',
      command: {
        find: 'orders',
        filter: { customer: 42, status: 'open' },
        sort: { placed: -1 },
        limit: 303,
      },
      weight: 1,
    });
    expect(o.summary.getMores).toEqual({
      ofLoggedCursors: 0,
      millisAddedToOpeners: 0,
      alone: 2,
      cursors: 1,
      limited: 1,
    });
    const md = renderCaptureMarkdown(o.summary, 'c.png');
    expect(md).toContain('| find (1 from getMores) | shop.orders |');
    expect(md).toContain(
      '2 getMores of 1 cursor whose opening command is not in the source (a fast first batch under slowms, its getMores over it): each cursor counts once, as its `originatingCommand`',
    );
    prepareWorkload(parseOps(o.workload.ops, { defaultNs: 'mongo_bench.docs' }));
  });

  it('a cursor read to its end (cursorExhausted) replays without a limit; several cursors of one shape replay a pick among their extents', async () => {
    const batched = { ...ORDERS_FIND, batchSize: 50 };
    const o = await captureLines([
      json(
        getMore(T0, 'conn1', {
          cursorId: 1,
          durationMillis: 300,
          nreturned: 40,
          exhausted: true,
          originatingCommand: ORDERS_FIND,
        }),
      ),
      json(
        getMore(T0 + 10, 'conn2', {
          cursorId: 2,
          durationMillis: 300,
          nreturned: 50,
          originatingCommand: batched,
        }),
      ),
      json(
        getMore(T0 + 20, 'conn3', {
          cursorId: 3,
          durationMillis: 300,
          nreturned: 50,
          originatingCommand: batched,
        }),
      ),
      json(
        getMore(T0 + 30, 'conn3', {
          cursorId: 3,
          durationMillis: 300,
          nreturned: 50,
          originatingCommand: batched,
        }),
      ),
    ]);
    const ops = o.summary.shapes.map((s) => o.workload.ops[s.op]);
    // read to its end: the plain find op, which reads its cursor to the end
    expect(ops).toContainEqual({
      op: 'find',
      ns: 'shop.orders',
      query: { customer: 42, status: 'open' },
      sort: { placed: -1 },
      weight: 1,
    });
    // batchSize 50 first, then 50 or 100 documents of getMores: limits 100 and 150, one cursor each
    expect(ops).toContainEqual(
      expect.objectContaining({
        weight: 2,
        command: expect.objectContaining({
          batchSize: 50,
          limit: { '#PICK': { values: [100, 150], weights: [1, 1] } },
        }),
      }),
    );
    expect(o.summary.getMores).toMatchObject({ alone: 4, cursors: 3, limited: 2 });
  });

  it("an aggregate's cursor takes a final $limit; a tailable cursor, the oplog's and a split pipeline's are skipped, saying why", async () => {
    const pipeline = {
      aggregate: 'orders',
      pipeline: [{ $match: { status: 'open' } }, { $sort: { placed: -1 } }],
      cursor: {},
      $db: 'shop',
    };
    const o = await captureLines([
      json(
        getMore(T0, 'conn1', {
          cursorId: 5,
          durationMillis: 900,
          nreturned: 101,
          originatingCommand: pipeline,
        }),
      ),
      json(
        getMore(T0 + 10, 'conn2', {
          cursorId: 6,
          durationMillis: 900,
          nreturned: 1,
          originatingCommand: { ...ORDERS_FIND, tailable: true, awaitData: true },
        }),
      ),
      json(
        getMore(T0 + 20, 'conn3', {
          cursorId: 7,
          durationMillis: 900,
          nreturned: 1,
          originatingCommand: { ...pipeline, fromRouter: true, needsMerge: true },
        }),
      ),
      // a secondary's oplog fetcher, as a getMore of a find on local.oplog.rs
      json(
        getMore(T0 + 30, 'conn4', {
          cursorId: 8,
          durationMillis: 900,
          nreturned: 1,
          originatingCommand: { find: 'oplog.rs', filter: {}, $db: 'local' },
        }),
      ),
    ]);
    expect(o.summary.shapes).toHaveLength(1);
    expect(o.workload.ops[0].command).toEqual({
      aggregate: 'orders',
      pipeline: [{ $match: { status: 'open' } }, { $sort: { placed: -1 } }, { $limit: 202 }],
      cursor: {},
    });
    const examples = o.summary.skipped.flatMap((s) => s.examples).join('\n');
    expect(examples).toContain('getMore of a tailable cursor on shop.orders');
    expect(examples).toContain('aggregate on shop.orders with needsMerge');
    expect(examples).toMatch(/:4: local\.oplog\.rs$/m);
  });

  it('when the opening find is in the source, its getMores belong to it: skipped, their time added to it, whatever order the files are read in', async () => {
    const opener = json(openingFind(T0, 'conn1', 9001, ORDERS_FIND, 40));
    const more = json(
      getMore(T0 + 500, 'conn1', {
        cursorId: 9001,
        durationMillis: 2086,
        nreturned: 101,
        originatingCommand: ORDERS_FIND,
      }),
    );
    // a rotated log sorts after the current one: the getMore is read first
    const o = await captureFromLogs([logFile([more]), logFile([opener])]);
    expect(o.summary.shapes).toHaveLength(1);
    expect(o.summary.shapes[0]).toMatchObject({ type: 'find', count: 1, serverMillis: 2126 });
    expect(o.summary.shapes[0].cursorsFromGetMores).toBeUndefined();
    // the opener's own latency stays its own; its share of server time carries the getMore
    expect(o.summary.shapes[0].latencyMillis).toEqual({ p50: 40, p95: 40, max: 40 });
    expect(skippedBy(o)).toEqual({ 'getMore (part of its cursor)': 1 });
    expect(o.summary.skipped[0].examples[0]).toMatch(
      /: on shop\.orders: its opening command is in the source, its time added to it$/,
    );
    expect(renderCaptureMarkdown(o.summary, 'c.png')).toContain(
      "1 getMore of a find or aggregate in the source: skipped as part of their cursor, their 2,086 ms added to their opening command's share of server time.",
    );
  });

  it('the profiler: a getmore document alone counts as its originatingCommand too', () => {
    const b = new CaptureBuilder();
    const r = servedFromProfile(
      {
        op: 'getmore',
        ns: 'shop.orders',
        command: { getMore: 12, collection: 'orders' },
        originatingCommand: ORDERS_FIND,
        cursorid: 12,
        nreturned: 101,
        millis: 700,
        ts: { $date: '2025-09-24T13:00:01Z' },
        client: '10.0.0.7',
      },
      'shop.system.profile #1',
    );
    if ('skip' in r) throw new Error('expected a served op');
    b.addServed(r.served, r.served.connection);
    const o = b.finish('p', {}, 'placeholder', ['profile']);
    expect(o.workload.ops[0]).toMatchObject({
      op: 'command',
      command: { find: 'orders', limit: 202 },
    });
  });
});

describe('lines that were cut', () => {
  it("a line that ends inside a JSON string or object is cut, with the parser's message; a malformed one does not parse", async () => {
    const whole = json(find(T0, 'conn1'));
    const insideString = readFileSync(join(LOGS, 'truncated-and-broken.log'), 'utf8').split(
      '\n',
    )[2];
    const insideObject = whole.slice(
      0,
      whole.indexOf('"durationMillis":') + '"durationMillis":'.length + 1,
    );
    const malformed = whole.replace('"s":"I"', '"s" "I"');
    const o = await captureLines([whole, insideString, insideObject, malformed]);
    const cut = o.summary.skipped.find((s) => s.reason.startsWith('cut'))!;
    expect(cut.reason).toBe(
      'cut (the line ends before its JSON does: truncated when logged or pasted)',
    );
    expect(cut.count).toBe(2);
    expect(cut.examples[0]).toMatch(
      /:2: 300 characters; Unterminated string in JSON at position 300$/,
    );
    expect(cut.examples[1]).toMatch(/:3: \d+ characters; /);
    expect(o.summary.skipped.find((s) => s.reason === 'does not parse')?.examples[0]).toMatch(
      /:4: Unexpected string in JSON at position 46$/,
    );
  });
});

describe('what a log says of its span and of slowms', () => {
  it('lines that span more than a day: the rate describes the span, not a load', async () => {
    const o = await captureLines([
      json(find(T0, 'conn1')),
      json(find(T0 + 3 * 86_400_000, 'conn1')),
    ]);
    expect(o.summary.spanSeconds).toBe(259_200);
    expect(renderCaptureMarkdown(o.summary, 'c.png')).toContain(
      "**The lines span 3 days:** the rate above and workload.json's per-second curve describe that span (statements over 259,200 s), not a load the server carried",
    );
    const day = await captureLines([json(find(T0, 'conn1')), json(find(T0 + 3_600_000, 'conn1'))]);
    expect(renderCaptureMarkdown(day.summary, 'c.png')).not.toContain('The lines span');
  });

  it('every duration at or above 100 ms: the slow tail, slowms 100 suggested; a shorter one bounds slowms', async () => {
    const slow = [110, 2086, 100].map((d, i) => {
      const e = find(T0 + i, 'conn1');
      e.attr.durationMillis = d;
      return json(e);
    });
    const tail = await captureLines(slow);
    expect(tail.workload.capturedFrom?.slowms).toEqual({
      shortestMillis: 100,
      slowTail: true,
      suggested: 100,
    });
    expect(renderCaptureMarkdown(tail.summary, 'c.png')).toContain(
      '**The slow tail, not the load.** Every logged operation took 100 ms or more, at or above the default slowms of 100 ms',
    );
    // 8.0 and later compare slowms with workingMillis: the Manual's 8.0 line took 101 ms, 89 of them working
    const line80 = await captureFromLogs([join(LOGS, '8.0.log')]);
    expect(line80.workload.capturedFrom?.slowms).toEqual({
      shortestMillis: 89,
      slowTail: false,
      suggested: 89,
    });
    const all = await captureLines([...slow, json(find(T0 + 9, 'conn1'))]); // line 3 of 2025-before-8.0.log: 0 ms
    expect(all.workload.capturedFrom?.slowms).toEqual({
      shortestMillis: 0,
      slowTail: false,
      suggested: 0,
    });
    expect(renderCaptureMarkdown(all.summary, 'c.png')).toContain(
      'The shortest logged operation took 0 ms: the server logged with slowms at most 0 (every operation)',
    );
  });

  it("workload.json names its sources by base name, with line counts and each file's SHA-256 (a .gz file's bytes)", async () => {
    const plain = logFile([json(find(T0, 'conn1')), '', json(find(T0 + 1, 'conn1'))]);
    const gz = join(dir, 'mongod.log.2.gz');
    writeFileSync(gz, gzipSync(readFileSync(plain)));
    const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
    const o = await captureFromLogs([plain, gz]);
    expect(o.workload.capturedFrom).toEqual({
      kind: 'log',
      sources: [
        { name: plain.slice(dir.length + 1), lines: 3, sha256: sha(plain) },
        { name: 'mongod.log.2.gz', lines: 3, sha256: sha(gz) },
      ],
      slowms: { shortestMillis: 0, slowTail: false, suggested: 0 },
    });
    expect(JSON.stringify(o.workload)).not.toContain(dir);
    // written, then read back by run --workload-file (which hashes the file it reads)
    const out = join(dir, 'written');
    await writeCapture(out, o);
    const file = readWorkloadFile(join(out, 'workload.json'));
    expect(file.capturedFrom).toEqual(o.workload.capturedFrom);
    expect(file.sha256).toBe(sha(join(out, 'workload.json')));
    expect(readFileSync(join(out, 'capture.md'), 'utf8')).toContain(
      `- \`mongod.log.2.gz\`: 3 lines, sha256 \`${sha(gz)}\``,
    );
  });
});

describe('formats after 8.0', () => {
  it("master's wrapped truncation report ({truncated, omitted}): an insert cut in its documents is kept, a cut filter is skipped naming it", async () => {
    const o = await captureLines([
      json(truncatedInsertWrapped(T0, 'conn1')),
      json(truncatedUpdateWrapped()),
    ]);
    expect(o.summary.shapes.map((s) => `${s.type} ${s.ns} ${s.count}`)).toEqual([
      'insert my_db.school 1',
    ]);
    expect(o.summary.truncatedInsertsKept).toBe(1);
    const truncated = o.summary.skipped.find(
      (s) => s.reason === 'truncated by the server (maxLogSizeKB)',
    );
    expect(truncated?.examples).toEqual([
      expect.stringMatching(
        /:2: cut: attr\.command\.q\._id\.\$in\.4 on testcase\.samplecollection: its command's q \(the filter a replay needs\) is incomplete$/,
      ),
    ]);
  });

  it("a shard's aggregate marked fromRouter is skipped as the shard's half of a split pipeline", async () => {
    const agg = realLine('2025-before-8.0.log', 1) as {
      attr: { command: Record<string, unknown> };
    };
    agg.attr.command.fromRouter = true;
    const o = await captureLines([json(agg), json(find(T0, 'conn1'))]);
    expect(o.summary.skipped).toEqual([
      {
        reason: "forwarded by a mongos (a shard's part of a split pipeline)",
        count: 1,
        examples: [expect.stringMatching(/:1: aggregate on test\.pizzas with fromRouter$/)],
      },
    ]);
    expect(JSON.stringify(o.workload)).not.toMatch(/fromRouter|fromMongos/);
  });
});
