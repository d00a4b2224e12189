/**
 * What each benchRun op sends, as the recording server receives it (docs/workload.md, "What each op
 * sends"): command names and fields per op type, findOne's limit/singleBatch, a multi-batch find read
 * to the end with getMore, and write errors / ok: 0 still failing the op.
 */
import { BSON, MongoClient, MongoServerError, MongoWriteConcernError } from 'mongodb';
import {
  RecordedCommand,
  RecordingServer,
  startRecordingServer,
} from '../support/recording-server';
import { BoundOp, bindWorkload, prepareWorkload } from '../../lib/workload/engine/compile-ops';
import { parseOps } from '../../lib/workload/language/op-spec';
import { ClientState } from '../../lib/workload/language/template';
import { unplannedWrites } from '../../lib/workload/engine/write-handles';

/** These tests bind ops on servers they start themselves, with no write plan. */
const TEST_WRITES = unplannedWrites('test/workload/op-commands.test.ts');

const NS = 'bench.docs';

describe('the commands each op sends', () => {
  let server: RecordingServer;
  let client: MongoClient;
  let getMores = 0;

  beforeAll(async () => {
    server = await startRecordingServer({
      handlers: {
        // A three-batch cursor on "many": firstBatch, then two getMores (cursor 42, then 0).
        find: (body, db) =>
          body.find === 'many'
            ? {
                cursor: {
                  id: BSON.Long.fromNumber(42),
                  ns: `${db}.many`,
                  firstBatch: [{ _id: 1 }, { _id: 2 }],
                },
                ok: 1,
              }
            : undefined,
        getMore: (body, db) => {
          getMores++;
          const last = getMores % 2 === 0;
          return {
            cursor: {
              id: last ? BSON.Long.ZERO : BSON.Long.fromNumber(42),
              ns: `${db}.${String(body.collection)}`,
              nextBatch: [{ _id: 2 + getMores }],
            },
            ok: 1,
          };
        },
        update: (body) =>
          body.update === 'dup'
            ? {
                n: 0,
                nModified: 0,
                writeErrors: [{ index: 0, code: 11000, errmsg: 'E11000 duplicate key error' }],
                ok: 1,
              }
            : undefined,
        insert: (body) =>
          body.insert === 'wce'
            ? {
                n: 1,
                writeConcernError: {
                  code: 64,
                  codeName: 'WriteConcernFailed',
                  errmsg: 'waiting for replication timed out',
                },
                ok: 1,
              }
            : undefined,
        failingCommand: () => ({
          ok: 0,
          errmsg: 'no such command',
          code: 59,
          codeName: 'CommandNotFound',
        }),
      },
    });
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 3000 });
    await client.connect();
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  /** Runs each op once and returns the commands it sent (minus handshake and monitoring). */
  async function sent(
    rawOps: unknown[],
    maxTimeMS?: number,
  ): Promise<{ commands: RecordedCommand[]; ops: BoundOp[]; state: ClientState }> {
    const prepared = prepareWorkload(parseOps(rawOps, { defaultNs: NS }));
    const ops = bindWorkload(prepared, client, { writes: TEST_WRITES, maxTimeMS });
    const state = prepared.scope.newClientState(0, 1);
    server.clear();
    getMores = 0;
    for (const op of ops) await op.run(state);
    const commands = server.userCommands().filter((c) => c.name !== 'ping');
    return { commands, ops, state };
  }

  it('findOne is a find with limit 1 and singleBatch, its filter, projection and maxTimeMS', async () => {
    const { commands } = await sent([{ op: 'findOne', query: { _id: 7 }, filter: { k: 1 } }], 250);
    expect(commands).toHaveLength(1);
    expect(commands[0].db).toBe('bench');
    expect(commands[0].name).toBe('find');
    expect(commands[0].body).toEqual({
      find: 'docs',
      filter: { _id: 7 },
      limit: 1,
      singleBatch: true,
      projection: { k: 1 },
      maxTimeMS: 250,
    });
  });

  it('find reads a multi-batch cursor to its end: getMore until the cursor id is 0, with the op batchSize', async () => {
    const { commands } = await sent([
      { op: 'find', ns: 'bench.many', query: { k: { $gt: 1 } }, batchSize: 2, sort: { k: 1 } },
    ]);
    expect(commands.map((c) => c.name)).toEqual(['find', 'getMore', 'getMore']);
    expect(commands[0].body).toEqual({
      find: 'many',
      filter: { k: { $gt: 1 } },
      sort: { k: 1 },
      batchSize: 2,
    });
    expect(commands[0].body.singleBatch).toBeUndefined();
    for (const getMore of commands.slice(1)) {
      expect(getMore.db).toBe('bench');
      expect(getMore.body).toMatchObject({ collection: 'many', batchSize: 2 });
      expect(BSON.Long.fromValue(getMore.body.getMore as number).toNumber()).toBe(42);
    }
  });

  it('find with a single batch sends no getMore; query is an alias of find', async () => {
    const { commands } = await sent([{ op: 'query', query: {}, limit: 5, skip: 2 }]);
    expect(commands.map((c) => c.name)).toEqual(['find']);
    expect(commands[0].body).toEqual({ find: 'docs', filter: {}, skip: 2, limit: 5 });
  });

  it('update, insert and delete are their write commands, with the op write concern', async () => {
    const wc = { w: 1, j: true, wtimeout: 500 };
    const { commands } = await sent([
      {
        op: 'update',
        query: { _id: 1 },
        update: { $inc: { n: 1 } },
        upsert: true,
        writeConcern: wc,
      },
      { op: 'update', query: { g: 1 }, update: { $set: { x: 2 } }, multi: true },
      { op: 'update', query: { _id: 2 }, update: { whole: 'doc' } },
      { op: 'insert', doc: { _id: 3, a: 1 }, writeConcern: { w: 'majority' } },
      { op: 'insert', doc: [{ a: 1 }, { a: 2 }] },
      { op: 'remove', query: { _id: 4 }, writeConcern: { w: 0 } },
      { op: 'delete', query: { g: 2 }, multi: true },
    ]);
    expect(commands.map((c) => c.name)).toEqual([
      'update',
      'update',
      'update',
      'insert',
      'insert',
      'delete',
      'delete',
    ]);
    const [up1, up2, up3, ins1, ins2, del1, del2] = commands.map((c) => c.body);
    expect(up1).toEqual({
      update: 'docs',
      updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } }, multi: false, upsert: true }],
      writeConcern: wc,
    });
    expect(up2).toEqual({
      update: 'docs',
      updates: [{ q: { g: 1 }, u: { $set: { x: 2 } }, multi: true, upsert: false }],
    });
    expect(up3).toEqual({
      update: 'docs',
      updates: [{ q: { _id: 2 }, u: { whole: 'doc' }, multi: false, upsert: false }],
    });
    expect(ins1).toEqual({
      insert: 'docs',
      documents: [{ _id: 3, a: 1 }],
      writeConcern: { w: 'majority' },
    });
    // Documents without an _id get one here, as the driver's insert helpers did.
    expect(ins2.insert).toBe('docs');
    expect((ins2.documents as Record<string, unknown>[]).map((d) => d.a)).toEqual([1, 2]);
    for (const d of ins2.documents as Record<string, unknown>[])
      expect(d._id).toBeInstanceOf(BSON.ObjectId);
    expect(del1).toEqual({
      delete: 'docs',
      deletes: [{ q: { _id: 4 }, limit: 1 }],
      writeConcern: { w: 0 },
    });
    expect(del2).toEqual({ delete: 'docs', deletes: [{ q: { g: 2 }, limit: 0 }] });
  });

  it("ops without their own write or read concern take the client's (the URI's), as the driver helpers did", async () => {
    const other = new MongoClient(`${server.uri}/?w=majority&readConcernLevel=majority`, {
      serverSelectionTimeoutMS: 3000,
    });
    try {
      await other.connect();
      const prepared = prepareWorkload(
        parseOps(
          [
            { op: 'findOne', query: { _id: 1 } },
            { op: 'remove', query: { _id: 1 } },
          ],
          { defaultNs: NS },
        ),
      );
      const state = prepared.scope.newClientState(0, 1);
      server.clear();
      for (const op of bindWorkload(prepared, other, { writes: TEST_WRITES })) await op.run(state);
      const [find, del] = server.userCommands().filter((c) => c.name !== 'ping');
      expect(find.body).toMatchObject({ find: 'docs', readConcern: { level: 'majority' } });
      expect(del.body).toMatchObject({ delete: 'docs', writeConcern: { w: 'majority' } });
    } finally {
      await other.close();
    }
  });

  it('a command op sends its document as given, on the database of its ns', async () => {
    const { commands } = await sent([
      { op: 'command', ns: 'admin', command: { serverStatus: 1, repl: 0 } },
    ]);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({
      db: 'admin',
      name: 'serverStatus',
      body: { serverStatus: 1, repl: 0 },
    });
  });

  it('write errors, write concern errors and ok: 0 still fail the op, with the server code', async () => {
    const prepared = prepareWorkload(
      parseOps(
        [
          { op: 'update', ns: 'bench.dup', query: { _id: 1 }, update: { $set: { a: 1 } } },
          { op: 'insert', ns: 'bench.wce', doc: { a: 1 } },
          { op: 'command', ns: 'bench', command: { failingCommand: 1 } },
        ],
        { defaultNs: NS },
      ),
    );
    const [update, insert, command] = bindWorkload(prepared, client, { writes: TEST_WRITES });
    const state = prepared.scope.newClientState(0, 1);
    const updateError = await Promise.resolve(update.run(state)).catch((e: unknown) => e);
    expect(updateError).toBeInstanceOf(MongoServerError);
    expect(updateError).toMatchObject({ code: 11000, message: 'E11000 duplicate key error' });
    await expect(insert.run(state)).rejects.toBeInstanceOf(MongoWriteConcernError);
    await expect(command.run(state)).rejects.toMatchObject({
      code: 59,
      codeName: 'CommandNotFound',
    });
  });
});
