/**
 * A results store and agents' control database are mongo-bench's own, never a user's (docs/run.md, "What may
 * be dropped or written"), on the CRUD test server: `--store` (run, import, history) into a user's collection
 * and `--agents --control-db` (the coordinator, an agent) on a user's database are refused (exit 2) naming
 * it, before any write: the user's documents and indexes are checked by a checksum before and after (the
 * TTL indexes and the results store's two indexes were built there, and documents inserted, before). What is
 * absent, empty or already one runs, and is marked one (`<db>.mongo_bench_owner`).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BSON, Document, MongoClient } from 'mongodb';
import { FolderStore } from '../../lib/store';
import { readNamespaceState } from '../../lib/server/ownership';
import { runCli } from '../support/cli';
import { QUICK_RUN } from '../support/quick-run';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { syntheticResults } from '../history/synthetic';

const QUICK = [...QUICK_RUN, '--quiet'];
const USERS = [
  { _id: 'alice', email: 'alice@example.com' },
  { _id: 'bob', email: 'bob@example.com' },
];

describeNeeding(
  'crud',
  "results store and control database: never a user's (CRUD test server)",
  () => {
    let dir: string;
    let client: MongoClient;
    let files: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mb-store-control-'));
      client = new MongoClient(crudUri());
      await client.connect();
      // Two result files to import.
      files = join(dir, 'files');
      const store = new FolderStore(files);
      for (const r of syntheticResults({
        runs: 2,
        level: 5000,
        noise: 0.02,
        seed: 3,
        label: 'harm',
        clients: [1],
      }))
        await store.put(r);
    });
    afterAll(async () => {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const base = () => crudUri().replace(/\/$/, '');
    const storeUri = (db: string, coll: string) => `${base()}/${db}.${coll}`;
    /** The user's collection: its documents in _id order and its indexes, hashed. */
    const checksum = async (db: string, coll: string) => {
      const collection = client.db(db).collection(coll);
      const docs = await collection.find().sort({ _id: 1 }).toArray();
      const indexes = (await collection.listIndexes().toArray())
        .map((i) => ({ name: i.name as string, key: i.key as Document, ttl: i.expireAfterSeconds }))
        .sort((a, b) => a.name.localeCompare(b.name));
      const hash = createHash('sha256');
      for (const doc of docs) hash.update(BSON.serialize(doc));
      hash.update(JSON.stringify(indexes));
      return `${docs.length} docs, ${indexes.map((i) => i.name).join(',')}: ${hash.digest('hex')}`;
    };
    const collections = async (db: string) =>
      (await client.db(db).listCollections().toArray()).map((c) => c.name).sort();
    const run = (args: string[], out: string) =>
      runCli([
        'run',
        '--uri',
        crudUri(),
        '--ns',
        `${uniqueDbName('harm_data')}.docs`,
        ...QUICK,
        ...args,
        '--out',
        join(dir, out),
      ]);
    /** A user's database with `runs` and `steps` (one with an index of the user's). */
    const seedControlLike = async (db: string) => {
      await client
        .db(db)
        .collection('runs')
        .insertMany([
          { _id: 'r1', status: 'paid', total: 12 },
          { _id: 'r2', status: 'open', total: 3 },
        ] as never[]);
      await client.db(db).collection('runs').createIndex({ status: 1 }, { name: 'by_status' });
      await client
        .db(db)
        .collection('steps')
        .insertMany([{ _id: 's1', run: 'r1', note: 'the user’s' }] as never[]);
    };
    const agent = (db: string, name: string) =>
      runCli([
        'agent',
        '--control-uri',
        crudUri(),
        '--control-db',
        db,
        '--name',
        name,
        '--once',
        '--workers',
        '1',
      ]);
    const agentsRun = (db: string, out: string) =>
      run(
        ['--agents', '1', '--control-db', db, '--agent-wait', '20', '--workload', 'insert-only'],
        out,
      );

    it("--store into a user's collection: run, import and history refused (exit 2) naming it; its documents and indexes unchanged", async () => {
      const app = uniqueDbName('harm_app');
      await client
        .db(app)
        .collection('users')
        .insertMany(USERS.map((u) => ({ ...u })) as never[]);
      await client.db(app).collection('users').createIndex({ email: 1 }, { unique: true });
      const before = await checksum(app, 'users');
      const store = storeUri(app, 'users');

      const refusedRun = await run(['--store', store], 'store-user');
      const refusedImport = await runCli(['import', '--store', store, files]);
      const refusedHistory = await runCli(['history', '--store', store, '--out', join(dir, 'h')]);
      for (const r of [refusedRun, refusedImport, refusedHistory]) {
        expect(r.stderr).not.toContain('unexpected error');
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`option --store: ${app}.users at `);
        expect(r.stderr).toContain('holds 2 documents and is not a results store');
        expect(r.stderr).toContain('no option allows it');
      }
      expect(refusedImport.stdout).not.toContain('imported');
      expect(await checksum(app, 'users')).toBe(before);
      // Nothing of mongo-bench's beside it either: no marker written.
      expect(await collections(app)).toEqual(['users']);
    });

    it("--agents --control-db on a user's database: the coordinator and an agent refused (exit 2) naming it; its runs and steps unchanged, no TTL index", async () => {
      const mine = uniqueDbName('harm_ctl');
      await seedControlLike(mine);
      const before = [await checksum(mine, 'runs'), await checksum(mine, 'steps')];

      const coordinator = await agentsRun(mine, 'control-user');
      // Through --control-uri too: the control database on its own deployment.
      const viaUri = await run(
        [
          '--agents',
          '1',
          '--control-uri',
          crudUri(),
          '--control-db',
          mine,
          '--agent-wait',
          '5',
          '--workload',
          'insert-only',
        ],
        'control-user-uri',
      );
      const refusedAgent = await agent(mine, 'h1');
      for (const r of [coordinator, viaUri, refusedAgent]) {
        expect(r.stderr).not.toContain('unexpected error');
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`option --control-db: database ${mine} at `);
        expect(r.stderr).toContain('holds 3 documents and is not a control database');
      }
      expect(refusedAgent.stderr).not.toContain('registered');
      expect([await checksum(mine, 'runs'), await checksum(mine, 'steps')]).toEqual(before);
      expect(await collections(mine)).toEqual(['runs', 'steps']);
    });

    it('a store that is absent is created and marked; the same store again, and an empty collection of the user, are allowed', async () => {
      const team = uniqueDbName('harm_store');
      const spec = storeUri(team, 'results');
      const first = await runCli(['import', '--store', spec, files]);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('imported 2 results');
      expect(await readNamespaceState(client, team, 'results')).toMatchObject({
        exists: true,
        docs: 2,
        role: 'store',
      });
      const again = await runCli(['import', '--store', spec, files]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('(2 already there)');

      // run --store: its write probe on an absent collection, then the result; the second run finds it marked.
      const runs = storeUri(team, 'runs');
      for (const out of ['store-run-1', 'store-run-2']) {
        const r = await run(['--store', runs], out);
        expect(r.stderr).not.toContain('unexpected error');
        expect(r.code).toBe(0);
        expect(r.stderr).toContain(`stored in MongoDB`);
      }
      expect(await client.db(team).collection('runs').countDocuments()).toBe(2);
      expect(await readNamespaceState(client, team, 'runs')).toMatchObject({ role: 'store' });
      const history = await runCli(['history', '--store', runs, '--out', join(dir, 'hist')]);
      expect(history.stderr).not.toContain('option --store');

      // An empty collection of the user's (with an index of its own): allowed, then marked, its index kept.
      const empty = uniqueDbName('harm_empty');
      await client.db(empty).createCollection('results');
      await client.db(empty).collection('results').createIndex({ mine: 1 }, { name: 'mine' });
      const filled = await runCli(['import', '--store', storeUri(empty, 'results'), files]);
      expect(filled.code).toBe(0);
      expect(await readNamespaceState(client, empty, 'results')).toMatchObject({
        docs: 2,
        role: 'store',
      });
      const indexes = await client.db(empty).collection('results').listIndexes().toArray();
      expect(indexes.map((i) => i.name)).toEqual(
        expect.arrayContaining(['mine', 'label_startedAt', 'workload_target_startedAt']),
      );
    });

    it('a control database that is absent is marked by the first agent; a second run joins it; an empty database is allowed', async () => {
      const control = uniqueDbName('harm_control');
      // An agent first (the usual order): it creates and marks the database; the coordinator finds it marked.
      for (const round of [1, 2]) {
        const [a, r] = await Promise.all([
          agent(control, `m${round}`),
          agentsRun(control, `control-${round}`),
        ]);
        expect(r.stderr).not.toContain('unexpected error');
        expect({ run: r.code, agent: a.code }).toEqual({ run: 0, agent: 0 });
      }
      const state = await readNamespaceState(client, control, undefined);
      expect(state).toMatchObject({ exists: true, role: 'control-db' });
      expect(state.exists && state.docs).toBeGreaterThan(0);

      // The coordinator first, on a database that exists but holds nothing: it marks it; the agent joins.
      const empty = uniqueDbName('harm_control_empty');
      await client.db(empty).createCollection('left_over');
      const pending = agentsRun(empty, 'control-empty');
      // The agent starts once the coordinator has published its run there.
      while ((await client.db(empty).collection('runs').countDocuments()) === 0)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const joined = await agent(empty, 'e1');
      const r = await pending;
      expect(r.stderr).not.toContain('unexpected error');
      expect({ run: r.code, agent: joined.code }).toEqual({ run: 0, agent: 0 });
      expect(await readNamespaceState(client, empty, undefined)).toMatchObject({
        role: 'control-db',
      });
    });
  },
);
