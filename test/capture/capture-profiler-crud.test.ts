/**
 * `capture --uri URI --db NAME` reads the profiler's documents. The CRUD test server has no profiler
 * and (like mongod) refuses writes to system.profile, so a copy of it (`--profile-collection`, as a
 * user keeps one with $out) is seeded with documents shaped as the server writes them (fields of the
 * MongoDB Manual's "Database Profiler Output" page, and of OpDebug::append in src/mongo/db/curop.cpp:
 * op, ns, command, millis, ts, planSummary, queryHash, client); the capture must read them the same
 * way it reads a log.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Long, MongoClient } from 'mongodb';
import type { CaptureSummary } from '../../lib/capture';
import { parseOps } from '../../lib/workload/op-spec';
import { parseWorkloadText } from '../../lib/workload/workload-file';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

function profileDocs(db: string): Record<string, unknown>[] {
  const ts = (s: number) => new Date(Date.UTC(2025, 8, 24, 13, 0, s));
  const lsid = { id: { $uuid: '6712143d-c644-4e18-a627-555ac42f35e5' } };
  const find = (status: string, s: number) => ({
    op: 'query', ns: `${db}.orders`, command: { find: 'orders', filter: { status }, lsid, $db: db }, keysExamined: 0, docsExamined: 12,
    nreturned: 4, queryHash: 'AB12CD34', planCacheKey: 'EF56AB78', millis: 3 + s, planSummary: 'COLLSCAN', ts: ts(s), client: '127.0.0.1:51000', appName: 'shop', user: '',
  });
  const update = (id: number, s: number) => ({
    op: 'update', ns: `${db}.orders`, command: { q: { _id: id }, u: { $inc: { n: 1 } }, multi: false, upsert: false }, keysExamined: 1, docsExamined: 1,
    nMatched: 1, nModified: 1, millis: 1, planSummary: 'IDHACK', ts: ts(s), client: '127.0.0.1:51001', user: '',
  });
  return [
    find('A', 1),
    find('B', 2),
    update(1, 3),
    find('A', 4),
    { op: 'insert', ns: `${db}.orders`, command: { insert: 'orders', ordered: true, lsid, $db: db }, ninserted: 1, keysInserted: 1, millis: 2, ts: ts(5), client: '127.0.0.1:51002', user: '' },
    update(2, 6),
    { op: 'getmore', ns: `${db}.orders`, command: { getMore: Long.fromNumber(8443825196097945), collection: 'orders', $db: db }, millis: 1, ts: ts(7), client: '127.0.0.1:51000', user: '' },
    { op: 'command', ns: 'admin.$cmd', command: { serverStatus: 1, $db: 'admin' }, millis: 1, ts: ts(8), client: '127.0.0.1:51003', user: '' },
  ];
}

describeNeeding('crud', 'capture --uri: the profiler (system.profile) of the CRUD test server, seeded', () => {
  let dir: string;
  let client: MongoClient;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-capture-profiler-'));
    client = new MongoClient(crudUri());
    await client.connect();
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await client.close();
  });

  it('reads the profile documents in order into weighted shapes, skipping getMore and internal namespaces', async () => {
    const db = uniqueDbName('profiler');
    await client.db(db).collection('profile_copy').insertMany(profileDocs(db));
    try {
      const out = join(dir, 'profiled');
      const { code, stderr } = await runCli(['capture', '--uri', crudUri(), '--db', db, '--profile-collection', 'profile_copy', '--out', out]);
      expect(stderr).not.toContain('error');
      expect(code).toBe(0);
      const summary = JSON.parse(readFileSync(join(out, 'capture.json'), 'utf8')) as CaptureSummary;
      expect(summary.sources).toEqual([`${crudUri()} ${db}.profile_copy`]);
      expect(summary.shapes.map((s) => [s.type, s.count, s.sharePercent])).toEqual([
        ['find', 3, 50],
        ['update', 2, 33.33],
        ['insert', 1, 16.67],
      ]);
      expect(summary.shapes[0]).toMatchObject({ shapeHashes: ['AB12CD34'], planSummary: 'COLLSCAN', latencyMillis: { p50: 5, p95: 7, max: 7 } });
      expect(Object.fromEntries(summary.skipped.map((s) => [s.reason, s.count]))).toEqual({ 'getMore (part of its cursor)': 1, 'internal namespace (admin, config, local)': 1 });
      expect(summary.skipped.find((s) => s.reason.startsWith('getMore'))?.examples).toEqual([`${db}.profile_copy #7`]);
      expect(summary.opsPerSecond).toBeCloseTo(6 / 5, 5);

      const file = parseWorkloadText(readFileSync(join(out, 'workload.json'), 'utf8'), 'workload.json');
      const specs = parseOps(file.ops, { defaultNs: 'x.y' });
      expect(specs[0]).toMatchObject({ type: 'find', weight: 3, query: { status: { '#PICK': { values: ['A', 'B'], weights: [2, 1] } } } });
      expect(specs[1]).toMatchObject({ type: 'update', weight: 2, query: { _id: { '#PICK': { values: [1, 2], weights: [1, 1] } } }, update: { $inc: { n: 1 } } });
      expect(specs[2]).toMatchObject({ type: 'insert', weight: 1 });
      expect(JSON.stringify(file.ops)).not.toContain('lsid');
    } finally {
      await client.db(db).dropDatabase();
    }
  });

  it('an empty system.profile says how to turn the profiler on (exit 2); --db without --uri is refused', async () => {
    const db = uniqueDbName('profiler_empty');
    const empty = await runCli(['capture', '--uri', crudUri(), '--db', db, '--out', join(dir, 'empty')]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(`${db}.system.profile is empty: turn the profiler on`);
    const noUri = await runCli(['capture', '--db', db]);
    expect(noUri.code).toBe(2);
    expect(noUri.stderr).toContain('option --db needs --uri');
  });
});
