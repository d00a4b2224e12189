/**
 * `run --docs-like` on the CRUD test server: the loader writes documents shaped like a sampled
 * collection (field types, string sizes, number and date ranges, nested documents) instead of its own
 * shape, from each of the option's three sources, and no sampled value is loaded.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document, MongoClient, ObjectId } from 'mongodb';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

const LOGS = join(__dirname, '..', 'fixtures', 'capture', 'logs');
const FIRST = Date.UTC(2025, 0, 1);
const LAST = Date.UTC(2025, 5, 30);

/** The user's collection: 60 documents with a code of 9 characters, a quantity 5..64, a flag, a date, an address. */
function userDocs(): Document[] {
  return Array.from({ length: 60 }, (_, i) => ({
    _id: new ObjectId(),
    sku: `SKU-${String(10000 + i * 7)}`,
    qty: 5 + i,
    active: i % 5 !== 0,
    at: new Date(FIRST + Math.round(((LAST - FIRST) * i) / 59)),
    address: { city: `City${String(i).padStart(2, '0')}`, zip: 10000 + i },
  }));
}

/** Every loaded document has the user's shape (and none of the built-in loader's fields), with no sampled value. */
function expectShapedLikeUsers(loaded: Document[], docs: number, source: Document[]): void {
  expect(loaded).toHaveLength(docs);
  expect(loaded.map((d) => d._id as number).sort((a, b) => a - b)).toEqual(
    Array.from({ length: docs }, (_, i) => i),
  );
  const skus = new Set(source.map((d) => d.sku as string));
  for (const d of loaded) {
    expect(Object.keys(d).sort()).toEqual(['_id', 'active', 'address', 'at', 'qty', 'sku']);
    expect(typeof d.sku).toBe('string');
    expect((d.sku as string).length).toBe(9);
    expect(skus.has(d.sku as string)).toBe(false);
    expect(Number.isInteger(d.qty)).toBe(true);
    expect(d.qty).toBeGreaterThanOrEqual(5);
    expect(d.qty).toBeLessThanOrEqual(64);
    expect(typeof d.active).toBe('boolean');
    expect(d.at).toBeInstanceOf(Date);
    expect((d.at as Date).getTime()).toBeGreaterThanOrEqual(FIRST);
    expect((d.at as Date).getTime()).toBeLessThanOrEqual(LAST);
    expect(typeof (d.address as Document).city).toBe('string');
    expect(((d.address as Document).city as string).length).toBe(6);
    expect(Number.isInteger((d.address as Document).zip)).toBe(true);
  }
  // The flag keeps about its proportion (4 in 5 true): far from all or none over 300 documents.
  const trues = loaded.filter((d) => d.active === true).length / loaded.length;
  expect(trues).toBeGreaterThan(0.6);
  expect(trues).toBeLessThan(0.95);
}

describeNeeding(
  'crud',
  "run --docs-like: the loader writes documents like the user's (CRUD test server)",
  () => {
    let dir: string;
    let client: MongoClient;
    let db: string;
    let source: Document[];
    let workloadFile: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mb-run-docs-like-'));
      client = new MongoClient(crudUri());
      await client.connect();
      db = uniqueDbName('docs_like');
      source = userDocs();
      await client.db(db).collection('users').insertMany(source);
      workloadFile = join(dir, 'reads.json');
      writeFileSync(
        workloadFile,
        JSON.stringify([{ op: 'findOne', query: { qty: { '#RAND_INT': [5, 65] } } }]),
      );
    });
    afterAll(async () => {
      rmSync(dir, { recursive: true, force: true });
      await client.db(db).dropDatabase();
      await client.close();
    });

    async function runLoading(ns: string, docsLike: string): Promise<string> {
      const run = await runCli([
        'run',
        '--uri',
        crudUri(),
        '--ns',
        ns,
        '--docs',
        '300',
        '--docs-like',
        docsLike,
        '--workload-file',
        workloadFile,
        '--clients',
        '1',
        '--seconds',
        '1',
        '--warmup',
        '0',
        '--out',
        join(dir, ns),
        '--workers',
        '1',
      ]);
      expect(run.stderr).not.toContain('error');
      expect(run.code).toBe(0);
      return run.stdout + run.stderr;
    }

    it('mongodb://HOST/db.coll: samples that collection and loads documents of its shape', async () => {
      const uri = new URL(crudUri());
      const output = await runLoading(`${db}.from_uri`, `mongodb://${uri.host}/${db}.users`);
      expect(output).toContain(
        `[load] 300 documents like mongodb://${uri.host} ${db}.users into ${db}.from_uri`,
      );
      expectShapedLikeUsers(
        await client.db(db).collection('from_uri').find().toArray(),
        300,
        source,
      );
    });

    it("db.coll: samples the collection on the run's own target", async () => {
      const output = await runLoading(`${db}.from_ns`, `${db}.users`);
      expect(output).toContain(
        `[load] 300 documents like ${db}.users on the target into ${db}.from_ns`,
      );
      expectShapedLikeUsers(
        await client.db(db).collection('from_ns').find().toArray(),
        300,
        source,
      );
    });

    it('a capture folder: the template capture --docs-like saved (docs-like.json, no sampled value in it)', async () => {
      const uri = new URL(crudUri());
      const captured = join(dir, 'capture');
      const capture = await runCli([
        'capture',
        join(LOGS, '8.0.log'),
        '--out',
        captured,
        '--docs-like',
        `mongodb://${uri.host}/${db}.users`,
      ]);
      expect(capture.code).toBe(0);
      const saved = readFileSync(join(captured, 'docs-like.json'), 'utf8');
      for (const d of source) expect(saved).not.toContain(d.sku as string);
      await runLoading(`${db}.from_capture`, captured);
      expectShapedLikeUsers(
        await client.db(db).collection('from_capture').find().toArray(),
        300,
        source,
      );
    });

    it('says what is wrong: with --no-load, a missing file, a folder without docs-like.json', async () => {
      const base = [
        'run',
        '--uri',
        crudUri(),
        '--workload-file',
        workloadFile,
        '--clients',
        '1',
        '--seconds',
        '1',
        '--out',
        join(dir, 'bad'),
      ];
      const noLoad = await runCli([...base, '--docs-like', `${db}.users`, '--no-load']);
      expect(noLoad.code).toBe(2);
      expect(noLoad.stderr).toContain(
        'option --docs-like shapes the documents the loader writes: it cannot be combined with --no-load',
      );
      const missing = await runCli([...base, '--docs-like', join(dir, 'nope', 'docs-like.json')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(
        /option --docs-like: expected a capture folder .* \(no such file\)/,
      );
      const empty = await runCli([...base, '--docs-like', dir]);
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain(`option --docs-like: ${dir} holds no docs-like.json`);
    });
  },
);
