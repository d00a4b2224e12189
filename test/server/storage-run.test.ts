/**
 * A run's `steps[].storage` end to end: on FerretDB (a real third-party server over SQLite, never labelled
 * MongoDB; it answers $collStats storageStats, collStats and dbStats) and on the CRUD test double, which
 * reports less and whose run marks what it does not report. `mongo-bench report` on the results.json
 * keeps the figures (the schema's round trip) and shows the Storage section.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadResult, StepStorage } from '../../lib/result';
import { runCli } from '../support/cli';
import { FerretDb, startFerretDb } from '../support/go-servers';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

const DOC_SIZE = 512;
const RUN = [
  '--clients',
  '1',
  '--ops',
  '50',
  '--warmup',
  '0',
  '--workers',
  '1',
  '--no-server-stats',
];

async function runAndReport(uri: string, dir: string, docs: number) {
  const ns = `${uniqueDbName('storage')}.bench`;
  const out = join(dir, 'run');
  const r = await runCli([
    'run',
    '--uri',
    uri,
    ...RUN,
    '--docs',
    String(docs),
    '--doc-size',
    String(DOC_SIZE),
    '--ns',
    ns,
    '--out',
    out,
  ]);
  expect(r.stderr).not.toMatch(/error/i);
  expect(r.code).toBe(0);
  const result = await loadResult(join(out, 'results.json'));
  const report = join(dir, 'report');
  const rep = await runCli(['report', join(out, 'results.json'), '--out', report]);
  expect(rep.code).toBe(0);
  return { result, report, ns };
}

describeNeeding('ferretdb', 'storage per step on FerretDB', () => {
  let ferret: FerretDb;
  let dir: string;
  beforeAll(async () => {
    ferret = await startFerretDb();
    dir = mkdtempSync(join(tmpdir(), 'mb-storage-'));
  }, 30_000);
  afterAll(async () => {
    await ferret?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`2,000 documents of ${DOC_SIZE} bytes: every figure above 0, bytes per document within 0.5x..10x`, async () => {
    const { result, report } = await runAndReport(ferret.uri, dir, 2000);
    expect(result.target.product?.name).toBe('FerretDB');
    const st = result.steps[0].storage as StepStorage;
    expect(st).toBeDefined();
    expect(st.documents).toBe(2000);
    for (const field of [
      'dataBytes',
      'storageBytes',
      'indexBytes',
      'bytesPerDocument',
      'logicalBytesPerDocument',
      'indexBytesPerDocument',
    ] as const)
      expect(st[field]).toBeGreaterThan(0);
    // FerretDB reports freeStorageSize 0: a reported 0 stays 0.
    expect(st.freeStorageBytes).toBe(0);
    expect(st.indexes?._id_).toBeGreaterThan(0);
    expect(st.bytesPerDocument).toBeGreaterThanOrEqual(0.5 * DOC_SIZE);
    expect(st.bytesPerDocument).toBeLessThanOrEqual(10 * DOC_SIZE);
    // No WiredTiger block compressor named: no compression ratio, and why.
    expect(st.compressionRatio).toBeUndefined();
    expect(st.missing?.compressionRatio).toMatch(/block compressor/);
    expect(st.database?.storageBytes).toBeGreaterThan(0);
    expect(Date.parse(st.readAt)).not.toBeNaN();
    // The report keeps it: schema round trip, Storage section, CSV columns.
    const summary = readFileSync(join(report, 'summary.md'), 'utf8');
    expect(summary).toContain('### Storage');
    expect(summary).toContain('as of the last checkpoint');
    const csv = readFileSync(join(report, 'results.csv'), 'utf8').split('\n');
    const header = csv[0].split(',');
    const row = csv[1].split(',');
    expect(Number(row[header.indexOf('bytes_per_document')])).toBe(st.bytesPerDocument);
    expect(readFileSync(join(report, 'index.html'), 'utf8')).toContain('Storage');
  }, 120_000);
});

describeNeeding('crud', 'storage per step on the CRUD test double', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-storage-crud-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('marks what the double does not report, never a 0 that looks measured', async () => {
    const { result } = await runAndReport(crudUri(), dir, 200);
    const st = result.steps[0].storage as StepStorage;
    expect(st).toBeDefined();
    expect(st.missing).toBeDefined();
    for (const field of Object.keys(st.missing ?? {}))
      expect((st as Record<string, unknown>)[field]).toBeUndefined();
    // mongo-java-server's collStats has no index sizes or freeStorageSize: absent, with why.
    expect(st.missing?.indexBytes).toMatch(/no totalIndexSize/);
    expect(st.missing?.freeStorageBytes).toMatch(/no freeStorageSize/);
    expect(st.missing?.compressionRatio).toBeDefined();
    // What it does report is kept as reported: its documents, and its storageSize of 0 (held in memory).
    expect(st.documents).toBe(200);
    expect(st.storageBytes).toBe(0);
  }, 60_000);
});
