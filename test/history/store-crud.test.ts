/**
 * The MongoDB store on the CRUD test server: `run --store mongodb://...` keeps the result (indexed,
 * no credentials), `import` fills the store once per run, and `history` reads it back and finds the
 * change point. The server's numbers are not MongoDB numbers; the synthetic history is what is judged.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { FolderStore, parseStoreUri } from '../../lib/store';
import { HistoryDocument } from '../../lib/history';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { syntheticResults } from './synthetic';

describe('parseStoreUri', () => {
  test('database and collection from the path; defaults mongo_bench.results; options kept', () => {
    expect(parseStoreUri('mongodb://h:1')).toEqual({
      uri: 'mongodb://h:1/mongo_bench',
      db: 'mongo_bench',
      collection: 'results',
    });
    expect(parseStoreUri('mongodb://u:p@h:1/perf.nightly?authSource=admin')).toEqual({
      uri: 'mongodb://u:p@h:1/perf?authSource=admin',
      db: 'perf',
      collection: 'nightly',
    });
    expect(parseStoreUri('mongodb+srv://c.example.net/perf')).toMatchObject({
      db: 'perf',
      collection: 'results',
    });
  });
});

describeNeeding('crud', 'the MongoDB results store (CRUD test server)', () => {
  let dir: string;
  let client: MongoClient;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-store-crud-'));
    client = await MongoClient.connect(crudUri());
  });
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const storeUri = (db: string) => `${crudUri().replace(/\/$/, '')}/${db}.results`;

  it('import fills the store once per run; history reads it back: one change point at 25, exit 1', async () => {
    const db = uniqueDbName('store_hist');
    const results = syntheticResults({
      runs: 40,
      level: 5000,
      noise: 0.02,
      changeAt: 25,
      factor: 0.92,
      seed: 11,
      label: 'nightly',
      clients: [1],
    });
    const files = new FolderStore(join(dir, 'files'));
    for (const r of results) await files.put(r);
    const first = await runCli(['import', '--store', storeUri(db), join(dir, 'files')]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('imported 40 results into MongoDB');
    const again = await runCli(['import', '--store', storeUri(db), join(dir, 'files')]);
    expect(again.stdout).toContain('imported 0 results into MongoDB');
    expect(again.stdout).toContain('(40 already there)');

    const coll = client.db(db).collection('results');
    expect(await coll.countDocuments()).toBe(40);
    const indexes = (await coll.listIndexes().toArray()).map((i) => i.name as string);
    expect(indexes).toEqual(
      expect.arrayContaining(['label_startedAt', 'workload_target_startedAt']),
    );
    const doc = await coll.findOne({ label: 'nightly' }, { sort: { startedAt: 1 } });
    expect(doc?.startedAt).toBeInstanceOf(Date);
    expect(doc?.steps[0]).toMatchObject({ clients: 1, status: 'ok' });

    const out = join(dir, 'hist');
    const history = await runCli([
      'history',
      '--store',
      storeUri(db),
      '--label',
      'nightly',
      '--out',
      out,
    ]);
    expect(history.code).toBe(1);
    const h = JSON.parse(readFileSync(join(out, 'history.json'), 'utf8')) as HistoryDocument;
    const ops = h.series.find((s) => s.metric === 'opsPerSec')!;
    expect(ops.points).toHaveLength(40);
    expect(ops.changePoints.map((cp) => cp.index)).toEqual([25]);
    expect(ops.changePoints[0].firstAfter).toMatchObject({
      startedAt: results[25].startedAt,
      label: 'nightly',
    });
    expect(h.store).toContain(`collection ${db}.results`);
  });

  it('run --store mongodb://... keeps the result: the run is read back as history', async () => {
    const db = uniqueDbName('store_run');
    const out = join(dir, 'run');
    const run = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${uniqueDbName('store_run_data')}.docs`,
      '--clients',
      '1',
      '--seconds',
      '1',
      '--warmup',
      '0',
      '--docs',
      '100',
      '--doc-size',
      '128',
      '--no-server-stats',
      '--quiet',
      '--label',
      'crud-run',
      '--out',
      out,
      '--store',
      storeUri(db),
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`stored in MongoDB`);
    const stored = await client.db(db).collection('results').find().toArray();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      label: 'crud-run',
      workload: '6to1',
      complete: true,
      target: { testDouble: true },
    });
    const written = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
      startedAt: string;
    };
    expect(JSON.parse(stored[0].result as string)).toEqual(written);
    const history = await runCli([
      'history',
      '--store',
      storeUri(db),
      '--json',
      '--out',
      join(dir, 'run-hist'),
    ]);
    expect(history.code).toBe(3); // one run: not tested
    const h = JSON.parse(history.stdout) as HistoryDocument;
    expect(h.labels).toEqual([
      expect.objectContaining({ label: 'crud-run', runs: 1, testDouble: true }),
    ]);
  });

  it('an unreachable store: exit 2 from history, never the regression exit 1; its password is not shown', async () => {
    const cli = await runCli([
      'history',
      '--store',
      'mongodb://bob:hunter2-secret@127.0.0.1:1/perf?serverSelectionTimeoutMS=300',
      '--out',
      join(dir, 'unreachable'),
    ]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('cannot connect');
    expect(cli.stderr).not.toContain('hunter2-secret');
  });
});
