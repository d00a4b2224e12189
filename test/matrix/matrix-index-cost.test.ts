/**
 * The index-cost preset end to end: the same inserts with 0, 1 and 3 secondary indexes, created by the
 * workload's set-up. On FerretDB (a real third-party server, never labelled MongoDB) the index bytes per
 * document grow with the indexes; on the CRUD test double what it does not report is marked, and its
 * reported storageSize of 0 is marked as the double's own figure, never a measured 0.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MatrixDocument } from '../../lib/matrix/matrix-document';
import { loadResult } from '../../lib/result';
import { runCli } from '../support/cli';
import { FerretDb, startFerretDb } from '../support/go-servers';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

const TINY = ['--docs', '300', '--doc-size', '512', '--writers', '2'];

async function runPreset(uri: string, out: string, extra: string[] = []): Promise<MatrixDocument> {
  const r = await runCli([
    'matrix',
    '--preset',
    'index-cost',
    '--uri',
    uri,
    ...TINY,
    '--db',
    uniqueDbName('ic'),
    ...extra,
    '--out',
    out,
  ]);
  expect(r.code).toBe(0);
  return JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8')) as MatrixDocument;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mb-index-cost-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeNeeding('ferretdb', 'index-cost on FerretDB', () => {
  let ferret: FerretDb;
  beforeAll(async () => {
    ferret = await startFerretDb();
  }, 30_000);
  afterAll(async () => {
    await ferret?.stop();
  });

  it('index bytes per document grow with the indexes (0 < 1 < 3), beside inserts/s', async () => {
    const out = join(dir, 'ferret');
    const doc = await runPreset(ferret.uri, out);
    expect(doc.rows.map((r) => r.label)).toEqual([
      '0 secondary indexes',
      '1 secondary index',
      '3 secondary indexes',
    ]);
    for (const row of doc.rows) {
      expect(row.status).toBe('ok');
      expect(row.measures.insertsPerSec).toBeGreaterThan(0);
      expect(row.measures.docs).toBe(300);
      expect(row.measures.bytesPerDocument).toBeGreaterThan(0);
    }
    const perDoc = doc.rows.map((r) => r.measures.indexBytesPerDocument as number);
    expect(perDoc[0]).toBeGreaterThan(0);
    expect(perDoc[1]).toBeGreaterThan(perDoc[0]);
    expect(perDoc[2]).toBeGreaterThan(perDoc[1]);
    // The indexes the set-up created are the ones the statistics name.
    const result = await loadResult(join(out, doc.rows[2].resultFile as string));
    expect(Object.keys(result.steps[0].storage?.indexes ?? {}).sort()).toEqual(
      ['_id_', 'a_1', 'b_1', 'c_1'].sort(),
    );
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toContain('NOT MongoDB: FerretDB');
    expect(summary).not.toMatch(/· MongoDB \d/);
    expect(summary).toContain(
      '| Inserts (ops/s) | Documents | On disk per document (bytes) | Indexes per document (bytes) |',
    );
  }, 60_000);
});

describeNeeding('crud', 'index-cost on the CRUD test double', () => {
  it('marks the figures the double does not report, and its reported 0 as its own', async () => {
    const out = join(dir, 'crud');
    const doc = await runPreset(crudUri(), out, ['--test-double']);
    for (const row of doc.rows) {
      expect(row.status).toBe('ok');
      // mongo-java-server reports no index sizes: absent (null, shown "–"), never 0.
      expect(row.measures.indexBytesPerDocument).toBeNull();
      expect((row.details?.storageMissing as Record<string, string>).indexBytesPerDocument).toMatch(
        /totalIndexSize/,
      );
    }
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    const table = summary.split('\n').filter((l) => l.startsWith('| 0 secondary'));
    expect(table[0]).toContain('| 0 † | – |');
    expect(summary).toContain("† The TEST DOUBLE's own figure");
  }, 60_000);
});
