/**
 * A user's world for the harm suite: a database holding the kinds of collection mongo-bench must never
 * change without consent, and a folder of the user's own files named like a command's outputs. The
 * snapshot is a checksum of every document, every index, the collection options and every file: any
 * change to what the user had changes it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BSON, Document, MongoClient } from 'mongodb';
import { OWNER_COLLECTION } from '../../lib/server/ownership';

/** The user's collections, by what each one tests. */
export const WORLD = {
  /** The loader's field names and integer `_id`s 0..n-1, plus a field of the user's own (no marker). */
  loaderShaped: 'docs',
  /** Plain documents of the user's. */
  orders: 'orders',
  /** A capped collection (its size is an option a drop would lose). */
  capped: 'capped_log',
  /** Empty, with an index of the user's: never dropped or recreated. */
  emptyIndexed: 'empty_indexed',
  /** mongo-bench loaded it once; the user dropped and recreated it: the marker is stale. */
  recreated: 'recreated',
  /** Named like an agents' control database's and a results store's collections. */
  runs: 'runs',
  steps: 'steps',
  results: 'results',
  /** Named like the matrix presets' collections. */
  most: 'most',
  softlayer: 'softlayer',
  insertTest: 'insertTest',
  presplit: 'presplit_import',
} as const;

/** The user's own files, by the names mongo-bench's commands write. */
export const USER_FILES: Record<string, string> = {
  'README.md': '# My project\n\nNotes I keep here.\n',
  'results.json': '{"label": "numbers I measured by hand", "steps": []}\n',
  'index.html': '<!DOCTYPE html>\n<html><body><h1>My dashboard</h1></body></html>\n',
  'summary.md': '# What I found\n',
  'results.csv': 'when,what\n2026-01-05,everything\n',
  'compare.md': '# My comparison\n',
  'compare.json': '{"mine": true}\n',
  'history.md': '# My history\n',
  'history.json': '{"mine": true}\n',
  'workload.json': '{"ops": [{"op": "findOne", "query": {"mine": true}}]}\n',
  'capture.md': '# What my app does\n',
  'suite.json': '{"mine": true}\n',
  'calibrate.json': '{"mine": true}\n',
  'diskperf.json': '{"mine": true}\n',
  'matrix.json': '{"mine": true}\n',
  'command-log.txt': 'my own log\n',
  'setup.js': '// my own set-up\n',
};

export interface WorldSeed {
  /** The view, where the server made one (mongo-java-server has no views). */
  view?: string;
  /** The capped collection, where the server made one (mongo-java-server has none). */
  capped?: string;
}

const userDocs = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    _id: i,
    k: i * 7,
    group: i % 3,
    counter: 0,
    pad: 'x'.repeat(16),
    mine: true,
  }));

/** Seeds database `db` with the user's collections; returns what the server could not make. */
export async function seedWorld(client: MongoClient, db: string): Promise<WorldSeed> {
  const d = client.db(db);
  await d.collection(WORLD.loaderShaped).insertMany(userDocs(30) as Document[]);
  await d.collection(WORLD.orders).insertMany([
    { _id: 1, item: 'espresso', qty: 2 },
    { _id: 2, item: 'cortado', qty: 1 },
  ] as Document[]);
  await d.createCollection(WORLD.emptyIndexed);
  await d
    .collection(WORLD.emptyIndexed)
    .createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
  // A marker from an earlier mongo-bench load (count and _id range, the form used where the server
  // reports no UUID), and the user's own collection under that name since.
  await d.collection(OWNER_COLLECTION).insertOne({
    _id: WORLD.recreated,
    version: 2,
    loadedBy: 'mongo-bench 0.1.0',
    at: new Date('2026-01-01T00:00:00Z'),
    phase: 'done',
    docs: 1000,
    minId: 0,
    maxId: 999,
  } as Document);
  await d.collection(WORLD.recreated).insertMany(userDocs(5) as Document[]);
  for (const name of [
    WORLD.runs,
    WORLD.steps,
    WORLD.results,
    WORLD.most,
    WORLD.softlayer,
    WORLD.insertTest,
    WORLD.presplit,
  ])
    await d.collection(name).insertMany([
      { _id: `${name}-1`, mine: true },
      { _id: `${name}-2`, mine: true },
    ] as Document[]);
  const seed: WorldSeed = {};
  try {
    await d.createCollection(WORLD.capped, { capped: true, size: 1 << 20 });
    await d.collection(WORLD.capped).insertMany([{ line: 'started' }, { line: 'ready' }]);
    seed.capped = WORLD.capped;
  } catch {
    // No capped collections on this server: the case says so.
  }
  try {
    await d.createCollection('orders_view', {
      viewOn: WORLD.orders,
      pipeline: [{ $match: { qty: { $gt: 1 } } }],
    });
    const made = await d.listCollections({ name: 'orders_view' }).toArray();
    if (made.some((c) => c.name === 'orders_view' && c.type === 'view')) seed.view = 'orders_view';
  } catch {
    // No views on this server: the case says so.
  }
  return seed;
}

/** Writes the user's files into `dir` (made if missing). */
export function seedFolder(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(USER_FILES)) writeFileSync(join(dir, name), text);
}

export interface WorldSnapshot {
  /** Per collection: its documents, indexes and options, hashed. */
  collections: Record<string, string>;
  /** Per file (relative path): its bytes, hashed. */
  files: Record<string, string>;
}

/** Every document, index and collection option of `db`, and every file under `dir`, hashed. */
export async function snapshotWorld(
  client: MongoClient,
  db: string,
  dir: string,
): Promise<WorldSnapshot> {
  const d = client.db(db);
  const collections: Record<string, string> = {};
  for (const info of (await d.listCollections().toArray()) as Document[]) {
    const hash = createHash('sha256');
    hash.update(JSON.stringify({ type: info.type ?? 'collection', options: info.options ?? {} }));
    if (info.type !== 'view') {
      const docs = await d.collection(info.name).find().sort({ _id: 1 }).toArray();
      for (const doc of docs) hash.update(BSON.serialize(doc));
      const indexes = await d.collection(info.name).listIndexes().toArray();
      hash.update(
        JSON.stringify(
          indexes
            .map(({ v: _v, ns: _ns, ...index }) => index)
            .sort((a, b) => String(a.name).localeCompare(String(b.name))),
        ),
      );
    }
    collections[info.name] = hash.digest('hex').slice(0, 16);
  }
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else
        files[relative(dir, path)] = createHash('sha256')
          .update(readFileSync(path))
          .digest('hex')
          .slice(0, 16);
    }
  };
  walk(dir);
  return { collections, files };
}

/**
 * What changed from `before` to `after` among what the user had: a collection or file changed or gone.
 * New collections and files are not the user's and are listed apart.
 */
export function worldChanges(
  before: WorldSnapshot,
  after: WorldSnapshot,
  /** mongo-bench's own marker collection may change (a consented run records what it loaded). */
  options: { markerMayChange?: boolean } = {},
): { changed: string[]; added: string[] } {
  const changed: string[] = [];
  for (const [name, hash] of Object.entries(before.collections))
    if (after.collections[name] !== hash && !(options.markerMayChange && name === OWNER_COLLECTION))
      changed.push(`collection ${name}`);
  for (const [name, hash] of Object.entries(before.files))
    if (after.files[name] !== hash) changed.push(`file ${name}`);
  const added = [
    ...Object.keys(after.collections)
      .filter((n) => !(n in before.collections))
      .map((n) => `collection ${n}`),
    ...Object.keys(after.files)
      .filter((n) => !(n in before.files))
      .map((n) => `file ${n}`),
  ];
  return { changed, added };
}
