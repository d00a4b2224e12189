import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MatrixDocument, MATRIX_SCHEMA } from '../../lib/matrix/matrix-document';
import { resolveMatrixOptions } from '../../lib/matrix/options';
import { runMatrix } from '../../lib/matrix/runner';
import { loadResult } from '../../lib/result';
import { crudKind, crudUri, describeNeeding, ENV, uniqueDbName } from '../support/servers';
import { runCli } from '../support/cli';

async function matrix(...args: string[]) {
  return runCli(['matrix', '--uri', crudUri(), ...args]);
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

function readMatrix(dir: string): MatrixDocument {
  return JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixDocument;
}

/** summary.md's table rows (the lines between the header rule and the next blank line). */
function tableRows(summary: string): string[][] {
  const lines = summary.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|:---'));
  const rows: string[][] = [];
  for (let i = start + 1; i < lines.length && lines[i].startsWith('|'); i++)
    rows.push(lines[i].slice(2, -2).split(' | '));
  return rows;
}

function expectPng(path: string): void {
  expect(existsSync(path)).toBe(true);
  expect(readFileSync(path).subarray(0, 4).equals(PNG_MAGIC)).toBe(true);
}

describeNeeding('crud', 'mongo-bench matrix against the CRUD test server', () => {
  let out: string;
  const javaServer = () => crudKind() === 'mongo-java-server';

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'mb-matrix-'));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('write-concern-latency: one row per write concern; w:2/w:3 skipped on a standalone; latencies in plausible ms', async () => {
    const dir = join(out, 'wcl');
    const r = await matrix(
      '--preset',
      'write-concern-latency',
      '--inserts',
      '40',
      '--db',
      uniqueDbName('wcl'),
      '--out',
      dir,
    );
    expect(r.stderr).toContain('scale 1 (--scale 1 = 200 inserts per write concern');
    expect(r.code).toBe(0);
    const doc = readMatrix(dir);
    expect(doc.schema).toBe(MATRIX_SCHEMA);
    expect(doc.complete).toBe(true);
    expect(doc.rows.map((row) => row.label)).toEqual(['w:0', 'w:1', 'j:true', 'w:2', 'w:3']);
    // An existing deployment: the log says where it connected and what each row did; setup.js that nothing was applied.
    const log = readFileSync(join(dir, 'command-log.txt'), 'utf8');
    expect(log).toContain('target: the existing deployment at mongodb://');
    expect(log).toMatch(/\[4\/5\] w:2: skipped \(w:2 needs a replica set/);
    expect(readFileSync(join(dir, 'setup.js'), 'utf8')).toContain(
      'Nothing: an existing deployment (--uri) is used as it is',
    );
    const byLabel = Object.fromEntries(doc.rows.map((row) => [row.label, row]));
    for (const label of ['w:2', 'w:3']) {
      expect(byLabel[label].status).toBe('skipped');
      expect(byLabel[label].reason).toContain('the target is a standalone');
    }
    if (javaServer()) {
      expect(byLabel['w:0'].status).toBe('skipped');
      expect(byLabel['w:0'].reason).toContain('was not applied');
    }
    for (const row of doc.rows.filter((x) => x.status === 'ok')) {
      const m = row.measures as Record<string, number>;
      expect(m.inserts).toBe(40);
      // Loopback inserts: more than a microsecond, far less than a second.
      expect(m.minMs).toBeGreaterThan(0.001);
      expect(m.maxMs).toBeLessThan(1000);
      expect(m.minMs).toBeLessThanOrEqual(m.p50Ms);
      expect(m.p50Ms).toBeLessThanOrEqual(m.p99Ms);
      expect(m.p99Ms).toBeLessThanOrEqual(m.maxMs);
      const result = await loadResult(join(dir, row.resultFile as string));
      expect(result.steps[0].ops.writes).toBe(40);
      expect(result.steps[0].latencyMicros.writes.count).toBe(40);
    }
    expect(doc.rows.filter((x) => x.status === 'ok').map((x) => x.label)).toEqual(
      expect.arrayContaining(['w:1', 'j:true']),
    );
    const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain(
      '| Configuration | Settings | Average (ms) | Min (ms) | Max (ms) | p50 (ms) | p99 (ms) | Inserts kept | On disk per document (bytes) | Indexes per document (bytes) | Status |',
    );
    expect(tableRows(summary)).toHaveLength(5);
    expect(summary).toContain('WiredTiger always journals');
    expect(readFileSync(join(dir, 'results.csv'), 'utf8').trim().split('\n')).toHaveLength(6);
    expectPng(join(dir, 'insert-latency.png'));
  }, 60_000);

  it('most: write and read MiB/s and consistent reads per configuration; impossible rows skipped with reasons', async () => {
    const dir = join(out, 'most');
    const db = uniqueDbName('most');
    const r = await matrix(
      '--preset',
      'most',
      '--scale',
      '0.0003',
      '--writers',
      '2',
      '--readers',
      '2',
      '--db',
      db,
      '--out',
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'scale 0.0003 (--scale 1 = 1,048,576 documents of 16 KiB (16 GiB), as the seed)',
    );
    const doc = readMatrix(dir);
    expect(doc.parameters.docs).toBe(315); // 1,048,576 x 0.0003
    expect(doc.rows).toHaveLength(14);
    const ok = doc.rows.filter((row) => row.status === 'ok');
    expect(ok.map((row) => row.label)).toEqual(
      expect.arrayContaining(['SAFE (w:1)', 'JOURNALED (w:1,j:true)']),
    );
    for (const row of ok) {
      const m = row.measures as Record<string, number>;
      expect(m.docs).toBe(315);
      expect(m.writeMiBps).toBeGreaterThan(0.1);
      expect(m.readMiBps).toBeGreaterThan(0.1);
      // 315 x 16 KiB = ~5 MiB over loopback: well under 100 GiB/s.
      expect(m.writeMiBps).toBeLessThan(100_000);
      // Acknowledged writes are all visible once the writers return (w:0 may legitimately miss a few).
      if ((row.details?.writeConcern as { w?: unknown } | null)?.w !== 0)
        expect(m.consistentPct).toBe(100);
      const result = await loadResult(join(dir, row.resultFile as string));
      expect(result.steps[0].ops.writes).toBe(315);
      expect(result.workload.docSize).toBeGreaterThan(16_000);
    }
    for (const row of doc.rows.filter((x) => x.status !== 'ok')) {
      expect(row.status).toBe('skipped');
      expect(row.reason).toBeTruthy();
    }
    for (const row of doc.rows.filter((x) => x.label.includes('secondary reads')))
      expect(row.reason).toMatch(/needs a replica set/);
    if (javaServer()) {
      expect(doc.rows.find((x) => x.label === 'SAFE (w:1), capped')?.reason).toContain(
        'refused to create a capped collection',
      );
    }
    const rows = tableRows(readFileSync(join(dir, 'summary.md'), 'utf8'));
    expect(rows.map((cells) => cells[0])).toEqual(doc.rows.map((x) => x.label));
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain(
      'Write (MiB/s) | Read (MiB/s) | Consistent reads (%)',
    );
    for (const png of ['write-mibps.png', 'read-mibps.png', 'consistent-reads.png'])
      expectPng(join(dir, png));
  }, 60_000);

  it('softlayer: the 6:1 sweep writes a result document with the four SoftLayer charts, and a row of best figures', async () => {
    const dir = join(out, 'softlayer');
    const r = await matrix(
      '--preset',
      'softlayer',
      '--docs',
      '30',
      '--doc-size',
      '8192',
      '--max-clients',
      '2',
      '--seconds',
      '1',
      '--warmup',
      '0',
      '--db',
      uniqueDbName('sl'),
      '--out',
      dir,
    );
    expect(r.code).toBe(0);
    const doc = readMatrix(dir);
    expect(doc.rows).toHaveLength(1);
    const [row] = doc.rows;
    expect(row.status).toBe('ok');
    const m = row.measures as Record<string, number>;
    expect(m.avgReads).toBeGreaterThan(0);
    expect(m.avgWrites).toBeGreaterThan(0);
    // 6 queries : 1 update.
    expect(m.avgReads / m.avgWrites).toBeGreaterThan(4);
    expect(m.avgReads / m.avgWrites).toBeLessThan(8);
    expect(m.dataMiB).toBeCloseTo((30 * 8192) / 2 ** 20, 6);
    const result = await loadResult(join(dir, row.resultFile as string));
    expect(result.steps.map((s) => s.clients)).toEqual([1, 2]);
    expect(result.workload.docSize).toBe(8192);
    for (const png of [
      'avg-read-ops.png',
      'peak-read-ops.png',
      'avg-write-ops.png',
      'peak-write-ops.png',
    ])
      expectPng(join(dir, '01-6-1-sweep', png));
    expectPng(join(dir, 'best-avg-reads.png'));
  }, 60_000);

  // A real mongod reports its RAM (and 0.5 x RAM would be a long load): this case needs the test double.
  const onServerWithoutRam = process.env[ENV.crudKind] === 'mongo-java-server' ? it : it.skip;
  onServerWithoutRam(
    `softlayer --dataset-ratio on a server that does not report its RAM: a clear message asking for --docs${process.env[ENV.crudKind] === 'mongo-java-server' ? '' : ' [skipped: the CRUD server is a real mongod, which reports its RAM]'}`,
    async () => {
      const r = await matrix(
        '--preset',
        'softlayer',
        '--dataset-ratio',
        '0.5',
        '--max-clients',
        '1',
        '--seconds',
        '1',
        '--db',
        uniqueDbName('ratio'),
        '--out',
        join(out, 'ratio'),
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        "option --dataset-ratio: cannot size the data by the server's RAM: the server does not report it (hostInfo has no system.memSizeMB",
      );
      expect(r.stderr).toContain('give --docs N instead');
    },
    20_000,
  );

  it('--matrix FILE runs a custom list, in order, with per-configuration parameters', async () => {
    const dir = join(out, 'custom');
    const file = join(out, 'custom.yaml');
    writeFileSync(
      file,
      [
        'name: two-writers',
        'experiment: most',
        'parameters: { docs: 200, docSize: 2048, batchSize: 50, readers: 1 }',
        'configurations:',
        '  - label: one writer',
        '    writeConcern: { w: 1 }',
        '    parameters: { writers: 1 }',
        '  - label: four writers',
        '    writeConcern: { w: 1 }',
        '    parameters: { writers: 4 }',
        '  - label: five members',
        '    writeConcern: { w: 5 }',
      ].join('\n'),
    );
    const r = await matrix('--matrix', file, '--db', uniqueDbName('custom'), '--out', dir);
    expect(r.code).toBe(0);
    const doc = readMatrix(dir);
    expect(doc.name).toBe('two-writers');
    expect(doc.rows.map((x) => [x.label, x.status])).toEqual([
      ['one writer', 'ok'],
      ['four writers', 'ok'],
      ['five members', 'skipped'],
    ]);
    const four = await loadResult(join(dir, doc.rows[1].resultFile as string));
    expect(four.config.writers).toBe(4);
    expect(four.steps[0].clients).toBe(5); // 4 writers + 1 reader
    expect(doc.rows[0].measures.docs).toBe(200);
  }, 60_000);

  it('an interrupted matrix keeps matrix.json with the finished rows, complete: false, the rest marked not run', async () => {
    const dir = join(out, 'interrupted');
    const controller = new AbortController();
    const options = resolveMatrixOptions({
      preset: 'write-concern-latency',
      uri: crudUri(),
      inserts: 10,
      db: uniqueDbName('intr'),
      out: dir,
    });
    options.definition.configurations = options.definition.configurations.filter(
      (c) => c.writeConcern?.w !== 0,
    );
    const seen: string[] = [];
    const doc = await runMatrix(options, {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'config-done') {
          seen.push(e.row.label);
          if (e.index === 0) controller.abort('SIGINT');
        }
      },
    });
    expect(seen).toEqual(['w:1']);
    const saved = readMatrix(dir);
    expect(saved.complete).toBe(false);
    expect(saved.incompleteReason).toBe('interrupted (SIGINT) after 1 of 4 configurations');
    expect(saved.rows.map((x) => x.status)).toEqual(['ok', 'not-run', 'not-run', 'not-run']);
    expect(saved.rows[0].measures.inserts).toBe(10);
    expect(doc.rows[1].reason).toBe('not run: the matrix was interrupted');
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain(
      '**INCOMPLETE: interrupted (SIGINT)',
    );
  }, 60_000);
});
