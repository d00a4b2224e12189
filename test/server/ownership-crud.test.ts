/**
 * Ownership read from a real server (the CRUD test double, which reports no collection UUID, so the marker
 * keeps the count and `_id` range): absent, a user's collection, a marked one unchanged and changed since,
 * a run still running, an earlier version's name-only marker, a collection recreated with other documents,
 * documents merely shaped like the loader's, and a whole database; the roles of a results store (a collection)
 * and a control database (a database), and the role check that refuses a user's.
 */
import { MongoClient } from 'mongodb';
import {
  forgetOwned,
  markOwned,
  markRole,
  OWNER_COLLECTION,
  readNamespaceState,
} from '../../lib/server/ownership';
import { checkRole, claimRole } from '../../lib/server/role-check';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

describeNeeding('crud', 'ownership of a namespace (CRUD test server)', () => {
  let client: MongoClient;
  beforeAll(async () => {
    client = new MongoClient(crudUri());
    await client.connect();
  });
  afterAll(() => client.close());

  const fill = (db: string, coll: string, n: number, extra: Record<string, unknown> = {}) =>
    client
      .db(db)
      .collection(coll)
      .insertMany(Array.from({ length: n }, (_, i) => ({ _id: i, k: i, ...extra })) as never[]);

  it('absent, then a collection with no marker is not owned', async () => {
    const db = uniqueDbName('own-absent');
    expect(await readNamespaceState(client, db, 'c')).toEqual({ exists: false });
    await fill(db, 'c', 3);
    expect(await readNamespaceState(client, db, 'c')).toMatchObject({
      exists: true,
      docs: 3,
      owned: false,
      why: 'no mongo_bench_owner marker',
    });
  });

  it('marked when done: owned while unchanged, not once a document is added or the collection recreated', async () => {
    const db = uniqueDbName('own-done');
    await fill(db, 'c', 5);
    await markOwned(client, db, 'c', 'done');
    expect(await readNamespaceState(client, db, 'c')).toMatchObject({ owned: true });
    await client
      .db(db)
      .collection('c')
      .insertOne({ _id: 99 } as never);
    const changed = await readNamespaceState(client, db, 'c');
    expect(changed).toMatchObject({ owned: false });
    expect(changed.exists && changed.why).toMatch(
      /changed since mongo-bench last recorded it .*5 documents then, 6 now/,
    );
    // Dropped and recreated by the user with documents of their own.
    await markOwned(client, db, 'c', 'done');
    await client.db(db).collection('c').drop();
    await fill(db, 'c', 2, { mine: true });
    expect(await readNamespaceState(client, db, 'c')).toMatchObject({ owned: false });
  });

  it('a run still loading or running keeps its collection whatever the count', async () => {
    const db = uniqueDbName('own-running');
    await fill(db, 'c', 5);
    await markOwned(client, db, 'c', 'running');
    await client
      .db(db)
      .collection('c')
      .insertOne({ _id: 99 } as never);
    const state = await readNamespaceState(client, db, 'c');
    expect(state).toMatchObject({ owned: true });
    expect(state.exists && state.why).toMatch(/was running it/);
  });

  it("an earlier version's marker (the name only) is no proof", async () => {
    const db = uniqueDbName('own-legacy');
    await fill(db, 'c', 5);
    await client
      .db(db)
      .collection('mongo_bench_owner')
      .insertOne({ _id: 'c', loadedBy: 'mongo-bench 0.0.9', at: new Date() } as never);
    const state = await readNamespaceState(client, db, 'c');
    expect(state).toMatchObject({ owned: false });
    expect(state.exists && state.why).toMatch(/earlier mongo-bench by its name only/);
  });

  it("documents shaped like the loader's, with a field of the user's, are the user's", async () => {
    const db = uniqueDbName('own-shape');
    await fill(db, 'docs', 10, { group: 1, counter: 0, pad: 'x', mine: 'kept' });
    expect(await readNamespaceState(client, db, 'docs')).toMatchObject({ owned: false });
  });

  it('a whole database is owned only when every collection in it is; forgetting a marker ends ownership', async () => {
    const db = uniqueDbName('own-db');
    await fill(db, 'a', 2);
    await fill(db, 'b', 2);
    await markOwned(client, db, 'a', 'done');
    const mixed = await readNamespaceState(client, db, undefined);
    expect(mixed).toMatchObject({ exists: true, docs: 4, owned: false });
    expect(mixed.exists && mixed.why).toMatch(
      new RegExp(`^${db}\\.b: no mongo_bench_owner marker`),
    );
    await markOwned(client, db, 'b', 'done');
    expect(await readNamespaceState(client, db, undefined)).toMatchObject({ owned: true });
    await forgetOwned(client, db, 'b');
    expect(await readNamespaceState(client, db, 'b')).toMatchObject({ owned: false });
  });

  it('created by this run: owned until it ends', async () => {
    const db = uniqueDbName('own-created');
    await fill(db, 'c', 1);
    expect(
      await readNamespaceState(client, db, 'c', { createdByRun: new Set([`${db}.c`]) }),
    ).toMatchObject({ owned: true, why: 'created by this run' });
  });

  it('a results store is marked by its collection: the role read back, the marker apart from the collection markers', async () => {
    const db = uniqueDbName('own-store');
    await fill(db, 'results', 3);
    await fill(db, 'other', 1);
    expect(await readNamespaceState(client, db, 'results')).not.toHaveProperty('role');
    await markRole(client, db, 'store', 'results');
    await markRole(client, db, 'store', 'results');
    expect(await readNamespaceState(client, db, 'results')).toMatchObject({
      exists: true,
      docs: 3,
      owned: false,
      role: 'store',
    });
    // Another collection of the same database, and the database itself, are no store.
    expect(await readNamespaceState(client, db, 'other')).not.toHaveProperty('role');
    expect(await readNamespaceState(client, db, undefined)).not.toHaveProperty('role');
    // One marker, whose _id is no collection's name; a collection marker beside it keeps its own.
    await markOwned(client, db, 'other', 'done');
    const markers = await client.db(db).collection(OWNER_COLLECTION).find().toArray();
    expect(markers.map((m) => m._id)).toEqual(
      expect.arrayContaining([{ role: 'store', coll: 'results' }, 'other']),
    );
    expect(markers).toHaveLength(2);
    expect(await readNamespaceState(client, db, 'other')).toMatchObject({ owned: true });
  });

  it('a control database is marked as a whole: its documents counted across its collections, the marker left out', async () => {
    const db = uniqueDbName('own-control');
    await fill(db, 'runs', 2);
    await fill(db, 'steps', 3);
    await markRole(client, db, 'control-db');
    expect(await readNamespaceState(client, db, undefined)).toMatchObject({
      exists: true,
      docs: 5,
      role: 'control-db',
    });
    // A collection in it is no results store.
    expect(await readNamespaceState(client, db, 'runs')).not.toHaveProperty('role');
    // Only the marker: as absent.
    const bare = uniqueDbName('own-control-bare');
    await markRole(client, bare, 'control-db');
    expect(await readNamespaceState(client, bare, undefined)).toEqual({ exists: false });
  });

  it("the role check: a user's collection or database refused naming it, nothing written; absent and empty ones claimed and marked", async () => {
    const db = uniqueDbName('own-role-check');
    await fill(db, 'users', 2);
    const store = {
      role: 'store' as const,
      db,
      coll: 'users',
      option: 'option --store',
      at: crudUri(),
    };
    await expect(checkRole(client, store)).rejects.toThrow(
      `option --store: ${db}.users at ${crudUri()} holds 2 documents and is not a results store`,
    );
    await expect(
      claimRole(client, { role: 'control-db', db, option: 'option --control-db', at: crudUri() }),
    ).rejects.toThrow(
      `option --control-db: database ${db} at ${crudUri()} holds 2 documents and is not a control database`,
    );
    // Nothing written: no marker collection (the CRUD double lists every collection whatever the filter).
    const names = (await client.db(db).listCollections().toArray()).map((c) => c.name);
    expect(names).toEqual(['users']);

    const fresh = uniqueDbName('own-role-fresh');
    await claimRole(client, {
      role: 'control-db',
      db: fresh,
      option: 'option --control-db',
      at: crudUri(),
    });
    await fill(fresh, 'runs', 1);
    expect(await readNamespaceState(client, fresh, undefined)).toMatchObject({
      role: 'control-db',
    });
    await claimRole(client, {
      role: 'control-db',
      db: fresh,
      option: 'option --control-db',
      at: crudUri(),
    });

    const empty = uniqueDbName('own-role-empty');
    await client.db(empty).createCollection('results');
    expect(await checkRole(client, { ...store, db: empty, coll: 'results' })).toMatchObject({
      exists: true,
      docs: 0,
    });
  });
});
