import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { resolveRunOptions } from '../../lib/run/run-options';
import { runBenchmark } from '../../lib/run/benchmark';
import { ycsbKeyName } from '../../lib/workload/language/ycsb-keys';
import { YCSB_FIELDS } from '../../lib/workload/language/ycsb-workloads';

const RECORDS = 200;

describeNeeding('crud', "YCSB's core workloads against the CRUD test server", () => {
  let client: MongoClient;
  let outDir: string;

  beforeAll(async () => {
    client = await new MongoClient(crudUri(), { serverSelectionTimeoutMS: 5000 }).connect();
    outDir = mkdtempSync(join(tmpdir(), 'mb-ycsb-'));
  });

  afterAll(async () => {
    await client?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  const run = (workload: string, db: string, seconds: number, clients: number[]) =>
    runBenchmark(
      resolveRunOptions({ uri: crudUri(), workload, ns: `${db}.usertable`, docs: RECORDS, clients, seconds, warmup: 0, seed: 11, out: join(outDir, workload), serverStats: false }),
    );

  it('ycsb-a loads YCSB records and runs reads and one-field updates 50/50 within a binomial bound', async () => {
    const db = uniqueDbName('ycsb_a');
    try {
      const result = await run('ycsb-a', db, 1, [4]);
      expect(result.complete).toBe(true);
      const [step] = result.steps;
      expect(step.ops.errors).toBe(0);
      const n = step.ops.reads + step.ops.writes;
      // Speed is not asserted (a loaded machine runs a few dozen ops): only that there are enough to judge a share.
      expect(n).toBeGreaterThanOrEqual(20);
      // Each op is drawn read or update with probability 1/2: within 5 standard deviations of n/2 (B's 95/5 is not).
      expect(Math.abs(step.ops.reads - n / 2)).toBeLessThanOrEqual(5 * Math.sqrt(n / 4));
      expect(step.latencyByOpMicros?.findOne.count).toBe(step.ops.reads);
      expect(step.latencyByOpMicros?.update.count).toBe(step.ops.writes);

      // The records: YCSB's keys for 0..N-1, field0..field9 of 100 characters, after the updates as before.
      const coll = client.db(db).collection<{ _id: string }>('usertable');
      const docs = await coll.find().toArray();
      expect(docs).toHaveLength(RECORDS);
      expect(new Set(docs.map((d) => d._id))).toEqual(new Set(Array.from({ length: RECORDS }, (_, i) => ycsbKeyName(i))));
      for (const doc of docs) {
        expect(Object.keys(doc).sort()).toEqual(['_id', ...YCSB_FIELDS].sort());
        for (const field of YCSB_FIELDS) expect((doc as Record<string, unknown>)[field]).toMatch(/^[A-Za-z0-9+/]{100}$/);
      }
    } finally {
      await client.db(db).dropDatabase();
    }
  });

  it('ycsb-d and ycsb-e insert whole records under new YCSB keys; ycsb-f reports its read-modify-writes as their own op', async () => {
    // Three runs at once, each in its own database: the shares and counts asserted do not depend on speed.
    const names = ['ycsb-d', 'ycsb-e', 'ycsb-f'];
    const dbs = names.map((name) => uniqueDbName(name.replace('-', '_')));
    try {
      const [d, e, f] = await Promise.all(names.map((name, i) => run(name, dbs[i], 1, [2])));
      for (const [i, result] of [d, e].entries()) {
        const [step] = result.steps;
        expect(step.ops.errors).toBe(0);
        expect(step.ops.reads).toBeGreaterThan(step.ops.writes);
        const coll = client.db(dbs[i]).collection<{ _id: string }>('usertable');
        const inserted = await coll.find({ _id: { $nin: Array.from({ length: RECORDS }, (_, k) => ycsbKeyName(k)) } }).toArray();
        expect(inserted).toHaveLength(step.ops.writes);
        expect(await coll.countDocuments()).toBe(RECORDS + step.ops.writes);
        for (const doc of inserted) expect(Object.keys(doc)).toEqual(['_id', ...YCSB_FIELDS]);
        for (const doc of inserted) expect(doc._id).toMatch(/^user\d+$/);
      }
      expect(Object.keys(e.steps[0].latencyByOpMicros ?? {}).sort()).toEqual(['command', 'insert']);

      const [step] = f.steps;
      expect(step.ops.errors).toBe(0);
      expect(Object.keys(step.latencyByOpMicros ?? {}).sort()).toEqual(['findOne', 'readModifyWrite']);
      expect(step.latencyByOpMicros?.readModifyWrite.count).toBe(step.ops.writes);
      expect(step.latencyByOpMicros?.findOne.count).toBe(step.ops.reads);
      expect(step.ops.writes).toBeGreaterThan(0);
      // Each read-modify-write rewrote one field: the records keep their shape.
      const docs = await client.db(dbs[2]).collection('usertable').find().toArray();
      expect(docs).toHaveLength(RECORDS);
      for (const doc of docs) expect(Object.keys(doc).sort()).toEqual(['_id', ...YCSB_FIELDS].sort());
    } finally {
      await Promise.all(dbs.map((db) => client.db(db).dropDatabase()));
    }
  });
});
