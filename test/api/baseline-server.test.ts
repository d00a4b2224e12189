/**
 * A baseline belongs to one server (issue 25, point 3): expectNoRegression says when it records one,
 * and a baseline from another server (product, version, test double or not) is refused, before the
 * benchmark runs when benchmarkWorkload is told the baseline.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { benchmarkWorkload, expectNoRegression, ResultDocument, UsageError } from 'mongo-bench';
import { serverDifference } from '../../lib/api/baseline-server';
import { describeTarget } from '../../lib/server/connect';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

const COMMITTED = join(__dirname, 'baselines', 'orders-test-double.json');

function committedBaseline(): ResultDocument {
  return JSON.parse(readFileSync(COMMITTED, 'utf8')) as ResultDocument;
}

describe('serverDifference', () => {
  const mongo70 = { serverVersion: '7.0.14' };
  it('is undefined for the same server, and for fields only one side has', () => {
    expect(
      serverDifference(mongo70, { serverVersion: '7.0.14', testDouble: false }),
    ).toBeUndefined();
    expect(
      serverDifference(
        { serverVersion: '7.0.14', product: { name: 'MongoDB', version: '7.0.14' } },
        mongo70,
      ),
    ).toBeUndefined();
    expect(serverDifference({}, mongo70)).toBeUndefined();
  });
  it('names a different version, a test double against MongoDB, and another product', () => {
    expect(serverDifference(mongo70, { serverVersion: '8.0.4' })).toMatch(
      /server version "7\.0\.14" vs "8\.0\.4"/,
    );
    expect(serverDifference(mongo70, { serverVersion: '7.0.14', testDouble: true })).toMatch(
      /test double false vs true/,
    );
    const ferret = { serverVersion: '7.0.42', product: { name: 'FerretDB', version: '1.24.2' } };
    const mongo = { serverVersion: '7.0.42', product: { name: 'MongoDB', version: '7.0.42' } };
    const said = serverDifference(mongo, ferret);
    expect(said).toMatch(/product "MongoDB" vs "FerretDB"/);
    expect(said).toMatch(
      /baseline MongoDB 7\.0\.42, not a test double, reports 7\.0\.42; this one FerretDB 1\.24\.2/,
    );
  });
});

describe('expectNoRegression', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'mb-baseline-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('says when it records a missing baseline (a line jest shows), and where', async () => {
    const path = join(scratch, 'new', 'orders.json');
    const lines: string[] = [];
    const outcome = await expectNoRegression(committedBaseline(), path, {
      ci: false,
      log: (l) => lines.push(l),
    });
    expect(outcome).toEqual({ status: 'baseline-written', path });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`recorded ${path}`);
    expect(lines[0]).toMatch(/1 client: \d+ ops\/s, 4 clients: \d+ ops\/s\); commit it/);
  });

  it('prints that line with console.log by default', async () => {
    const spy = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await expectNoRegression(committedBaseline(), join(scratch, 'default-log.json'), {
        ci: false,
      });
      expect(spy).toHaveBeenCalledWith(expect.stringContaining('no baseline yet: recorded'));
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses a baseline recorded on another server version instead of comparing', async () => {
    const path = join(scratch, 'other-version.json');
    const baseline = committedBaseline();
    writeFileSync(
      path,
      JSON.stringify({ ...baseline, target: { ...baseline.target, serverVersion: '5.0.0' } }),
    );
    await expect(expectNoRegression(committedBaseline(), path, { ci: false })).rejects.toThrow(
      new RegExp(
        `baseline ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the baseline was measured on another server \\(server version "5\\.0\\.0" vs "6\\.0\\.0"\\)`,
      ),
    );
  });
});

describe('benchmarkWorkload with no baseline in CI', () => {
  it('fails at once, before connecting, loading or measuring (CI would throw the recorded baseline away)', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'mb-baseline-ci-'));
    try {
      const path = join(scratch, 'orders.json');
      const events: string[] = [];
      // Nothing listens on port 1: a run that went ahead would fail to connect, not say "no baseline".
      const input = {
        uri: 'mongodb://127.0.0.1:1',
        documents: [{ _id: 1 }],
        ops: [{ op: 'findOne', query: { _id: 1 } }],
        seconds: 30,
        clients: [1],
        baseline: path,
        onEvent: (e: { type: string }) => events.push(e.type),
      };
      const started = Date.now();
      await expect(benchmarkWorkload({ ...input, ci: true })).rejects.toThrow(
        new RegExp(
          `^no baseline at ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: record it outside CI`,
        ),
      );
      expect(Date.now() - started).toBeLessThan(1000);
      expect(events).toEqual([]);
      // The same rule as expectNoRegression's: env CI decides unless `ci` is given.
      const saved = process.env.CI;
      process.env.CI = '1';
      try {
        await expect(benchmarkWorkload(input)).rejects.toThrow(/^no baseline at /);
      } finally {
        if (saved === undefined) delete process.env.CI;
        else process.env.CI = saved;
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describeNeeding('crud', 'benchmarkWorkload with a baseline from another server', () => {
  let scratch: string;
  let client: MongoClient;
  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'mb-baseline-crud-'));
    client = await new MongoClient(crudUri()).connect();
  });
  afterAll(async () => {
    await client.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses before loading or measuring anything', async () => {
    const path = join(scratch, 'mongodb-baseline.json');
    const baseline = committedBaseline();
    // A baseline from a MongoDB server of another version: neither matches this test server.
    writeFileSync(
      path,
      JSON.stringify({
        ...baseline,
        target: {
          uri: 'mongodb://db.example:27017',
          serverVersion: '7.0.14',
          topology: 'standalone',
        },
      }),
    );
    const db = uniqueDbName('baseline_refused');
    const events: string[] = [];
    const attempt = benchmarkWorkload({
      uri: crudUri(),
      ns: `${db}.orders`,
      documents: [{ _id: 1 }, { _id: 2 }],
      ops: [{ op: 'findOne', query: { _id: 1 } }],
      seconds: 5,
      clients: [1],
      baseline: path,
      onEvent: (e) => events.push(e.type),
    });
    await expect(attempt).rejects.toThrow(UsageError);
    await expect(attempt).rejects.toThrow(/the baseline was measured on another server/);
    expect(events).toEqual([]); // never connected for the benchmark
    expect(await client.db(db).collection('orders').countDocuments()).toBe(0); // nothing loaded
  });

  it('goes ahead when the baseline comes from the same server', async () => {
    const path = join(scratch, 'same.json');
    // The committed baseline, as if recorded on this server (the test double's, or a mongod's).
    writeFileSync(
      path,
      JSON.stringify({
        ...committedBaseline(),
        target: await describeTarget(client, crudUri(), false),
      }),
    );
    const db = uniqueDbName('baseline_same');
    const result = await benchmarkWorkload({
      uri: crudUri(),
      ns: `${db}.orders`,
      documents: [{ _id: 1 }],
      ops: [{ op: 'findOne', query: { _id: 1 } }],
      seconds: 1,
      warmup: 0,
      clients: [1],
      baseline: path,
    });
    expect(result.complete).toBe(true);
    await client.db(db).dropDatabase();
  });
});
