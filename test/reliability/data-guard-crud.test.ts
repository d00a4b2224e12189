/**
 * The data guard end to end on the CRUD test server, a deployment the tool did not start (--uri): a
 * collection holding the user's documents survives `run` (the built-in loader, --docs-like, a captured
 * workload replayed with loading) and a matrix preset, each refusing with exit 2 and naming the
 * namespace, its document count and --drop; with --drop it is replaced; a second run on the tool's own
 * collection (marked in <db>.mongo_bench_owner and unchanged since) runs; an earlier version's name-only marker and
 * documents merely shaped like the loader's are refused.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

const LOGS = join(__dirname, '..', 'fixtures', 'capture', 'logs');
const QUICK = [
  '--clients',
  '1',
  '--seconds',
  '1',
  '--warmup',
  '0',
  '--docs',
  '40',
  '--doc-size',
  '128',
  '--workers',
  '1',
];
const USERS = [
  { _id: 'alice', email: 'alice@example.com' },
  { _id: 'bob', email: 'bob@example.com' },
];

describeNeeding('crud', 'the data guard on an existing deployment (CRUD test server)', () => {
  let dir: string;
  let client: MongoClient;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-guard-'));
    client = new MongoClient(crudUri());
    await client.connect();
  });
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const seedUsers = async (db: string, coll = 'users') => {
    await client
      .db(db)
      .collection(coll)
      .insertMany(USERS.map((u) => ({ ...u })) as never[]);
  };
  const ids = async (db: string, coll = 'users') =>
    (
      await client
        .db(db)
        .collection(coll)
        .find({}, { projection: { _id: 1 } })
        .toArray()
    ).map((d) => d._id as unknown);
  /** run: the write plan's refusal names the loader's entry, what the collection holds and --drop. */
  const expectRefused = (run: { code: number; stderr: string }, ns: string) => {
    expect(run.code).toBe(2);
    const line = run.stderr.split('\n').find((l) => l.includes(`recreate ${ns} `));
    expect(line).toContain('holds 2 documents mongo-bench did not write');
    expect(line).toContain('--drop allows it');
  };
  /** The matrix (its write plan): the namespace, its document count and --drop. */
  const expectMatrixRefused = (run: { code: number; stderr: string }, ns: string) => {
    expect(run.code).toBe(2);
    const line = run.stderr.split('\n').find((l) => l.includes(`recreate ${ns} `));
    expect(line).toContain('holds 2 documents mongo-bench did not write');
    expect(line).toContain('--drop allows it');
  };

  it('run --ns on a user collection: refused without --drop (nothing written), replaced with --drop, then a second run without it succeeds', async () => {
    const db = uniqueDbName('guard_run');
    await seedUsers(db);
    const out = join(dir, 'refused');
    const refused = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${db}.users`,
      ...QUICK,
      '--out',
      out,
    ]);
    expectRefused(refused, `${db}.users`);
    expect(await ids(db)).toEqual(['alice', 'bob']);
    expect(existsSync(join(out, 'results.json'))).toBe(false);

    const dropped = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${db}.users`,
      '--drop',
      ...QUICK,
      '--out',
      join(dir, 'dropped'),
    ]);
    expect(dropped.stderr).not.toContain('unexpected error');
    expect(dropped.code).toBe(0);
    expect((await ids(db)).map(Number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => i),
    );
    expect(
      await client
        .db(db)
        .collection('mongo_bench_owner')
        .findOne({ _id: 'users' } as never),
    ).toMatchObject({ loadedBy: expect.stringMatching(/^mongo-bench /) });

    const again = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${db}.users`,
      ...QUICK,
      '--out',
      join(dir, 'again'),
    ]);
    expect(again.code).toBe(0);
    // An earlier version's marker (the collection's name only) proves nothing: refused once, naming why.
    await client
      .db(db)
      .collection('mongo_bench_owner')
      .replaceOne(
        { _id: 'users' } as never,
        { loadedBy: 'mongo-bench 0.0.9', at: new Date() },
        { upsert: true },
      );
    const legacy = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${db}.users`,
      ...QUICK,
      '--out',
      join(dir, 'legacy'),
    ]);
    expect(legacy.code).toBe(2);
    expect(legacy.stderr).toMatch(/earlier mongo-bench by its name only/);
    // Documents shaped like the loader's, with a field of the user's and no marker, are the user's.
    const lookalike = uniqueDbName('guard-lookalike');
    const docs = Array.from({ length: 40 }, (_, i) => ({
      _id: i,
      k: i,
      group: i % 4,
      counter: 0,
      pad: 'x',
      mine: `kept ${i}`,
    }));
    await client
      .db(lookalike)
      .collection('docs')
      .insertMany(docs as never[]);
    const shaped = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${lookalike}.docs`,
      ...QUICK,
      '--out',
      join(dir, 'lookalike'),
    ]);
    expect(shaped.code).toBe(2);
    expect(shaped.stderr).toMatch(/no mongo_bench_owner marker/);
    expect(await client.db(lookalike).collection('docs').find().sort({ _id: 1 }).toArray()).toEqual(
      docs,
    );
  });

  it('--dry-run connects to nothing and says the rule', async () => {
    const run = await runCli([
      'run',
      '--uri',
      'mongodb://127.0.0.1:1/',
      '--ns',
      'app.users',
      '--dry-run',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "app.users is dropped and reloaded only if it is absent or mongo-bench's own",
    );
    expect(run.stdout).toContain('unless --drop is given');
  });

  it('--docs-like and a captured workload replayed with loading: refused on a user collection, replaced with --drop', async () => {
    const db = uniqueDbName('guard_like');
    await seedUsers(db);
    // The sample lives in another database (--drop drops only the collection the load replaces, either way).
    await seedUsers(`${db}_src`);
    const like = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${db}.users`,
      '--docs-like',
      `${db}_src.users`,
      ...QUICK,
      '--out',
      join(dir, 'like'),
    ]);
    expectRefused(like, `${db}.users`);
    expect(await ids(db)).toEqual(['alice', 'bob']);

    const captured = join(dir, 'captured');
    expect((await runCli(['capture', join(LOGS, '8.0.log'), '--out', captured])).code).toBe(0);
    const replay = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${db}.users`,
      '--workload-file',
      join(captured, 'workload.json'),
      ...QUICK,
      '--out',
      join(dir, 'replay'),
    ]);
    expectRefused(replay, `${db}.users`);
    expect(await ids(db)).toEqual(['alice', 'bob']);

    const replaced = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${db}.users`,
      '--docs-like',
      `${db}_src.users`,
      '--drop',
      ...QUICK,
      '--out',
      join(dir, 'like-drop'),
    ]);
    expect(replaced.stderr).not.toContain('unexpected error');
    expect(replaced.code).toBe(0);
    expect(await ids(db)).not.toContain('alice');
  });

  it('a matrix preset on --uri: refused on a user collection of its database, replaced with --drop', async () => {
    const db = uniqueDbName('guard_matrix');
    await seedUsers(db, 'insertTest');
    const args = [
      'matrix',
      '--preset',
      'write-concern-latency',
      '--uri',
      crudUri(),
      '--db',
      db,
      '--scale',
      '0.05',
      '--rounds',
      '1',
    ];
    const refused = await runCli([...args, '--out', join(dir, 'matrix')]);
    expectMatrixRefused(refused, `${db}.insertTest`);
    expect(await ids(db, 'insertTest')).toEqual(['alice', 'bob']);

    const replaced = await runCli([...args, '--drop', '--out', join(dir, 'matrix-drop')]);
    expect(replaced.stderr).not.toContain('unexpected error');
    expect(await ids(db, 'insertTest')).not.toContain('alice');
    expect(replaced.stderr).not.toContain('did not load');
  });
});
