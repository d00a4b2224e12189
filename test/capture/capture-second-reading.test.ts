/**
 * What ordinary applications log, read the way the server writes it: truncated inserts, writes logged
 * without their statements, sampled logs, truncated profile entries, failed ops, shard logs, compose
 * prefixes. The fixtures are real lines changed as the server's source says (./second-reading-log).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureFromLogs, renderCaptureMarkdown } from '../../lib/capture';
import type { CaptureOutcome } from '../../lib/capture';
import { CaptureBuilder } from '../../lib/capture/capture';
import { parseLogLine } from '../../lib/capture/log-line';
import { servedFromProfile } from '../../lib/capture/profiler';
import { SYNTHETIC_UPDATE_KEYS } from '../../lib/capture/statements';
import { RUN_DEFAULTS } from '../../lib/run/options/run-options';
import { parseOps } from '../../lib/workload/language/op-spec';
import { parseWorkloadText } from '../../lib/workload/language/workload-file';
import { prepareWorkload } from '../../lib/workload/engine/compile-ops';
import { runCli } from '../support/cli';
import {
  failedFind,
  find,
  realLine,
  sampledLog,
  sequenceUpdate,
  truncatedInsert,
  updateStatementAndCommand,
} from './second-reading-log';

const LOGS = join(__dirname, '..', 'fixtures', 'capture', 'logs');
const T0 = Date.parse('2025-09-25T23:00:00.000Z');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mb-capture-2nd-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
async function captureLines(
  lines: string[],
  options: Parameters<typeof captureFromLogs>[1] = {},
): Promise<CaptureOutcome> {
  const file = join(dir, `log-${fileNo++}.log`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return captureFromLogs([file], options);
}

const json = (e: unknown) => JSON.stringify(e);
const skippedBy = (o: CaptureOutcome) =>
  Object.fromEntries(o.summary.skipped.map((s) => [s.reason, s.count]));

/** The workload as run --workload-file reads it: parsed, validated, every template compiled. */
function runnable(o: CaptureOutcome): void {
  const file = parseWorkloadText(JSON.stringify(o.workload), 'workload.json');
  prepareWorkload(parseOps(file.ops, { defaultNs: 'mongo_bench.docs' }));
}

describe('entries the server truncated (maxLogSizeKB)', () => {
  it('keeps an insert whose cut attribute is only its documents, with the batch from ninserted', async () => {
    const o = await captureLines([
      json(truncatedInsert(T0, 'conn1')),
      json(truncatedInsert(T0 + 5, 'conn1')),
    ]);
    expect(o.summary.shapes).toHaveLength(1);
    expect(o.summary.shapes[0]).toMatchObject({ type: 'insert', ns: 'my_db.school', count: 2 });
    expect(o.summary.truncatedInsertsKept).toBe(2);
    expect((o.workload.ops[0].doc as unknown[]).length).toBe(3);
    expect(renderCaptureMarkdown(o.summary, 'c.png')).toContain(
      '2 inserts kept although the server cut their logged `documents`',
    );
    runnable(o);
  });

  it('skips an entry whose cut attribute is what the op replays, naming it', async () => {
    const noCount = truncatedInsert(T0, 'conn1');
    delete noCount.attr.ninserted;
    const update = readFileSync(join(LOGS, 'truncated-and-broken.log'), 'utf8').split('\n')[1];
    const o = await captureLines([update, json(noCount), json(find(T0, 'conn2'))]);
    const truncated = o.summary.skipped.find(
      (s) => s.reason === 'truncated by the server (maxLogSizeKB)',
    );
    expect(truncated?.count).toBe(2);
    expect(truncated?.examples[0]).toContain(
      'cut: attr.command.q._id.$in.4 on testcase.samplecollection',
    );
    expect(truncated?.examples[0]).toContain('the filter a replay needs');
    expect(truncated?.examples[1]).toContain('ninserted is missing');
  });
});

describe('updates and deletes logged without their statements', () => {
  it("a document-sequence update (mongod and mongos) counts as one synthetic op that invents nothing of the user's", async () => {
    const o = await captureLines([
      json(sequenceUpdate(T0, 'conn7')),
      json(sequenceUpdate(T0 + 10, 'conn8', true)),
      json(find(T0 + 20, 'conn9')),
    ]);
    const update = o.summary.shapes.find((s) => s.type === 'update');
    expect(update).toMatchObject({
      ns: 'testdb.__examples',
      count: 2,
      synthetic: 'filter unknown',
    });
    expect(o.workload.ops[update!.op]).toEqual({
      op: 'update',
      ns: 'testdb.__examples',
      query: { _id: { '#RAND_INT': [0, SYNTHETIC_UPDATE_KEYS] } },
      update: { $inc: { mb_replayed: 1 } },
      synthetic: 'filter unknown',
      weight: 2,
    });
    expect(skippedBy(o)).toEqual({});
    const md = renderCaptureMarkdown(o.summary, 'c.png');
    expect(md).toContain('update (synthetic: filter unknown)');
    expect(md).toContain("`$inc` of the tool's own field `mb_replayed`");
    runnable(o);
  });

  it("the Go driver's delete without its statement line removes one document the replay inserted", async () => {
    const del = realLine('6.0.11.log', 6);
    const o = await captureLines([json(del), json(truncatedInsert(T0, 'conn3'))]);
    const remove = o.summary.shapes.find((s) => s.type === 'remove');
    expect(remove?.synthetic).toBe('filter unknown');
    expect(o.workload.ops[remove!.op]).toMatchObject({
      op: 'remove',
      ns: 'testdb.__examples',
      query: { capturedBy: 'mongo-bench capture' },
    });
    expect(o.workload.ops[remove!.op].multi).toBeUndefined();
    // the inserts carry the mark the synthetic delete removes
    const insert = o.workload.ops[o.summary.shapes.find((s) => s.type === 'insert')!.op];
    expect((insert.doc as Record<string, unknown>[])[0].capturedBy).toBe('mongo-bench capture');
  });

  it("the synthetic update draws among the loader's default _ids", () => {
    expect(SYNTHETIC_UPDATE_KEYS).toBe(RUN_DEFAULTS.docs);
  });
});

describe('statements and commands: the time window, and sampled logs', () => {
  /** What the old pairing (a statement with the next command) gives per update op: s + s(1-s)/(2-s). */
  const biasedShare = (s: number, u: number) => {
    const perUpdate = s + (s * (1 - s)) / (2 - s);
    return (u * perUpdate) / (u * perUpdate + (1 - u) * s);
  };

  it.each([0.1, 0.5])(
    "sampleRate %p: statement lines only, the update share within 1 point of the workload's",
    async (s) => {
      const ops = s === 0.1 ? 200_000 : 40_000;
      const log = sampledLog(ops, 0.3, s, 42);
      const o = await captureLines([log.text.trimEnd()]);
      const trueShare = (log.updates / ops) * 100;
      const update = o.summary.shapes.find((x) => x.type === 'update')!;
      expect(Math.abs(update.sharePercent - trueShare)).toBeLessThan(1);
      expect(o.summary.sampling?.sampled).toBe('detected');
      // The fixture tells the rules apart: the old pairing's share is more than 6 points off.
      expect(Math.abs(biasedShare(s, log.updates / ops) * 100 - trueShare)).toBeGreaterThan(6);
      expect(skippedBy(o)['counted by its statement lines (sampled log)']).toBeGreaterThan(0);
      expect(renderCaptureMarkdown(o.summary, 'c.png')).toContain('Sampled log (detected');
    },
  );

  it('--sampled says so; a log with every line pairs each statement with its command (counted once)', async () => {
    const log = sampledLog(2000, 0.3, 1, 7);
    const all = await captureLines([log.text.trimEnd()]);
    expect(all.summary.sampling).toEqual({ sampled: false, unpairedStatements: 0 });
    expect(all.summary.shapes.find((x) => x.type === 'update')?.count).toBe(log.updates);
    expect(skippedBy(all)['write command already counted by its statements']).toBe(log.updates);
    const opt = await captureLines([log.text.trimEnd()], { sampled: true });
    expect(opt.summary.sampling?.sampled).toBe('option');
    expect(opt.summary.shapes.find((x) => x.type === 'update')?.count).toBe(log.updates);
  });

  it('pairs a statement only when its t lies within [command t - durationMillis, command t]', async () => {
    const [st, cmd] = updateStatementAndCommand(T0, 'conn5', 1, 40);
    // 40 ms before the command's line: inside its window
    (st.t as { $date: string }).$date = new Date(T0).toISOString();
    const inside = await captureLines([json(st), json(cmd)]);
    expect(inside.summary.sampling).toEqual({ sampled: false, unpairedStatements: 0 });
    // 45 ms before: another op's statement (its own command was not logged): a sampled log
    (st.t as { $date: string }).$date = new Date(T0 - 5).toISOString();
    const outside = await captureLines([json(st), json(cmd)]);
    expect(outside.summary.sampling).toEqual({ sampled: 'detected', unpairedStatements: 1 });
    expect(outside.summary.shapes[0].count).toBe(1);
  });

  it('with no statement lines (a mongos log) the commands count', async () => {
    const lines = Array.from({ length: 5 }, (_, i) =>
      json(sequenceUpdate(T0 + i * 10, 'conn4', true)),
    );
    const o = await captureLines(lines, { sampled: true });
    expect(o.summary.shapes[0]).toMatchObject({ type: 'update', count: 5 });
  });
});

describe('the profiler', () => {
  it('skips a command the profiler truncated ({$truncated: ...}) and never replays a statement without q/u as {}', () => {
    const b = new CaptureBuilder();
    const big = servedFromProfile(
      {
        op: 'update',
        ns: 'shop.orders',
        command: { $truncated: '{ q: { _id: 1 }, u: { $set: { blob: "xxxx...', comment: 'nightly' },
        millis: 3,
        ts: { $date: '2025-09-24T13:00:01Z' },
        client: '127.0.0.1',
      },
      'shop.system.profile #1',
    );
    const noU = servedFromProfile(
      {
        op: 'update',
        ns: 'shop.orders',
        command: { q: { _id: 2 } },
        millis: 1,
        client: '127.0.0.2',
      },
      'shop.system.profile #2',
    );
    const findDoc = servedFromProfile(
      { op: 'query', ns: 'shop.orders', command: { find: 'orders', filter: { s: 1 } }, millis: 1 },
      'shop.system.profile #3',
    );
    for (const r of [big, noU, findDoc]) {
      if ('skip' in r) throw new Error('expected a served op');
      b.addServed(r.served, r.served.connection);
    }
    const o = b.finish('p', {}, 'placeholder', ['profile']);
    expect(o.summary.shapes.map((s) => s.type)).toEqual(['find']);
    expect(
      o.summary.skipped.find((s) => s.reason === 'truncated by the server (maxLogSizeKB)')
        ?.examples[0],
    ).toContain('{$truncated: ...}');
    expect(o.summary.skipped.find((s) => s.reason === 'does not parse')?.examples[0]).toContain(
      'without its update (u)',
    );
  });
});

describe('failed operations', () => {
  it('are skipped, counted, with examples naming the error; --keep-failed keeps them', async () => {
    const lines = [
      json(find(T0, 'conn1')),
      json(failedFind(T0 + 1, 'conn1')),
      json(failedFind(T0 + 2, 'conn2')),
    ];
    const o = await captureLines(lines);
    expect(o.summary.shapes.map((s) => s.count)).toEqual([1]);
    const failed = o.summary.skipped.find((s) => s.reason === 'failed on the server');
    expect(failed?.count).toBe(2);
    expect(failed?.examples[0]).toMatch(
      /log-\d+\.log:2: find on test\.pizzas: MaxTimeMSExpired \(50\)/,
    );
    expect(renderCaptureMarkdown(o.summary, 'c.png')).toMatch(
      /\| failed on the server \| 2 \|.*MaxTimeMSExpired/,
    );
    const kept = await captureLines(lines, { keepFailed: true });
    expect(kept.summary.shapes.reduce((n, s) => n + s.count, 0)).toBe(3);
    expect(kept.summary.failedKept).toBe(2);
  });

  it('a failed profile document (ok: 0.0) is skipped the same way', () => {
    const r = servedFromProfile(
      {
        op: 'insert',
        ns: 'shop.orders',
        command: { insert: 'orders' },
        ninserted: 0,
        ok: 0,
        errName: 'DuplicateKey',
        errCode: 11000,
        millis: 1,
      },
      '#1',
    );
    expect('served' in r && r.served.failed).toEqual({ errName: 'DuplicateKey', errCode: 11000 });
  });
});

describe("a shard's log", () => {
  it("skips the shard's half of a split pipeline and strips what a mongos added to a find", async () => {
    const agg = realLine('2025-before-8.0.log', 1) as {
      attr: { command: Record<string, unknown> };
    };
    Object.assign(agg.attr.command, {
      fromMongos: true,
      needsMerge: true,
      shardVersion: {
        e: { $oid: '000000000000000000000000' },
        t: { $timestamp: { t: 0, i: 0 } },
        v: { $timestamp: { t: 0, i: 0 } },
      },
    });
    const shardFind = find(T0, 'conn3') as { attr: { command: Record<string, unknown> } };
    Object.assign(shardFind.attr.command, {
      shardVersion: {
        e: { $oid: '000000000000000000000000' },
        t: { $timestamp: { t: 0, i: 0 } },
        v: { $timestamp: { t: 1, i: 3 } },
      },
      databaseVersion: { uuid: { $uuid: '3b4b9e1c-1d7c-4c5b-9b8a-1b7b9c0c0a11' }, lastMod: 1 },
    });
    const o = await captureLines([json(agg), json(shardFind)]);
    expect(skippedBy(o)).toEqual({
      "forwarded by a mongos (a shard's part of a split pipeline)": 1,
    });
    expect(o.summary.forwardedByMongos).toBe(1);
    expect(o.workload.ops[0]).toEqual({
      op: 'find',
      ns: 'test.pizzas',
      query: { size: 'medium' },
      readPreference: { mode: 'primaryPreferred' },
      weight: 1,
    });
    expect(renderCaptureMarkdown(o.summary, 'c.png')).toContain('1 statements came from a mongos');
  });
});

describe('smaller things', () => {
  it('reads lines pasted from docker compose logs; refuses another prefix with a hint', async () => {
    const line = realLine('2025-before-8.0.log', 2);
    const o = await captureLines([`db_1  | ${json(line)}`, `mongo-1  | ${json(line)}`]);
    expect(o.summary.composePrefixesStripped).toBe(2);
    expect(o.summary.shapes[0].count).toBe(2);
    const bad = parseLogLine(`2025-09-24T13:21:32.148Z stdout F ${json(line)}`, 'x:1');
    expect(bad && 'skip' in bad && bad.skip.detail).toContain('--no-log-prefix');
  });

  it('capture.md calls a find\'s projection "projection"', async () => {
    const o = await captureFromLogs([join(LOGS, '6.0.11.log')]);
    const vehicles = o.summary.shapes.find((s) => s.ns === 'testdb.vehicles' && s.type === 'find');
    expect(vehicles?.description).toContain('"projection":{"_id":0,"color":1,"brand":11}');
    expect(vehicles?.description).not.toContain('"filter"');
  });

  it('the last progress line counts every line read', async () => {
    const file = join(dir, 'progress.log');
    const line = json(find(T0, 'conn1'));
    writeFileSync(file, `${Array.from({ length: 12_345 }, () => line).join('\n')}\n\n`);
    const { code, stderr } = await runCli(['capture', file, '--out', join(dir, 'progress-out')]);
    expect(code).toBe(0);
    expect(stderr).toContain('capture: 12,346 lines read');
  });
});
