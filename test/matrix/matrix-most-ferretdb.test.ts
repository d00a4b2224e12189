/**
 * MOST's w:0 rows on FerretDB, a server that answers unacknowledged writes (an OP_MSG reply to a message
 * with moreToCome set, which MongoDB never sends). The writes go through a client of their own, so no reply
 * is left on the shared connections: the w:0 capped row reads its storage, and the next row (SAFE, capped)
 * does not read that reply as its own ("BSON element 'cursor' is missing" before).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MatrixDocument } from '../../lib/matrix/matrix-document';
import { runCli } from '../support/cli';
import { FerretDb, startFerretDb } from '../support/go-servers';
import { describeNeeding, uniqueDbName } from '../support/servers';

describeNeeding('ferretdb', 'MOST w:0 then w:1 on FerretDB', () => {
  let ferret: FerretDb;
  let dir: string;
  beforeAll(async () => {
    ferret = await startFerretDb();
    dir = mkdtempSync(join(tmpdir(), 'mb-most-ferret-'));
  }, 30_000);
  afterAll(async () => {
    await ferret?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the w:0 rows read their storage and leave nothing for the next row to misread', async () => {
    const file = join(dir, 'm.json');
    writeFileSync(
      file,
      JSON.stringify({
        experiment: 'most',
        configurations: [
          { label: 'NORMAL, capped', writeConcern: { w: 0 }, capped: true },
          { label: 'SAFE, capped', writeConcern: { w: 1 }, capped: true },
          { label: 'NORMAL', writeConcern: { w: 0 } },
          { label: 'SAFE', writeConcern: { w: 1 } },
        ],
      }),
    );
    const out = join(dir, 'out');
    const r = await runCli([
      'matrix',
      '--matrix',
      file,
      '--uri',
      ferret.uri,
      ...['--docs', '100', '--doc-size', '1024', '--batch-size', '10'],
      ...['--writers', '2', '--readers', '2', '--db', uniqueDbName('mostfdb'), '--out', out],
    ]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8')) as MatrixDocument;
    for (const row of doc.rows) {
      expect({ label: row.label, status: row.status }).toEqual({ label: row.label, status: 'ok' });
      expect(row.measures.bytesPerDocument).toBeGreaterThan(0);
      expect(row.measures.indexBytesPerDocument).toBeGreaterThan(0);
    }
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toContain('> **NOT MongoDB: FerretDB');
    expect(summary).not.toMatch(/· MongoDB \d/);
  }, 60_000);
});
