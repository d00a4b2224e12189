/**
 * Goldens of every preset's combined report. Each preset ran once (tiny sizes) against the CRUD test
 * server, or the fake sharded cluster for presplit-import, and its matrix.json, summary.md and
 * results.csv were kept in test/matrix/goldens/<preset>/. Two checks:
 * - summary.md and results.csv rendered from the kept matrix.json are byte-identical to the kept ones;
 * - a fresh run builds the same document, apart from what a run cannot repeat (timings, figures, ports).
 * MATRIX_GOLDENS_CAPTURE=1 rewrites the goldens from a fresh run.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MatrixDocument } from '../../lib/matrix/matrix-document';
import { writeMatrixReport } from '../../lib/matrix/write-matrix-report';
import { startFakeShardedCluster } from '../experiments/presplit-import/fake-sharded-cluster';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding } from '../support/servers';

const GOLDENS = join(__dirname, 'goldens');
const CAPTURE = process.env.MATRIX_GOLDENS_CAPTURE === '1';
const FILES = ['summary.md', 'results.csv'] as const;

const readDoc = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixDocument;

/** What any run of the same matrix on the same kind of server must repeat. */
function stableShape(doc: MatrixDocument) {
  return {
    name: doc.name,
    experiment: doc.experiment,
    source: doc.source,
    complete: doc.complete,
    capabilities: doc.capabilities,
    scale: doc.scale,
    scaleNote: doc.scaleNote,
    scaleApplied: doc.scaleApplied,
    parameters: doc.parameters,
    measures: doc.measures,
    notes: doc.notes.map((n) =>
      n.replace(/mongodb:\/\/[^ ;)]+/g, 'URI').replace(/\d+ MiB/g, 'N MiB'),
    ),
    rows: doc.rows.map((r) => ({
      label: r.label,
      description: r.description,
      settings: r.settings,
      status: r.status,
      reason: r.status === 'skipped' ? r.reason : undefined,
      measureKeys: Object.keys(r.measures).sort(),
      resultFile: r.resultFile,
      parameters: r.parameters,
      group: r.group,
      series: r.series,
      detailKeys: Object.keys(r.details ?? {}).sort(),
    })),
  };
}

const PRESETS: Array<{ preset: string; args: () => string[] }> = [
  {
    preset: 'most',
    args: () => [
      '--uri',
      crudUri(),
      '--docs',
      '64',
      '--doc-size',
      '1024',
      '--batch-size',
      '16',
      '--writers',
      '2',
      '--readers',
      '2',
      '--db',
      'mb_golden_most',
    ],
  },
  {
    preset: 'write-concern-latency',
    args: () => ['--uri', crudUri(), '--inserts', '10', '--db', 'mb_golden_wcl'],
  },
  {
    preset: 'softlayer',
    args: () => [
      '--uri',
      crudUri(),
      '--docs',
      '20',
      '--doc-size',
      '4096',
      '--max-clients',
      '2',
      '--seconds',
      '1',
      '--warmup',
      '0',
      '--db',
      'mb_golden_sl',
    ],
  },
  {
    preset: 'index-cost',
    args: () => [
      '--uri',
      crudUri(),
      '--docs',
      '50',
      '--doc-size',
      '256',
      '--writers',
      '2',
      '--db',
      'mb_golden_ic',
    ],
  },
];

let out: string;
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'mb-matrix-goldens-'));
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

async function checkAgainstGolden(preset: string, dir: string): Promise<void> {
  const golden = join(GOLDENS, preset);
  if (CAPTURE) {
    mkdirSync(golden, { recursive: true });
    for (const file of ['matrix.json', ...FILES]) copyFileSync(join(dir, file), join(golden, file));
  }
  expect(stableShape(readDoc(dir))).toEqual(stableShape(readDoc(golden)));
  const rendered = join(out, `${preset}-rendered`);
  await writeMatrixReport(readDoc(golden), rendered);
  for (const file of FILES)
    expect(readFileSync(join(rendered, file), 'utf8')).toBe(
      readFileSync(join(golden, file), 'utf8'),
    );
}

describeNeeding('crud', 'matrix goldens on the CRUD test server', () => {
  it.each(PRESETS)('$preset: summary.md and results.csv as kept', async ({ preset, args }) => {
    const dir = join(out, preset);
    const r = await runCli([
      'matrix',
      '--preset',
      preset,
      ...args(),
      '--test-double',
      '--out',
      dir,
    ]);
    expect(r.code).toBe(0);
    await checkAgainstGolden(preset, dir);
  });
});

describeNeeding('recording', 'matrix goldens on the fake sharded cluster', () => {
  it('presplit-import: summary.md and results.csv as kept', async () => {
    const cluster = await startFakeShardedCluster({ shards: 3 });
    const dir = join(out, 'presplit-import');
    try {
      const tiny = [
        '--docs',
        '640',
        '--doc-size',
        '200',
        '--batch-size',
        '128',
        '--writers',
        '2',
        '--sample-interval',
        '100',
      ];
      const r = await runCli([
        'matrix',
        '--preset',
        'presplit-import',
        '--uri',
        cluster.mongos.uri,
        '--setup',
        '--test-double',
        ...tiny,
        '--out',
        dir,
      ]);
      expect(r.code).toBe(0);
      await checkAgainstGolden('presplit-import', dir);
    } finally {
      await cluster.stop();
    }
  });
});
