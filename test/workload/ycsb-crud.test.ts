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
      const result = await run('ycsb-a', db, 2, [2]);
      expect(result.complete).toBe(true);
      const [step] = result.steps;
      expect(step.ops.errors).toBe(0);
      const n = step.ops.reads + step.ops.writes;
      expect(n).toBeGreaterThan(100);
      // Each op is drawn read or update with probability 1/2: within 5 standard deviations of n/2.
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

  it('ycsb-d and ycsb-e insert whole records under new YCSB keys beside their reads and scans', async () => {
    for (const workload of ['ycsb-d', 'ycsb-e']) {
      const db = uniqueDbName(workload.replace('-', '_'));
      try {
        const result = await run(workload, db, 1, [2]);
        const [step] = result.steps;
        expect(step.ops.errors).toBe(0);
        expect(step.ops.reads).toBeGreaterThan(step.ops.writes);
        const coll = client.db(db).collection<{ _id: string }>('usertable');
        expect(await coll.countDocuments()).toBe(RECORDS + step.ops.writes);
        const inserted = await coll.find({ _id: { $nin: Array.from({ length: RECORDS }, (_, i) => ycsbKeyName(i)) } }).toArray();
        expect(inserted).toHaveLength(step.ops.writes);
        for (const doc of inserted) expect(Object.keys(doc)).toEqual(['_id', ...YCSB_FIELDS]);
        for (const doc of inserted) expect(doc._id).toMatch(/^user\d+$/);
      } finally {
        await client.db(db).dropDatabase();
      }
    }
  });
});
