/**
 * The handles ops write through (lib/workload/engine/write-handles.ts): the workload's part of a checked
 * write plan, the Db an op gets when it is bound, and the refusal, at bind time, of a write op whose
 * namespace the plan does not allow (a command op's by what its document names); reads, a deployment
 * mongo-bench started and a named caller without a plan are not restricted. No server: binding connects
 * to nothing. Then a run whose ops write outside its plan, on the recording server: refused before any
 * write is sent.
 */
import { MongoClient } from 'mongodb';
import { UsageError } from '../../lib/config/errors';
import { bindWorkload, prepareWorkload } from '../../lib/workload/engine/compile-ops';
import {
  OURS,
  unplannedWrites,
  workloadWrites,
  writeHandle,
  WriteScope,
} from '../../lib/workload/engine/write-handles';
import { parseOps } from '../../lib/workload/language/op-spec';
import { runWritePlan, WritePlanOptions } from '../../lib/run/options/run-write-plan';
import { decodeStepWorkload, encodeStepWorkload } from '../../lib/workload/engine/worker-workload';
import { parseSpec, serializeSpec, buildRunSpec } from '../../lib/agents/run-spec';
import { RunOptions } from '../../lib/run/options/run-options';
import { benchmarkOptions } from '../../lib/api/benchmark';
import { runBenchmark } from '../../lib/run/benchmark';
import { liveWorkerThreads, runParallelStep } from '../../lib/workload/engine/parallel-step';
import { RecordingServer, startRecordingServer } from '../support/recording-server';
import { ServerStatusDouble } from '../support/server-status-double';

const NS = 'shop.orders';

/** A client that never connects: client.db() makes a handle without a server. */
const client = new MongoClient('mongodb://127.0.0.1:1', { serverSelectionTimeoutMS: 100 });

function prepared(ops: unknown[]) {
  return prepareWorkload(parseOps(ops, { defaultNs: NS }));
}

/** The refusal binding `ops` under `scope` throws, or undefined when every op is bound. */
function bindRefusal(ops: unknown[], scope: WriteScope): string | undefined {
  try {
    bindWorkload(prepared(ops), client, { writes: scope });
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
}

function planOf(ops: unknown[], origin: 'uri' | 'embedded' = 'uri') {
  const options: WritePlanOptions = {
    ns: NS,
    workload: { name: 'custom', ops } as WritePlanOptions['workload'],
    load: false,
    docs: 1,
  };
  return runWritePlan(options, origin);
}

afterAll(() => client.close());

describe("the workload's part of a checked write plan", () => {
  it("lists each namespace the workload's write ops write, and nothing of the loader, store or marker", () => {
    const plan = runWritePlan(
      {
        ns: NS,
        workload: {
          name: 'custom',
          ops: [
            { op: 'update', query: {}, update: { $set: { a: 1 } } },
            { op: 'insert', ns: 'shop.audit', doc: {} },
            { op: 'findOne', ns: 'shop.products', query: {} },
            { op: 'command', ns: 'reports', command: { dropDatabase: 1 } },
          ],
        } as WritePlanOptions['workload'],
        load: true,
        docs: 10,
      },
      'uri',
      { store: 'mongodb://store/results.runs' },
    );
    expect(workloadWrites(plan)).toEqual({
      kind: 'planned',
      namespaces: ['shop.orders', 'shop.audit', 'reports'],
    });
  });

  it('a plan on a deployment mongo-bench started allows everything', () => {
    expect(workloadWrites(planOf([{ op: 'insert', doc: {} }], 'embedded'))).toEqual(OURS);
  });
});

describe('the handle an op is bound with', () => {
  const planned: WriteScope = { kind: 'planned', namespaces: ['shop.orders', 'reports'] };

  it("is the Db of the op's namespace, for a planned write and for any read", () => {
    const ops = prepared([
      { op: 'update', query: {}, update: { $set: { a: 1 } } },
      { op: 'findOne', ns: 'other.coll', query: {} },
      { op: 'command', ns: 'admin', command: { ping: 1 } },
      { op: 'insert', ns: 'reports.daily', doc: {} },
    ]).ops;
    expect(ops.map((op) => writeHandle(op, client, planned).databaseName)).toEqual([
      'shop',
      'other',
      'admin',
      'reports',
    ]);
  });

  it('refuses a write op outside the plan at bind time, naming its namespace', () => {
    expect(bindRefusal([{ op: 'insert', ns: 'shop.audit', doc: {} }], planned)).toBe(
      "op 0 (insert) writes shop.audit, which is not in the run's checked write plan (it allows the workload to write shop.orders, reports): not sent",
    );
    for (const op of [
      { op: 'update', ns: 'x.y', query: {}, update: { $set: { a: 1 } } },
      { op: 'remove', ns: 'x.y', query: {} },
      { op: 'readModifyWrite', ns: 'x.y', query: {}, update: { $set: { a: 1 } } },
    ])
      expect(bindRefusal([op], planned)).toMatch(
        /^op 0 \(\w+\) writes x\.y, which is not in the run's checked write plan/,
      );
  });

  it("reads a command op's writes from its document: other collections, databases, $out's db", () => {
    const refusal = (command: Record<string, unknown>, ns = 'shop') =>
      bindRefusal([{ op: 'command', ns, command }], planned);
    expect(refusal({ insert: 'orders', documents: [{}] })).toBeUndefined();
    expect(refusal({ insert: 'audit', documents: [{}] })).toContain('writes shop.audit');
    expect(refusal({ renameCollection: 'shop.orders', to: 'shop.old' }, 'admin')).toContain(
      'writes shop.old, which is not',
    );
    expect(
      refusal({ aggregate: 'orders', pipeline: [{ $out: { db: 'x', coll: 'y' } }], cursor: {} }),
    ).toContain('writes x.y');
    // A command the plan cannot read names no collection: its whole database.
    expect(refusal({ reIndex: 'orders' })).toContain('writes database shop, which is not');
    expect(refusal({ reIndex: 'whatever' }, 'reports')).toBeUndefined();
    // Reads, whatever they name; an aggregate without $out or $merge reads.
    expect(refusal({ find: 'secret' }, 'other')).toBeUndefined();
    expect(refusal({ aggregate: 'x', pipeline: [], cursor: {} }, 'other')).toBeUndefined();
    // A namespace made by a template is refused (the plan refused it before anything connected).
    expect(refusal({ insert: { '#RAND_STRING': [4] }, documents: [{}] })).toContain(
      'a namespace made by a template',
    );
  });

  it('an empty plan allows no write, and says so', () => {
    expect(bindRefusal([{ op: 'insert', doc: {} }], { kind: 'planned', namespaces: [] })).toBe(
      "op 0 (insert) writes shop.orders, which is not in the run's checked write plan (it allows the workload no write): not sent",
    );
  });

  it('a deployment mongo-bench started, or a caller without a plan named, is not restricted', () => {
    const ops = [
      { op: 'insert', ns: 'any.where', doc: {} },
      { op: 'command', ns: 'admin', command: { renameCollection: 'a.b', to: 'c.d' } },
    ];
    expect(bindRefusal(ops, OURS)).toBeUndefined();
    expect(bindRefusal(ops, unplannedWrites('this test'))).toBeUndefined();
  });

  it('binds from the plan the run made from the same ops: every op of a workload is allowed', () => {
    const ops = [
      { op: 'update', query: {}, update: { $set: { a: 1 } } },
      { op: 'insert', ns: 'shop.audit', doc: {} },
      { op: 'command', ns: 'admin', command: { renameCollection: 'shop.a', to: 'shop.b' } },
      { op: 'command', ns: 'shop', command: { collMod: 'orders' } },
      { op: 'findOne', ns: 'x.y', query: {} },
    ];
    expect(bindRefusal(ops, workloadWrites(planOf(ops)))).toBeUndefined();
  });
});

describe('the scope travels with the workload', () => {
  const scope: WriteScope = { kind: 'planned', namespaces: ['shop.orders'] };

  it('to a worker thread (structured clone) and back', () => {
    const back = decodeStepWorkload(
      structuredClone(encodeStepWorkload({ ops: [{ op: 'nop' }], ns: NS, writes: scope })),
    );
    expect(back.writes).toEqual(scope);
  });

  it('to agents, in the run spec; a spec without it is not run', () => {
    const input = {
      uri: 'mongodb://h/',
      workload: { ops: [{ op: 'nop' }], ns: NS, writes: scope },
      serverSelectionTimeoutMS: 5000,
      lostAfterMs: 1000,
      label: 'x',
    };
    const { spec, specSha256 } = serializeSpec(buildRunSpec(input));
    const parsed = parseSpec(spec, specSha256);
    expect(parsed).toHaveProperty('spec');
    if ('spec' in parsed) expect(decodeStepWorkload(parsed.spec.workload).writes).toEqual(scope);
    const bare = JSON.parse(spec) as { workload: Record<string, unknown> };
    delete bare.workload.writes;
    const text = JSON.stringify(bare);
    const { specSha256: sha } = serializeSpec(bare as never);
    expect(parseSpec(text, sha)).toEqual({
      error: "the run spec lacks what the workload may write (the run's write plan)",
    });
  });
});

describe('a run whose ops write outside its checked plan (recording server)', () => {
  let server: RecordingServer;

  beforeAll(async () => {
    server = await startRecordingServer({
      handlers: new ServerStatusDouble({ version: '7.0' }).handlers(),
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is refused when its ops are bound, before any write is sent', async () => {
    const ops = [
      { op: 'findOne', query: {} },
      { op: 'update', query: {}, update: { $set: { a: 1 } } },
    ];
    const options: RunOptions = {
      ...benchmarkOptions({
        uri: server.uri,
        ops,
        ns: 'guarded.docs',
        load: false,
        docs: 1,
        clients: [1],
        seconds: 1,
        warmup: 0,
        workers: 1,
        serverStats: false,
      }),
    };
    // The plan its caller made (and the run checks) is another workload's: it writes elsewhere.
    const writePlan = runWritePlan(
      { ...options, workload: { ...options.workload, ops: [{ op: 'findOne', query: {} }] } },
      'uri',
    );
    server.clear();
    await expect(runBenchmark(options, { writePlan })).rejects.toThrow(
      "op 1 (update) writes guarded.docs, which is not in the run's checked write plan (it allows the workload no write): not sent",
    );
    const sent = server.commands.map((c) => c.name);
    expect(sent).toContain('serverStatus');
    expect(sent).not.toContain('update');
  });

  it('a worker thread binds with the scope it was given, and refuses the same way', async () => {
    server.clear();
    await expect(
      runParallelStep({
        uri: server.uri,
        workload: {
          ops: [{ op: 'insert', doc: {} }],
          ns: 'guarded.docs',
          writes: { kind: 'planned', namespaces: ['guarded.other'] },
        },
        plan: { clients: 2, seconds: 1, warmupSeconds: 0, randomSeed: 1 },
        workers: 2,
      }),
    ).rejects.toThrow(
      "op 0 (insert) writes guarded.docs, which is not in the run's checked write plan (it allows the workload to write guarded.other): not sent",
    );
    expect(server.commands.map((c) => c.name)).not.toContain('insert');
    expect(liveWorkerThreads()).toBe(0);
  });
});
