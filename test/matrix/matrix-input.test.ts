import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../lib/config/errors';
import { parseMatrixDocument, readMatrixFile } from '../../lib/matrix/matrix-file';
import { resolveMatrixOptions } from '../../lib/matrix/options';
import { planMatrix } from '../../lib/matrix/plan';
import { matrixPreset } from '../../lib/matrix/presets';
import { runCli } from '../support/cli';

async function matrix(...args: string[]) {
  return runCli(['matrix', ...args]);
}

// Nothing listens there: bad input must fail before any connection is tried.
const DEAD_URI = 'mongodb://127.0.0.1:1';

const goodFile = {
  name: 'mine',
  experiment: 'most',
  parameters: { docs: 100 },
  configurations: [
    { label: 'SAFE', writeConcern: { w: 1 } },
    { label: 'JOURNALED', writeConcern: { w: 1, j: true }, parameters: { writers: 2 } },
    { label: 'REPLICA', writeConcern: { w: 2 }, readPreference: 'secondary' },
  ],
};

describe('matrix files', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-matrix-file-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  it('a valid JSON file becomes a definition with its configurations in order', () => {
    const def = readMatrixFile(file('good.json', goodFile));
    expect(def.name).toBe('mine');
    expect(def.experiment).toBe('most');
    expect(def.configurations.map((c) => c.label)).toEqual(['SAFE', 'JOURNALED', 'REPLICA']);
    expect(def.source).toContain('good.json');
  });

  it('reads YAML too, and names the definition after the file when it has no name', () => {
    const path = file(
      'my-list.yaml',
      'experiment: write-concern-latency\nconfigurations:\n  - label: w1\n    writeConcern: { w: 1 }\n  - label: majority\n    writeConcern: { w: majority }\n',
    );
    const def = readMatrixFile(path);
    expect(def.name).toBe('my-list');
    expect(def.configurations[1].writeConcern).toEqual({ w: 'majority' });
  });

  it('a bad write concern names the path inside the file', () => {
    const bad = structuredClone(goodFile) as { configurations: Array<Record<string, unknown>> };
    bad.configurations[2].writeConcern = { w: -1 };
    const path = file('bad-w.json', bad);
    expect(() => readMatrixFile(path)).toThrow(UsageError);
    expect(() => readMatrixFile(path)).toThrow(
      `matrix file ${path}: configurations[2].writeConcern.w: expected a number of members`,
    );
  });

  it.each([
    [
      { ...goodFile, configurations: [{ label: 'a', writeConcern: { w: 1, jj: true } }] },
      'configurations[0].writeConcern.jj: unknown key',
    ],
    [
      { ...goodFile, configurations: [{ label: 'a', capped: 'yes' }] },
      'configurations[0].capped: expected true or false',
    ],
    [
      { ...goodFile, configurations: [{ label: 'a', readPreference: 'slaveOk' }] },
      'configurations[0].readPreference: expected one of primary',
    ],
    [
      { ...goodFile, configurations: [{ label: 'a' }, { label: 'a' }] },
      'configurations[1].label: duplicate label "a" (also configurations[0])',
    ],
    [
      { ...goodFile, configurations: [{ label: 'a', parameters: { writers: 0 } }] },
      'configurations[0].parameters.writers: writers must be at least 1',
    ],
    [
      { ...goodFile, configurations: [{ label: 'a', parameters: { inserts: 5 } }] },
      'configurations[0].parameters.inserts: unknown key',
    ],
    [{ ...goodFile, configurations: [] }, 'configurations: expected at least one configuration'],
    [
      { ...goodFile, experiment: 'mots' },
      'experiment: expected one of most, write-concern-latency, softlayer, presplit-import, index-cost (got "mots"); did you mean "most"?',
    ],
    [{ ...goodFile, colour: 'red' }, 'colour: unknown key'],
  ])('rejects %j', (doc, message) => {
    expect(() => parseMatrixDocument(doc, 'matrix file m.json')).toThrow(
      `matrix file m.json: ${message}`,
    );
  });

  it('invalid JSON and a missing file are named', () => {
    const path = file('broken.json', '{"experiment": ');
    expect(() => readMatrixFile(path)).toThrow(`matrix file ${path}: not valid JSON`);
    expect(() => readMatrixFile(join(dir, 'nope.json'))).toThrow('option --matrix: cannot read');
  });

  it('the CLI reports a malformed file with exit code 2, before connecting', async () => {
    const bad = structuredClone(goodFile) as { configurations: Array<Record<string, unknown>> };
    bad.configurations[2].writeConcern = { w: 'x', j: 'yes' };
    const path = file('cli-bad.json', bad);
    const r = await matrix('--uri', DEAD_URI, '--matrix', path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`configurations[2].writeConcern.j: expected true or false`);
  });
});

describe('matrix command line: bad input is a clear error (exit 2)', () => {
  it.each([
    [['--preset', 'mots'], 'option --preset: unknown preset "mots" (did you mean "most"?)'],
    [['--preset', 'write-concern'], 'presets: most, write-concern-latency, softlayer'],
    [
      ['--preset', 'most', '--scale', '0'],
      "option --scale: must be > 0 (1 = the seed's full size)",
    ],
    [['--preset', 'most', '--scale', '-2'], 'option --scale: must be > 0'],
    [['--preset', 'most', '--scale', 'big'], 'option --scale: expected a number, got "big"'],
    [
      ['--preset', 'most', '--inserts', '10'],
      'option --inserts: does not apply to the most experiment',
    ],
    [
      ['--preset', 'write-concern-latency', '--writers', '2'],
      'option --writers: does not apply to the write-concern-latency experiment',
    ],
    [
      ['--preset', 'most', '--dataset-ratio', '2'],
      'option --dataset-ratio: only the softlayer experiment sizes data by RAM',
    ],
    [
      ['--preset', 'softlayer', '--dataset-ratio', '2', '--docs', '10'],
      'options --docs and --dataset-ratio cannot be combined',
    ],
    [
      ['--preset', 'softlayer', '--dataset-ratio', '0'],
      'option --dataset-ratio: each ratio must be > 0',
    ],
    [
      ['--preset', 'most', '--read-start', 'soon'],
      'option --read-start: expected after-writes or with-writes',
    ],
    [
      ['--preset', 'most', '--matrix', 'x.json'],
      'options --preset and --matrix cannot be combined',
    ],
    [[], 'option --preset or --matrix: required'],
  ])('%j', async (args, message) => {
    const r = await matrix('--uri', DEAD_URI, ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  // Without --uri the matrix now uses the embedded default or a launched cluster, as run does:
  // test/matrix/matrix-launched.test.ts.
});

describe('planning a matrix', () => {
  const options = (args: Parameters<typeof resolveMatrixOptions>[0]) =>
    resolveMatrixOptions({ uri: DEAD_URI, ...args }, new Date('2026-01-02T03:04:05Z'));

  it('most at the default scale: 16,384 documents of 16 KiB, 6 writers, batches of 256; one folder per configuration', () => {
    const plan = planMatrix(options({ preset: 'most' }));
    expect(plan.parameters).toMatchObject({
      docs: 16_384,
      docSize: 16_384,
      batchSize: 256,
      writers: 6,
      readers: 6,
      readStart: 'after-writes',
    });
    expect(plan.configurations).toHaveLength(matrixPreset('most').configurations.length);
    expect(plan.configurations[0].dir).toBe('01-normal-w-0');
    expect(new Set(plan.configurations.map((c) => c.dir)).size).toBe(plan.configurations.length);
    expect(options({ preset: 'most' }).outDir).toBe('reports/2026-01-02T03-04-05Z-matrix-most');
  });

  it('--scale 1 is the seed: 1,048,576 documents; command-line parameters win over the scale', () => {
    expect(planMatrix(options({ preset: 'most', scale: 1 })).parameters.docs).toBe(1_048_576);
    const plan = planMatrix(options({ preset: 'most', scale: 1, docs: 500, writers: 2 }));
    expect(plan.parameters).toMatchObject({ docs: 500, writers: 2 });
    expect(plan.scaleNote).toContain('not applied here: docs was given');
  });

  it('write-concern-latency: 200 inserts, two rounds; five write concerns', () => {
    const plan = planMatrix(options({ preset: 'write-concern-latency' }));
    expect(plan.parameters).toEqual({ inserts: 200, rounds: 2 });
    expect(plan.configurations.map((c) => c.config.writeConcern)).toEqual([
      { w: 0 },
      { w: 1 },
      { w: 1, j: true },
      { w: 2 },
      { w: 3 },
    ]);
  });

  it('softlayer: clients up to 32, 512 KiB documents; --dataset-ratio makes one configuration per ratio', () => {
    const plan = planMatrix(options({ preset: 'softlayer', datasetRatio: [0.5, 2] }));
    expect(plan.parameters).toMatchObject({ maxClients: 32, docSize: 512 * 1024 });
    expect(plan.configurations.map((c) => [c.config.label, c.parameters.datasetRatio])).toEqual([
      ['data = 0.5 x RAM', 0.5],
      ['data = 2 x RAM', 2],
    ]);
  });
});
