/**
 * benchRun compatibility (issue 18), checked against the recording server: ns on let/nop and a
 * nop-only workload; a command's cursor read to the end; benchRun's own counting (a command
 * answering ok: 0 is an op and an error, a write error an op only, nop/let in totalOps); typed
 * Extended JSON numbers; benchRun's #RAND_STRING alphabet. Each through both clients (--driver node, wire).
 */
import { BSON, Double, Long } from 'mongodb';
import { startRecordingServer, RecordingServer } from '../support/recording-server';
import { bindWorkload, prepareWorkload } from '../../lib/workload/engine/compile-ops';
import { runStep } from '../../lib/workload/engine/engine';
import { parseOps } from '../../lib/workload/language/op-spec';
import { parseWorkloadText } from '../../lib/workload/language/workload-file';
import { decodeStepWorkload, encodeStepWorkload } from '../../lib/workload/engine/worker-workload';
import { summarizeStep } from '../../lib/workload/engine/op-figures';
import { unplannedWrites } from '../../lib/workload/engine/write-handles';
import { DRIVERS, EngineClient, openEngineClient } from '../../lib/workload/engine/op-client';

/** These tests bind ops on servers they start themselves, with no write plan. */
const TEST_BIND = { writes: unplannedWrites('test/workload/benchrun-compat.test.ts') };

const NS = 'bench.docs';
const TOTAL = 500;
const BATCH = 101;

function compile(raw: unknown[]) {
  return prepareWorkload(parseOps(raw, { defaultNs: NS }));
}

describe.each(DRIVERS)('benchRun compatibility (--driver %s)', (driver) => {
  let server: RecordingServer;
  let engine: EngineClient;
  let client: EngineClient['client'];
  /** Cursor id -> documents still to hand out; a cursor is open while it is here. */
  const open = new Map<string, number>();
  let nextCursor = 100;

  beforeAll(async () => {
    const batch = (n: number) => Array.from({ length: n }, (_, i) => ({ _id: i }));
    server = await startRecordingServer({
      handlers: {
        // A server that batches: 101 documents in the first batch, then 101 per getMore, 500 in all.
        aggregate: (body, db) => {
          if (body.aggregate !== 'big') return undefined;
          const id = nextCursor++;
          open.set(String(id), TOTAL - BATCH);
          return {
            cursor: { id: BSON.Long.fromNumber(id), ns: `${db}.big`, firstBatch: batch(BATCH) },
            ok: 1,
          };
        },
        getMore: (body, db) => {
          const id = String(body.getMore);
          const left = open.get(id) ?? 0;
          const n = Math.min(BATCH, left);
          if (left - n === 0) open.delete(id);
          else open.set(id, left - n);
          return {
            cursor: {
              id: left - n === 0 ? BSON.Long.ZERO : BSON.Long.fromString(id),
              ns: `${db}.${String(body.collection)}`,
              nextBatch: batch(n),
            },
            ok: 1,
          };
        },
        notExist: () => ({
          ok: 0,
          errmsg: 'no such command: notExist',
          code: 59,
          codeName: 'CommandNotFound',
        }),
        insert: (body) =>
          body.insert === 'dup'
            ? {
                n: 0,
                writeErrors: [{ index: 0, code: 11000, errmsg: 'E11000 duplicate key error' }],
                ok: 1,
              }
            : undefined,
      },
    });
    engine = openEngineClient(driver, server.uri, {
      serverSelectionTimeoutMS: 3000,
      maxClients: 2,
    });
    await engine.connect();
    client = engine.client;
  });
  afterAll(async () => {
    await engine?.close();
    await server?.stop();
  });

  it('accepts ns on let and nop (benchRun requires it), and a workload of only nop ops', () => {
    const specs = parseOps(
      [
        { op: 'let', ns: 'test0.t', target: 'x', value: { '#RAND_INT': [0, 10] } },
        { op: 'nop', ns: 'test0.t' },
        { op: 'findOne', ns: 'test0.t', query: { _id: { '#VARIABLE': 'x' } } },
      ],
      { defaultNs: NS },
    );
    expect(specs.map((s) => s.type)).toEqual(['let', 'nop', 'findOne']);
    expect(parseOps([{ op: 'nop', ns: 'test0.t' }], { defaultNs: NS })).toHaveLength(1);
  });

  it('runs a nop-only workload and counts its ops in benchRun totalOps, not as reads or writes', async () => {
    const prepared = compile([{ op: 'nop', ns: 'test0.t' }]);
    const m = await runStep(bindWorkload(prepared, client, TEST_BIND), prepared.scope, {
      clients: 2,
      seconds: 1,
      warmupSeconds: 0,
      randomSeed: 1,
    });
    expect(m.reads + m.writes + m.errors).toBe(0);
    const step = summarizeStep([m]);
    expect(step.benchRun.totalOps).toBeGreaterThan(1000);
    expect(step.benchRun.errCount).toBe(0);
  });

  it('reads all 500 documents of a batched aggregation per op, leaving no cursor open', async () => {
    const prepared = compile([
      { op: 'command', ns: 'bench', command: { aggregate: 'big', pipeline: [], cursor: {} } },
    ]);
    const [op] = bindWorkload(prepared, client, TEST_BIND);
    const state = prepared.scope.newClientState(0, 1);
    server.clear();
    expect(await op.run(state)).toBe(TOTAL);
    expect(await op.run(state)).toBe(TOTAL);
    const names = server.userCommands().map((c) => c.name);
    expect(names.filter((n) => n === 'aggregate')).toHaveLength(2);
    // 101 + 4 x 101 - 4: four getMores per op.
    expect(names.filter((n) => n === 'getMore')).toHaveLength(
      2 * Math.ceil((TOTAL - BATCH) / BATCH),
    );
    expect(open.size).toBe(0);
  });

  it('counts as benchRun does: a command answering ok: 0 is an op and an error, a write error an op only', async () => {
    const prepared = compile([
      { op: 'command', ns: 'bench', command: { notExist: 1 } },
      { op: 'insert', ns: 'bench.dup', doc: { _id: 1 } },
      { op: 'let', target: 'x', value: 1 },
    ]);
    // 31 server ops (YCSB's operationcount) rather than a second: a loaded machine ran 9 passes in one,
    // where more than 10 were wanted; the count ends the step in the middle of its 16th pass.
    const m = await runStep(bindWorkload(prepared, client, TEST_BIND), prepared.scope, {
      clients: 1,
      seconds: 1,
      ops: 31,
      warmupSeconds: 0,
      randomSeed: 1,
    });
    const step = summarizeStep([m]);
    const passes = step.benchRun.commands;
    expect(passes).toBeGreaterThan(10);
    // The window may close anywhere in the last pass (bench.cpp checks shouldStop() before each op).
    const inserts = step.benchRun.inserts;
    expect(passes - inserts).toBeGreaterThanOrEqual(0);
    expect(passes - inserts).toBeLessThanOrEqual(1);
    // mongo-bench's own figures: both server ops failed.
    expect(step.ops).toEqual({ reads: 0, writes: 0, errors: passes + inserts });
    // benchRun's: every op (let included) counted, only the command's ok: 0 an error.
    expect(step.benchRun.totalOps).toBeGreaterThanOrEqual(passes + 2 * inserts - 1);
    expect(step.benchRun.totalOps).toBeLessThanOrEqual(3 * passes);
    expect(step.benchRun.errCount).toBe(passes);
  });

  it('a write op with throwGLE counts its write error as a benchRun error, not an op', async () => {
    const prepared = compile([
      { op: 'insert', ns: 'bench.dup', doc: { _id: 1 }, safe: true, throwGLE: true },
    ]);
    const m = await runStep(bindWorkload(prepared, client, TEST_BIND), prepared.scope, {
      clients: 1,
      seconds: 1,
      warmupSeconds: 0,
      randomSeed: 1,
    });
    const step = summarizeStep([m]);
    expect(step.benchRun.inserts).toBeGreaterThan(0);
    expect(step.benchRun.totalOps).toBe(0);
    expect(step.benchRun.errCount).toBe(step.benchRun.inserts);
  });

  it('keeps $numberLong and $numberDouble typed from the workload file to the wire, across a worker hand-off', () => {
    const file = parseWorkloadText(
      JSON.stringify({
        ops: [
          {
            op: 'insert',
            doc: {
              big: { $numberLong: '42' },
              real: { $numberDouble: '1.0' },
              plain: 7,
              when: { $date: '2024-01-01T00:00:00Z' },
            },
          },
        ],
      }),
      'typed.json',
    );
    const doc = (file.ops[0] as { doc: Record<string, unknown> }).doc;
    expect(doc.big).toBeInstanceOf(Long);
    expect(doc.real).toBeInstanceOf(Double);
    expect(doc.plain).toBe(7);
    expect(doc.when).toBeInstanceOf(Date);
    const crossed = decodeStepWorkload(encodeStepWorkload({ ops: file.ops, ns: NS, ...TEST_BIND }));
    const prepared = prepareWorkload(parseOps(crossed.ops, { defaultNs: NS }));
    const made = prepared.ops[0].doc!(prepared.scope.newClientState(0, 1)) as Record<
      string,
      unknown
    >;
    // BSON element types on the wire: 0x12 int64, 0x01 double, 0x10 int32.
    const bytes = BSON.serialize({ big: made.big, real: made.real, plain: made.plain });
    expect([bytes[4], bytes[4 + 1 + 4 + 8], bytes[4 + 1 + 4 + 8 + 1 + 5 + 8]]).toEqual([
      0x12, 0x01, 0x10,
    ]);
  });

  it("#RAND_STRING draws from benchRun's alphabet (letters, digits, + and /)", () => {
    const prepared = compile([{ op: 'insert', doc: { s: { '#RAND_STRING': [4000] } } }]);
    const s = (prepared.ops[0].doc!(prepared.scope.newClientState(0, 7)) as { s: string }).s;
    expect(s).toMatch(/^[A-Za-z0-9+/]{4000}$/);
    expect(s).toMatch(/[+]/);
    expect(s).toMatch(/[/]/);
  });
});
