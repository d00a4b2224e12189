/**
 * `mongo-bench matrix --preset presplit-import` through the CLI: against the fake sharded cluster of
 * the experiment's tests (recording servers: the mongos routes each document to the shard whose chunk
 * holds its key and counts it in that shard's serverStatus), against the CRUD server (not a mongos:
 * the rows are skipped, with the reason), and the refusal to touch a cluster without --setup.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MatrixDocument } from '../../lib/matrix/matrix-document';
import { resolveMatrixOptions } from '../../lib/matrix/options';
import { planMatrix } from '../../lib/matrix/plan';
import { runMatrix } from '../../lib/matrix/runner';
import { parseMatrixDocument } from '../../lib/matrix/matrix-file';
import { loadPresplitImportResult } from '../../lib/experiments/presplit-import';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { startFakeShardedCluster } from '../experiments/presplit-import/fake-sharded-cluster';
import { runCli } from '../support/cli';

async function matrix(...args: string[]) {
  return runCli(['matrix', ...args]);
}

const readMatrix = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixDocument;
const isPng = (path: string) =>
  existsSync(path) && readFileSync(path).subarray(1, 4).toString() === 'PNG';

// Nothing listens there: bad input must fail before any connection is tried.
const DEAD_URI = 'mongodb://127.0.0.1:1';
const DOCS = 1280; // 20 times through g = 0..63
const TINY = [
  '--docs',
  String(DOCS),
  '--doc-size',
  '200',
  '--batch-size',
  '128',
  '--writers',
  '2',
  '--sample-interval',
  '100',
];

let out: string;
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'mb-matrix-presplit-'));
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('matrix presplit-import: input', () => {
  it('refuses to change an existing cluster without --setup, naming what it would change', async () => {
    const r = await matrix(
      '--preset',
      'presplit-import',
      '--uri',
      DEAD_URI,
      ...TINY,
      '--out',
      join(out, 'no-setup'),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'option --setup: required by presplit-import, which changes the data distribution of the existing cluster at mongodb://127.0.0.1:1',
    );
    expect(r.stderr).toContain(
      'drops mongo_bench_matrix.presplit_import, shards it, splits and moves its chunks',
    );
    expect(r.stderr).toContain('Add --setup to allow these changes.');
    expect(existsSync(join(out, 'no-setup'))).toBe(false);
  });

  it.each([
    [
      ['--preset', 'most', '--setup'],
      "option --setup: only presplit-import changes the target's setup (this matrix runs most)",
    ],
    [
      ['--preset', 'presplit-import', '--setup', '--readers', '2'],
      'option --readers: does not apply to the presplit-import experiment (its options: --docs, --doc-size, --batch-size, --writers, --shard-key, --presplit, --chunk-size, --hashed-key, --sample-interval, --max-seconds)',
    ],
    [
      ['--preset', 'presplit-import', '--setup', '--presplit', '64'],
      'option --presplit: expected MIN:MAX with numeric bounds (e.g. 0:64), got "64"',
    ],
    [
      ['--preset', 'presplit-import', '--setup', '--presplit', '9:3'],
      'option --presplit: MIN must be less than MAX, got 9:3',
    ],
    [
      ['--preset', 'presplit-import', '--setup', '--shard-key', 'g', '--hashed-key', 'h'],
      'configurations[0].parameters.hashedKey: must be _id or the ranged key field "g"',
    ],
    [
      ['--preset', 'most', '--shard-key', 'g'],
      'option --shard-key: does not apply to the most experiment',
    ],
  ])('%j is a usage error', async (args, message) => {
    const r = await matrix(...args, '--uri', DEAD_URI, '--out', join(out, 'bad'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('plans three configurations, one per way, with the seed size scaled and the flags as parameters', () => {
    const plan = planMatrix(
      resolveMatrixOptions({
        preset: 'presplit-import',
        uri: DEAD_URI,
        setup: true,
        presplit: '0:32',
        chunkSize: 256,
      }),
    );
    expect(plan.configurations.map((c) => c.parameters.way)).toEqual([
      'ranged',
      'presplit',
      'hashed',
    ]);
    expect(plan.configurations.map((c) => c.config.label)).toEqual([
      '(a) ranged key, no pre-split, balancer on',
      '(b) pre-split, chunks moved, balancer stopped, larger chunks',
      '(c) hashed shard key',
    ]);
    expect(plan.parameters).toMatchObject({
      docs: 16_384,
      docSize: 16_384,
      batchSize: 256,
      writers: 6,
      range: '0:32',
      chunkSize: 256,
    });
    expect(plan.configurations[1].settings).toBe(
      'ranged key g pre-split over 0:32, a chunk per shard, chunk size 256 MB, balancer stopped',
    );
  });

  it('a matrix file of presplit-import configurations must give each its way', () => {
    const file = {
      experiment: 'presplit-import',
      parameters: { docs: 100 },
      configurations: [{ label: 'a', parameters: { way: 'ranged' } }, { label: 'b' }],
    };
    const definition = parseMatrixDocument(file, 'matrix file m.json');
    expect(() =>
      planMatrix({
        definition,
        uri: DEAD_URI,
        db: 'x',
        scale: 1,
        overrides: {},
        outDir: out,
        serverSelectionTimeoutMS: 100,
        allowSetup: true,
      }),
    ).toThrow(
      'matrix file m.json: configurations[1].parameters.way: required: the way this configuration imports (ranged, presplit or hashed)',
    );
    expect(() =>
      parseMatrixDocument(
        { ...file, configurations: [{ label: 'a', parameters: { way: 'sideways' } }] },
        'matrix file m.json',
      ),
    ).toThrow(
      'matrix file m.json: configurations[0].parameters.way: expected one of ranged, presplit, hashed',
    );
  });
});

describeNeeding('recording', 'matrix --preset presplit-import on a fake 3-shard cluster', () => {
  it('runs the three ways as rows with measures, per-shard charts per row and side by side, and puts the cluster back', async () => {
    const cluster = await startFakeShardedCluster({ shards: 3 });
    const dir = join(out, 'fake');
    try {
      const r = await matrix(
        '--preset',
        'presplit-import',
        '--uri',
        cluster.mongos.uri,
        '--setup',
        '--test-double',
        ...TINY,
        '--out',
        dir,
      );
      expect(r.stderr).not.toContain('failed');
      expect(r.code).toBe(0);
      // Progress per way: setup steps, then inserts so far and their rate.
      expect(r.stderr).toMatch(/setup \d+\/\d+: .*\((applied|skipped)\)/);
      for (const way of ['ranged', 'presplit', 'hashed'])
        expect(r.stderr).toMatch(
          new RegExp(`${way}: [\\d,]+ of 1,280 documents inserted, [\\d,]+ inserts/s`),
        );

      const doc = readMatrix(dir);
      expect(doc.experiment).toBe('presplit-import');
      expect(doc.complete).toBe(true);
      expect(doc.capabilities.topology.kind).toBe('sharded');
      expect(doc.rows.map((row) => [row.details?.way, row.status])).toEqual([
        ['ranged', 'ok'],
        ['presplit', 'ok'],
        ['hashed', 'ok'],
      ]);
      // Each row's figures come from what the fake shards counted.
      expect(cluster.mongosInserts()).toBe(3 * DOCS);
      const [ranged, presplit, hashed] = doc.rows.map(
        (row) => row.measures as Record<string, number | null>,
      );
      for (const m of [ranged, presplit, hashed]) {
        expect(m.docsPerSec).toBeGreaterThan(0);
        expect(m.seconds).toBeGreaterThan(0);
        expect(m.peakMongosPerSec).toBeGreaterThan(0);
      }
      expect(ranged).toMatchObject({ busiestSharePct: 100, busiestToIdlest: null, chunksAfter: 1 });
      expect(ranged.spreadCv).toBeCloseTo(Math.SQRT2, 3);
      expect(presplit.chunksAfter).toBe(3);
      expect(presplit.spreadCv).toBeLessThan(0.05);
      expect(hashed.chunksAfter).toBe(6);
      expect(doc.rows[0].details?.insertsPerShard).toEqual({ shard0: DOCS, shard1: 0, shard2: 0 });

      // Each row: the way's result, its per-shard chart, the setup commands it sent.
      for (const [i, row] of doc.rows.entries()) {
        const way = String(row.details?.way);
        const rowDir = join(dir, row.resultFile!.split('/')[0]);
        const result = await loadPresplitImportResult(join(dir, row.resultFile!));
        expect(result.ways.map((w) => w.way)).toEqual([way]);
        expect(result.target.testDouble).toBeTruthy();
        expect(isPng(join(rowDir, `${way}-per-shard.png`))).toBe(true);
        expect(readFileSync(join(rowDir, 'command-log.txt'), 'utf8')).toMatch(
          i === 2 ? /shardCollection.*hashed/ : /shardCollection/,
        );
      }
      expect(
        readFileSync(join(dir, doc.rows[1].resultFile!.split('/')[0], 'command-log.txt'), 'utf8'),
      ).toContain('"balancerStop"');
      // The ways side by side.
      for (const png of [
        'ranged-per-shard.png',
        'presplit-per-shard.png',
        'hashed-per-shard.png',
        'total.png',
      ])
        expect(isPng(join(dir, 'comparison', png))).toBe(true);
      expect(
        (await loadPresplitImportResult(join(dir, 'comparison', 'presplit-import.json'))).ways,
      ).toHaveLength(3);
      // The matrix's own report.
      for (const png of ['import-inserts-per-sec.png', 'busiest-shard-share.png', 'spread-cv.png'])
        expect(isPng(join(dir, png))).toBe(true);
      const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
      expect(summary).toContain(
        '| Configuration | Settings | Client inserts (ops/s) | Import time (s) | Peak mongos inserts (ops/s) | Spread (CV, 0 = even) | Busiest shard share (%) | Busiest/idlest | Chunks after | On disk per document (bytes) | Indexes per document (bytes) | Status |',
      );
      expect(summary).toMatch(
        /\| \(a\) ranged key, no pre-split, balancer on \| ranged key g, one initial chunk, balancer on \| [\d,]+ \| [\d.]+ \| [\d,]+ \| 1\.41 \| 100 \| – \| 1 \| [\d,–]+ \| [\d,–]+ \| ok \|/,
      );
      expect(readFileSync(join(dir, 'results.csv'), 'utf8')).toContain(
        'docs_per_sec,import_seconds,peak_mongos_inserts_per_sec,spread_cv,busiest_shard_share_pct,busiest_to_idlest,chunks_after,bytes_per_document,index_bytes_per_document',
      );

      // The cluster as it was found: balancer on, no chunk size setting, no collection.
      expect(cluster.state.balancerMode).toBe('full');
      expect(cluster.state.settings.has('chunksize')).toBe(false);
      expect(cluster.state.collections.has('mongo_bench_matrix.presplit_import')).toBe(false);
    } finally {
      await cluster.stop();
    }
  }, 30_000);
});

describeNeeding('recording', 'matrix --preset presplit-import interrupted', () => {
  it('keeps the way it was importing as an interrupted row with what it measured; the rest are not run; the cluster is put back', async () => {
    const cluster = await startFakeShardedCluster({ shards: 2 });
    const dir = join(out, 'interrupted');
    const controller = new AbortController();
    try {
      const options = resolveMatrixOptions({
        preset: 'presplit-import',
        uri: cluster.mongos.uri,
        setup: true,
        testDouble: true,
        docs: 1_000_000,
        batchSize: 100,
        writers: 1,
        sampleInterval: 100,
        out: dir,
      });
      const doc = await runMatrix(options, {
        signal: controller.signal,
        // The first "N of M documents inserted" line comes after about a second of import.
        onEvent: (e) => {
          if (e.type === 'config-progress' && e.text.includes('documents inserted'))
            controller.abort('SIGINT');
        },
      });
      expect(doc.complete).toBe(false);
      expect(doc.rows.map((row) => row.status)).toEqual(['interrupted', 'not-run', 'not-run']);
      const [row] = doc.rows;
      expect(row.reason).toMatch(/^interrupted after \d+ of 1000000 documents$/);
      expect(row.measures.docsPerSec).toBeGreaterThan(0);
      expect(row.measures.busiestSharePct).toBe(100);
      expect((await loadPresplitImportResult(join(dir, row.resultFile!))).complete).toBe(false);
      expect(existsSync(join(dir, 'comparison'))).toBe(false);
      expect(cluster.state.balancerMode).toBe('full');
      expect(cluster.state.collections.has('mongo_bench_matrix.presplit_import')).toBe(false);
    } finally {
      await cluster.stop();
    }
  }, 30_000);
});

describeNeeding('crud', 'matrix --preset presplit-import against the CRUD test server', () => {
  it('keeps the three rows, skipped because the target is not a mongos', async () => {
    const dir = join(out, 'crud');
    const r = await matrix(
      '--preset',
      'presplit-import',
      '--uri',
      crudUri(),
      '--setup',
      '--db',
      uniqueDbName('presplit'),
      ...TINY,
      '--out',
      dir,
    );
    expect(r.code).toBe(0);
    const doc = readMatrix(dir);
    expect(doc.rows).toHaveLength(3);
    for (const row of doc.rows) {
      expect(row.status).toBe('skipped');
      expect(row.reason).toMatch(
        /^not a mongos: presplit-import shards a collection and needs a sharded cluster's router; the target is a standalone/,
      );
    }
    expect(r.stderr).toContain('skipped: not a mongos');
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('skipped: not a mongos');
    expect(existsSync(join(dir, 'comparison'))).toBe(false);
  }, 20_000);
});
