/**
 * The readModifyWrite op (YCSB's READ-MODIFY-WRITE, lib/workload/language/ops/read-modify-write.ts): what it
 * sends, as the recording server receives it, how it fails, and how the op spec refuses a bad one.
 */
import { MongoClient, MongoServerError } from 'mongodb';
import { RecordingServer, startRecordingServer } from '../support/recording-server';
import { bindWorkload, prepareWorkload } from '../../lib/workload/engine/compile-ops';
import { opClass, parseOps } from '../../lib/workload/language/op-spec';
import { workloadCounting } from '../../lib/workload/engine/op-figures';
import { renderLegacyBenchRunScript } from '../../lib/workload/language/legacy-script';
import { usageMessage } from '../support/cli';
import { unplannedWrites } from '../../lib/workload/engine/write-handles';

/** These tests bind ops on servers they start themselves, with no write plan. */
const TEST_WRITES = unplannedWrites('test/workload/op-read-modify-write.test.ts');

const NS = 'bench.docs';

describe('readModifyWrite', () => {
  let server: RecordingServer;
  let client: MongoClient;

  beforeAll(async () => {
    server = await startRecordingServer({
      handlers: {
        update: (body) =>
          body.update === 'dup'
            ? {
                n: 0,
                nModified: 0,
                writeErrors: [{ index: 0, code: 11000, errmsg: 'E11000 duplicate key error' }],
                ok: 1,
              }
            : undefined,
      },
    });
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 3000 });
    await client.connect();
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('reads the record (find, limit 1, singleBatch) then updates it with the same query, in one op', async () => {
    const prepared = prepareWorkload(
      parseOps(
        [
          {
            op: 'readModifyWrite',
            query: { _id: { '#RAND_INT': [0, 1000] } },
            update: { $set: { f: 1 } },
            writeConcern: { w: 1 },
          },
        ],
        { defaultNs: NS },
      ),
    );
    const [op] = bindWorkload(prepared, client, { writes: TEST_WRITES, maxTimeMS: 250 });
    expect(op.type).toBe('readModifyWrite');
    expect(op.opClass).toBe('write');
    server.clear();
    await op.run(prepared.scope.newClientState(0, 1));
    const commands = server.userCommands().filter((c) => c.name !== 'ping');
    expect(commands.map((c) => c.name)).toEqual(['find', 'update']);
    const [find, update] = commands.map((c) => c.body);
    expect(find).toEqual({
      find: 'docs',
      filter: { _id: expect.any(Number) },
      limit: 1,
      singleBatch: true,
      maxTimeMS: 250,
    });
    expect(update).toEqual({
      update: 'docs',
      updates: [{ q: find.filter, u: { $set: { f: 1 } }, multi: false, upsert: false }],
      writeConcern: { w: 1 },
    });
  });

  it("fails the op when the update's reply carries a write error", async () => {
    const prepared = prepareWorkload(
      parseOps(
        [{ op: 'readModifyWrite', ns: 'bench.dup', query: { _id: 1 }, update: { $set: { f: 1 } } }],
        { defaultNs: NS },
      ),
    );
    const [op] = bindWorkload(prepared, client, { writes: TEST_WRITES });
    await expect(op.run(prepared.scope.newClientState(0, 1))).rejects.toBeInstanceOf(
      MongoServerError,
    );
  });

  it('needs an update of operators, and is not benchRun’s: the legacy script and the opcounter check say so', () => {
    expect(
      usageMessage(() => parseOps([{ op: 'readModifyWrite', query: {} }], { defaultNs: NS })),
    ).toBe('ops[0].update: required for op "readModifyWrite"');
    expect(
      usageMessage(() =>
        parseOps([{ op: 'readModifyWrite', update: { f: 1 } }], { defaultNs: NS }),
      ),
    ).toMatch(/^ops\[0\]\.update: expected update operators only/);
    expect(
      usageMessage(() =>
        parseOps([{ op: 'readModifyWrite', update: { $set: { f: 1 } }, multi: true }], {
          defaultNs: NS,
        }),
      ),
    ).toMatch(/^ops\[0\]\.multi: not valid for op "readModifyWrite"/);
    expect(opClass({ type: 'readModifyWrite' })).toBe('write');
    const ops = [{ op: 'readModifyWrite', query: { _id: 1 }, update: { $set: { f: 1 } } }];
    expect(renderLegacyBenchRunScript({ workload: { name: 'rmw', ops } })).toContain(
      "// Warning: readModifyWrite is mongo-bench's op, not benchRun's: the legacy shell refuses it.",
    );
    expect(workloadCounting(ops).multiCommandOps).toBe(true);
    expect(
      workloadCounting([{ op: 'update', query: {}, update: { $set: { f: 1 } } }]).multiCommandOps,
    ).toBeUndefined();
  });
});
