import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { resolveRunOptions } from '../../lib/run/options/run-options';
import { runBenchmark } from '../../lib/run/benchmark';
import { ResultDocument } from '../../lib/result';
import { resultFacts } from '../../lib/report/describe';
import { ycsbKeyName } from '../../lib/workload/language/ycsb-keys';
import { YCSB_FIELDS } from '../../lib/workload/language/ycsb-workloads';

const RECORDS = 200;
const WORKLOADS = ['ycsb-a', 'ycsb-d', 'ycsb-e', 'ycsb-f'] as const;
type Ran = (typeof WORKLOADS)[number];

describeNeeding('crud', "YCSB's core workloads against the CRUD test server", () => {
  let client: MongoClient;
  let outDir: string;
  const dbs = Object.fromEntries(
    WORKLOADS.map((name) => [name, uniqueDbName(name.replace('-', '_'))]),
  ) as Record<Ran, string>;
  const results = {} as Record<Ran, ResultDocument>;
  const loadedKeys = Array.from({ length: RECORDS }, (_, k) => ycsbKeyName(k));

  beforeAll(async () => {
    client = await new MongoClient(crudUri(), { serverSelectionTimeoutMS: 5000 }).connect();
    outDir = mkdtempSync(join(tmpdir(), 'mb-ycsb-'));
    // The four runs at once, each in its own database: the shares and counts asserted do not depend on speed.
    await Promise.all(
      WORKLOADS.map(async (workload) => {
        const options = {
          uri: crudUri(),
          workload,
          ns: `${dbs[workload]}.usertable`,
          docs: RECORDS,
          clients: [4],
          seconds: workload === 'ycsb-a' || workload === 'ycsb-f' ? 2 : 1,
          warmup: 0,
          seed: 11,
          out: join(outDir, workload),
          serverStats: false,
        };
        results[workload] = await runBenchmark(resolveRunOptions(options));
      }),
    );
  });

  afterAll(async () => {
    await Promise.all(WORKLOADS.map((name) => client?.db(dbs[name]).dropDatabase()));
    await client?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('ycsb-a loads YCSB records and runs reads and one-field updates 50/50 within a binomial bound', async () => {
    const result = results['ycsb-a'];
    expect(result.complete).toBe(true);
    const [step] = result.steps;
    expect(step.ops.errors).toBe(0);
    const n = step.ops.reads + step.ops.writes;
    // Speed is not asserted: a loaded machine runs a few dozen ops, a quiet one hundreds. The bound is for the
    // count the run made: each op a read or an update with probability 1/2, within 4 standard deviations of n/2
    // (test/workload/ycsb-workloads.test.ts checks the shares of 10,000 draws without a server).
    expect(n).toBeGreaterThan(0);
    // Both kinds ran (one missing from 16 ops on has a chance of 2^-15).
    if (n >= 16) expect(Math.min(step.ops.reads, step.ops.writes)).toBeGreaterThan(0);
    expect(Math.abs(step.ops.reads - n / 2)).toBeLessThanOrEqual(4 * Math.sqrt(n / 4));
    expect(step.latencyByOpMicros?.findOne.count).toBe(step.ops.reads);
    expect(step.latencyByOpMicros?.update.count).toBe(step.ops.writes);

    // The records: YCSB's keys for 0..N-1, field0..field9 of 100 characters, after the updates as before.
    const docs = await client
      .db(dbs['ycsb-a'])
      .collection<{ _id: string }>('usertable')
      .find()
      .toArray();
    expect(docs).toHaveLength(RECORDS);
    expect(new Set(docs.map((d) => d._id))).toEqual(new Set(loadedKeys));
    const misshapen = docs.filter((doc) => {
      const fields = doc as Record<string, unknown>;
      return (
        Object.keys(doc).length !== 11 ||
        YCSB_FIELDS.some(
          (f) => typeof fields[f] !== 'string' || !/^[A-Za-z0-9+/]{100}$/.test(fields[f] as string),
        )
      );
    });
    expect(misshapen).toEqual([]);
    // Its own set-up loaded them: the result says so and gives no --doc-size, nor does the chart.
    expect(result.workload.ownData).toBe(true);
    expect(result.workload.docSize).toBeUndefined();
    expect(resultFacts(result).docSize).toBe("the workload's own documents");
  });

  it('ycsb-d and ycsb-e insert whole records under new YCSB keys beside their reads and scans', async () => {
    for (const name of ['ycsb-d', 'ycsb-e'] as const) {
      const [step] = results[name].steps;
      expect(step.ops.errors).toBe(0);
      const n = step.ops.reads + step.ops.writes;
      expect(n).toBeGreaterThan(0);
      // 95% reads (scans for E): none in 4 ops or more has a chance of 6e-6.
      if (n >= 4) expect(step.ops.reads).toBeGreaterThan(0);
      const coll = client.db(dbs[name]).collection<{ _id: string }>('usertable');
      const inserted = await coll.find({ _id: { $nin: loadedKeys } }).toArray();
      expect(inserted).toHaveLength(step.ops.writes);
      expect(await coll.countDocuments()).toBe(RECORDS + step.ops.writes);
      for (const doc of inserted) expect(Object.keys(doc)).toEqual(['_id', ...YCSB_FIELDS]);
      for (const doc of inserted) expect(doc._id).toMatch(/^user\d+$/);
    }
    // E's scans are `command` ops (a find command); an insert may not have come up in a short run.
    const e = results['ycsb-e'].steps[0];
    expect(
      Object.keys(e.latencyByOpMicros ?? {}).filter((op) => op !== 'command' && op !== 'insert'),
    ).toEqual([]);
    expect(e.latencyByOpMicros?.command?.count ?? 0).toBe(e.ops.reads);
  });

  it('ycsb-f reports its read-modify-writes as their own op', async () => {
    const [step] = results['ycsb-f'].steps;
    expect(step.ops.errors).toBe(0);
    // Its own row, beside findOne's: each read-modify-write counted once, as a write.
    expect(
      Object.keys(step.latencyByOpMicros ?? {}).filter(
        (op) => op !== 'findOne' && op !== 'readModifyWrite',
      ),
    ).toEqual([]);
    expect(step.latencyByOpMicros?.readModifyWrite?.count ?? 0).toBe(step.ops.writes);
    expect(step.latencyByOpMicros?.findOne?.count ?? 0).toBe(step.ops.reads);
    // Half the ops: none in 16 or more has a chance of 2^-16.
    if (step.ops.reads + step.ops.writes >= 16) expect(step.ops.writes).toBeGreaterThan(0);
    // Each read-modify-write rewrote one field: the records keep their shape.
    const docs = await client.db(dbs['ycsb-f']).collection('usertable').find().toArray();
    expect(docs).toHaveLength(RECORDS);
    expect(
      docs.filter(
        (doc) =>
          Object.keys(doc).length !== 11 ||
          YCSB_FIELDS.some((f) => (doc[f] as string).length !== 100),
      ),
    ).toEqual([]);
  });
});
