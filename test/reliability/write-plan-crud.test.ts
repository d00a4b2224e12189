/**
 * The write plan end to end on the CRUD test server, a deployment mongo-bench did not start (--uri): each
 * case is a way `run` once destroyed or changed a user's data. The user's collections are checked by a
 * checksum of their documents before and after; a refusal is exit 2 naming the entry (and its consent).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BSON, Document, MongoClient } from 'mongodb';
import { runCli } from '../support/cli';
import { QUICK_RUN } from '../support/quick-run';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

const QUICK = [...QUICK_RUN];
const USERS = [
  { _id: 'alice', email: 'alice@example.com' },
  { _id: 'bob', email: 'bob@example.com' },
];

describeNeeding('crud', 'the write plan on an existing deployment (CRUD test server)', () => {
  let dir: string;
  let client: MongoClient;
  let host: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-write-plan-'));
    client = new MongoClient(crudUri());
    await client.connect();
    host = new URL(crudUri()).host;
  });
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const seed = async (db: string, coll: string, docs: Document[] = USERS) => {
    await client
      .db(db)
      .collection(coll)
      .insertMany(docs.map((d) => ({ ...d })));
  };
  /** Every document of db.coll, in _id order, hashed: any change to the user's data changes it. */
  const checksum = async (db: string, coll: string) => {
    const docs = await client.db(db).collection(coll).find().sort({ _id: 1 }).toArray();
    const hash = createHash('sha256');
    for (const doc of docs) hash.update(BSON.serialize(doc));
    return `${docs.length}:${hash.digest('hex')}`;
  };
  const workload = (name: string, content: unknown) => {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  const run = (args: string[], out: string) =>
    runCli(['run', '--uri', crudUri(), ...QUICK, ...args, '--out', join(dir, out)]);
  const expectRefused = (r: { code: number; stderr: string }, entry: string, consent: string) => {
    expect(r.code).toBe(2);
    const line = r.stderr.split('\n').find((l) => l.includes(entry));
    expect(line).toBeDefined();
    expect(line).toContain(consent);
  };

  it('--drop with --docs-like mongodb://HOST/db.users --ns db.other drops only db.other; --drop of the source by another name for its host is refused', async () => {
    const db = uniqueDbName('plan_like');
    await seed(db, 'users');
    await seed(db, 'keep', [{ _id: 1, note: 'not the benchmark' }]);
    const before = [await checksum(db, 'users'), await checksum(db, 'keep')];

    const r = await run(
      ['--drop', '--docs-like', `mongodb://${host}/${db}.users`, '--ns', `${db}.other`],
      'like',
    );
    expect(r.stderr).not.toContain('unexpected error');
    expect(r.code).toBe(0);
    expect([await checksum(db, 'users'), await checksum(db, 'keep')]).toEqual(before);
    expect(await client.db(db).collection('other').countDocuments()).toBe(20);

    // The source itself, named by another name for the same host: refused, nothing dropped.
    const port = new URL(crudUri()).port;
    const same = await run(
      ['--drop', '--docs-like', `mongodb://localhost:${port}/${db}.users`, '--ns', `${db}.users`],
      'like-same',
    );
    expect(same.code).toBe(2);
    expect(same.stderr).toContain(`it drops ${db}.users, which is --docs-like's source`);
    expect([await checksum(db, 'users'), await checksum(db, 'keep')]).toEqual(before);
  });

  it("a workload's write op on a user's collection: refused naming it and --no-load; with --no-load it runs and the data line names it", async () => {
    const shop = uniqueDbName('plan_shop');
    const scratch = uniqueDbName('plan_scratch');
    await seed(shop, 'orders', [{ _id: 1, total: 12 }]);
    const before = await checksum(shop, 'orders');
    const file = workload('orders', {
      ops: [
        { op: 'findOne', query: {} },
        { op: 'insert', ns: `${shop}.orders`, doc: { total: { '#RAND_INT': [1, 9] } } },
      ],
    });
    const refused = await run(['--workload-file', file, '--ns', `${scratch}.t`], 'orders-refused');
    expectRefused(refused, `write ${shop}.orders`, '--no-load');
    expect(await checksum(shop, 'orders')).toBe(before);
    expect(existsSync(join(dir, 'orders-refused', 'results.json'))).toBe(false);

    const consented = await run(
      ['--workload-file', file, '--ns', `${scratch}.t`, '--no-load'],
      'orders-consented',
    );
    expect(consented.stderr).not.toContain('unexpected error');
    expect(consented.code).toBe(0);
    expect(consented.stderr).toContain(
      `the workload's own writes change the documents in ${shop}.orders`,
    );
  });

  it("a workload file's top-level ns: its set-up and writes go there, not to mongo_bench.docs", async () => {
    const mine = uniqueDbName('plan_mine');
    // The run's documents carry a tag of their own: other test files write mongo_bench.docs on this
    // shared server at the same time, so a checksum of it would change without this run's doing.
    const tag = `${mine}-tag`;
    const file = workload('mine', {
      ns: `${mine}.t`,
      setup: [{ documents: [{ _id: 'seeded', tag }] }],
      ops: [{ op: 'insert', doc: { x: 1, tag } }],
    });
    const r = await run(['--workload-file', file], 'mine');
    expect(r.stderr).not.toContain('unexpected error');
    expect(r.code).toBe(0);
    const docs = await client.db(mine).collection('t').find().toArray();
    expect(docs.map((d) => d._id)).toContain('seeded');
    expect(docs.length).toBeGreaterThan(1);
    // Nothing tagged anywhere else: not in mongo_bench.docs (the default), nor in any other collection.
    const elsewhere: string[] = [];
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
    for (const { name } of databases) {
      if (name === mine) continue;
      for (const c of await client.db(name).listCollections({}, { nameOnly: true }).toArray()) {
        if (await client.db(name).collection(c.name).findOne({ tag }))
          elsewhere.push(`${name}.${c.name}`);
      }
    }
    expect(elsewhere).toEqual([]);
  });

  it("a set-up command deleting a user's documents: refused naming --allow-setup-writes", async () => {
    const db = uniqueDbName('plan_setup');
    await seed(db, 'users');
    const before = await checksum(db, 'users');
    const file = workload('delete-users', {
      ns: `${db}.bench`,
      setup: [{ command: { delete: 'users', deletes: [{ q: {}, limit: 0 }] } }],
      ops: [{ op: 'findOne', query: {} }],
    });
    const r = await run(['--workload-file', file], 'setup');
    expectRefused(r, `write ${db}.users`, '--allow-setup-writes');
    expect(await checksum(db, 'users')).toBe(before);
  });

  it('--drop --db admin and --ns admin.x: refused before anything connects', async () => {
    for (const args of [
      ['--drop', '--db', 'admin'],
      ['--ns', 'admin.x'],
    ]) {
      // Port 1: nothing listens, so an exit 2 is the plan's refusal, not a connection's failure.
      const r = await runCli(['run', '--uri', 'mongodb://127.0.0.1:1', ...QUICK, ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/recreate admin\.\S+ .*admin is a system database/);
    }
  });

  it("a collection with the loader's fields and _id 0..n-1 but no marker is not mongo-bench's: refused", async () => {
    const db = uniqueDbName('plan_shape');
    await seed(
      db,
      'docs',
      Array.from({ length: 5 }, (_, i) => ({
        _id: i,
        k: i,
        group: 0,
        counter: 0,
        pad: 'x',
        owner: 'the user',
      })),
    );
    const before = await checksum(db, 'docs');
    const r = await run(['--ns', `${db}.docs`], 'shape');
    expectRefused(r, `recreate ${db}.docs`, '--drop');
    expect(await checksum(db, 'docs')).toBe(before);
  });
});
