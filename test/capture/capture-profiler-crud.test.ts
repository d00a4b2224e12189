/**
 * `capture --uri URI --db NAME` reads the profiler's documents. The CRUD test server has no profiler
 * and (like mongod) refuses writes to system.profile, so a copy of it (`--profile-collection`, as a
 * user keeps one with $out) is seeded with documents shaped as the server writes them (fields of the
 * MongoDB Manual's "Database Profiler Output" page, and of OpDebug::append in src/mongo/db/curop.cpp:
 * op, ns, command, millis, ts, planSummary, queryHash, client); the capture must read them the same
 * way it reads a log.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Long, MongoClient, ObjectId } from 'mongodb';
import { compileTemplate, TemplateScope } from '../../lib/workload/language/template';
import type { CaptureSummary } from '../../lib/capture';
import { parseOps } from '../../lib/workload/language/op-spec';
import { parseWorkloadText } from '../../lib/workload/language/workload-file';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

const LOGS_DIR = join(__dirname, '..', 'fixtures', 'capture', 'logs');

function profileDocs(db: string): Record<string, unknown>[] {
  const ts = (s: number) => new Date(Date.UTC(2025, 8, 24, 13, 0, s));
  const lsid = { id: { $uuid: '6712143d-c644-4e18-a627-555ac42f35e5' } };
  const find = (status: string, s: number) => ({
    op: 'query',
    ns: `${db}.orders`,
    command: { find: 'orders', filter: { status }, lsid, $db: db },
    keysExamined: 0,
    docsExamined: 12,
    nreturned: 4,
    queryHash: 'AB12CD34',
    planCacheKey: 'EF56AB78',
    millis: 3 + s,
    planSummary: 'COLLSCAN',
    ts: ts(s),
    client: '127.0.0.1:51000',
    appName: 'shop',
    user: '',
  });
  const update = (id: number, s: number) => ({
    op: 'update',
    ns: `${db}.orders`,
    command: { q: { _id: id }, u: { $inc: { n: 1 } }, multi: false, upsert: false },
    keysExamined: 1,
    docsExamined: 1,
    nMatched: 1,
    nModified: 1,
    millis: 1,
    planSummary: 'IDHACK',
    ts: ts(s),
    client: '127.0.0.1:51001',
    user: '',
  });
  // The first find left its cursor open (OpDebug::append writes `cursorid`); its getmore names it and
  // carries the find as `originatingCommand`.
  const cursor = Long.fromNumber(8443825196097945);
  return [
    { ...find('A', 1), cursorid: cursor },
    find('B', 2),
    update(1, 3),
    find('A', 4),
    {
      op: 'insert',
      ns: `${db}.orders`,
      command: { insert: 'orders', ordered: true, lsid, $db: db },
      ninserted: 1,
      keysInserted: 1,
      millis: 2,
      ts: ts(5),
      client: '127.0.0.1:51002',
      user: '',
    },
    update(2, 6),
    {
      op: 'getmore',
      ns: `${db}.orders`,
      command: { getMore: cursor, collection: 'orders', $db: db },
      originatingCommand: find('A', 1).command,
      cursorid: cursor,
      nreturned: 2,
      millis: 1,
      ts: ts(7),
      client: '127.0.0.1:51000',
      user: '',
    },
    {
      op: 'command',
      ns: 'admin.$cmd',
      command: { serverStatus: 1, $db: 'admin' },
      millis: 1,
      ts: ts(8),
      client: '127.0.0.1:51003',
      user: '',
    },
  ];
}

describeNeeding(
  'crud',
  'capture --uri: the profiler (system.profile) of the CRUD test server, seeded',
  () => {
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
        const { code, stderr } = await runCli([
          'capture',
          '--uri',
          crudUri(),
          '--db',
          db,
          '--profile-collection',
          'profile_copy',
          '--out',
          out,
        ]);
        expect(stderr).not.toContain('error');
        expect(code).toBe(0);
        const summary = JSON.parse(
          readFileSync(join(out, 'capture.json'), 'utf8'),
        ) as CaptureSummary;
        expect(summary.sources).toEqual([`${crudUri()} ${db}.profile_copy`]);
        expect(summary.shapes.map((s) => [s.type, s.count, s.sharePercent])).toEqual([
          ['find', 3, 50],
          ['update', 2, 33.33],
          ['insert', 1, 16.67],
        ]);
        expect(summary.shapes[0]).toMatchObject({
          shapeHashes: ['AB12CD34'],
          planSummary: 'COLLSCAN',
          latencyMillis: { p50: 5, p95: 7, max: 7 },
        });
        expect(Object.fromEntries(summary.skipped.map((s) => [s.reason, s.count]))).toEqual({
          'getMore (part of its cursor)': 1,
          'internal namespace (admin, config, local)': 1,
        });
        // its find is in the source: the getmore belongs to it, its 1 ms added to the find's shape
        expect(summary.skipped.find((s) => s.reason.startsWith('getMore'))?.examples).toEqual([
          `${db}.profile_copy #7: on ${db}.orders: its opening command is in the source, its time added to it`,
        ]);
        expect(summary.shapes[0].serverMillis).toBe(4 + 5 + 7 + 1);
        // workload.json names the collection read, not the host or the database
        expect(summary.capturedFrom).toEqual({
          kind: 'profiler',
          sources: [{ name: 'profile_copy', documents: 8 }],
          slowms: { shortestMillis: 1, slowTail: false, suggested: 1 },
        });
        expect(summary.opsPerSecond).toBeCloseTo(6 / 5, 5);

        const file = parseWorkloadText(
          readFileSync(join(out, 'workload.json'), 'utf8'),
          'workload.json',
        );
        const specs = parseOps(file.ops, { defaultNs: 'x.y' });
        expect(specs[0]).toMatchObject({
          type: 'find',
          weight: 3,
          query: { status: { '#PICK': { values: ['A', 'B'], weights: [2, 1] } } },
        });
        expect(specs[1]).toMatchObject({
          type: 'update',
          weight: 2,
          query: { _id: { '#PICK': { values: [1, 2], weights: [1, 1] } } },
          update: { $inc: { n: 1 } },
        });
        expect(specs[2]).toMatchObject({ type: 'insert', weight: 1 });
        expect(JSON.stringify(file.ops)).not.toContain('lsid');
      } finally {
        await client.db(db).dropDatabase();
      }
    });

    it('--docs-like: inserts write documents shaped like the sampled collection, and nothing sampled is written unless --keep-sample', async () => {
      const db = uniqueDbName('docs_like');
      const base = Date.UTC(2025, 0, 1);
      const customers = Array.from(
        { length: 200 },
        (_, i) => `customer-${String(i).padStart(4, '0')}`,
      );
      await client
        .db(db)
        .collection('orders')
        .insertMany(
          customers.map((customer, i) => ({
            customer,
            qty: 1 + (i % 10),
            total: 5.5 + i * 2.25,
            paid: i % 10 < 7,
            createdAt: new Date(base + i * 3_600_000),
            address: { city: `city-${i % 7}`, zip: 10000 + i },
          })),
        );
      await client.db(db).collection('profile_copy').insertMany(profileDocs(db));
      try {
        const out = join(dir, 'docs-like');
        const args = [
          'capture',
          '--uri',
          crudUri(),
          '--db',
          db,
          '--profile-collection',
          'profile_copy',
          '--docs-like',
          `${crudUri()}/${db}.orders`,
          '--sample-size',
          '100',
          '--out',
          out,
        ];
        const first = await runCli(args);
        expect(first.stderr).not.toContain('error');
        expect(first.code).toBe(0);
        expect(first.stderr).toContain(
          `inserts will write documents like ${crudUri()} ${db}.orders (100 sampled)`,
        );
        const text = readFileSync(join(out, 'workload.json'), 'utf8');
        for (const customer of customers) expect(text).not.toContain(customer);
        expect(existsSync(join(out, 'sample.json'))).toBe(false);
        const file = parseWorkloadText(text, 'workload.json');
        const specs = parseOps(file.ops, { defaultNs: 'x.y' });
        const insert = specs.find((s) => s.type === 'insert')!;
        // the sampled fields, and capture's mark (what a synthetic delete removes: docs/capture.md)
        expect(Object.keys(insert.doc as object).sort()).toEqual([
          '_id',
          'address',
          'capturedBy',
          'createdAt',
          'customer',
          'paid',
          'qty',
          'total',
        ]);
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a template document, read field by field
        const doc = insert.doc as Record<string, any>;
        expect(doc._id).toEqual({ '#OID': 1 });
        expect(doc.customer).toEqual({ '#RAND_STRING': [13] });
        expect(doc.paid['#PICK'].values).toEqual([true, false]);
        expect(doc.qty['#RAND_INT'][0]).toBeGreaterThanOrEqual(1);
        expect(doc.qty['#RAND_INT'][1]).toBeLessThanOrEqual(11);
        expect(doc.address.zip['#RAND_INT'][0]).toBeGreaterThanOrEqual(10000);
        // Generated documents have the sampled types and lie in the sampled ranges.
        const gen = compileTemplate(insert.doc, 'ops[2].doc', new TemplateScope());
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a generated document, read field by field
        const made = gen(new TemplateScope().newClientState(0, 1)) as Record<string, any>;
        expect(made._id).toBeInstanceOf(ObjectId);
        expect(typeof made.customer).toBe('string');
        expect(made.customer).toHaveLength(13);
        expect(typeof made.paid).toBe('boolean');
        expect(made.createdAt).toBeInstanceOf(Date);
        expect(made.createdAt.getTime()).toBeGreaterThanOrEqual(base);
        expect(made.createdAt.getTime()).toBeLessThan(base + 200 * 3_600_000);
        expect(made.total).toBeGreaterThanOrEqual(5);
        expect(made.total).toBeLessThanOrEqual(5.5 + 199 * 2.25 + 1);
        expect(typeof made.address.city).toBe('string');

        const kept = await runCli([
          ...args.slice(0, -2),
          '--keep-sample',
          '--out',
          join(dir, 'kept-sample'),
        ]);
        expect(kept.code).toBe(0);
        const sample = JSON.parse(
          readFileSync(join(dir, 'kept-sample', 'sample.json'), 'utf8'),
        ) as unknown[];
        expect(sample).toHaveLength(100);
      } finally {
        await client.db(db).dropDatabase();
      }
    });

    it('an empty system.profile says how to turn the profiler on (exit 2); --db without --uri is refused', async () => {
      const db = uniqueDbName('profiler_empty');
      const empty = await runCli([
        'capture',
        '--uri',
        crudUri(),
        '--db',
        db,
        '--out',
        join(dir, 'empty'),
      ]);
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain(`${db}.system.profile is empty: turn the profiler on`);
      const noDocsLike = await runCli(['capture', LOGS_DIR, '--keep-sample']);
      expect(noDocsLike.code).toBe(2);
      expect(noDocsLike.stderr).toContain('option --keep-sample needs --docs-like');
      const badDocsLike = await runCli(['capture', LOGS_DIR, '--docs-like', 'orders']);
      expect(badDocsLike.code).toBe(2);
      expect(badDocsLike.stderr).toContain('option --docs-like: expected URI/database.collection');
      const noUri = await runCli(['capture', '--db', db]);
      expect(noUri.code).toBe(2);
      expect(noUri.stderr).toContain('option --db needs --uri');
    });
  },
);
