/**
 * No command replaces a file of the user's: a folder seeded with the user's own files named like a
 * command's outputs (README.md, results.json without a schema, index.html without the page's header,
 * summary.md, ...) survives every command that writes files, byte for byte, and the command is refused
 * with exit 2 naming each file, having written nothing (no command-log.txt, no setup.js, no marker);
 * with --force the files are replaced. A folder mongo-bench wrote before is rewritten without --force:
 * with its marker (.mongo-bench.json), or without one for the files that carry mongo-bench's mark (the
 * committed shell-scripts/ examples). run uses the CRUD test double; the others need no server.
 */
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding } from '../support/servers';

const FIXTURES = join(__dirname, '..', 'fixtures');
const RESULT = join(FIXTURES, 'result-complete.json');
const CLOSED = 'mongodb://127.0.0.1:1/';
const MARKER = '.mongo-bench.json';

/** The user's own files, by the names mongo-bench's commands write. */
const USERS: Record<string, string> = {
  'README.md': '# My project\n\nNotes I keep here.\n',
  'results.json': '{"label": "numbers I measured by hand", "steps": []}\n',
  'index.html': '<!DOCTYPE html>\n<html><body><h1>My dashboard</h1></body></html>\n',
  'summary.md': '# What I found\n',
  'results.csv': 'when,what\n2026-01-05,everything\n',
  'avg-read-ops.png': 'my picture',
  '00-start.sh': '#!/bin/sh\necho my own start script\n',
  'compare.md': '# My comparison\n',
  'compare.json': '{"mine": true}\n',
  'history.md': '# My history\n',
  'history.json': '{"mine": true}\n',
  'workload.json': '{"name": "my hand-tuned workload", "ops": [{"op": "findOne", "query": {}}]}\n',
  'capture.md': '# My capture notes\n',
  'matrix.json': '{"schema": "mongo-bench/matrix-file@1", "experiment": "most"}\n',
  'suite.json': '{"mine": true}\n',
  'setup.js': '// my own mongosh script\n',
};

/** Every file under `dir` (sub-folders too), by relative path, with its checksum. */
function checksums(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else out[relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

describe('no command replaces a file it did not write (exit 2 naming each; --force replaces)', () => {
  let root: string;
  let count = 0;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'mb-file-harm-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A fresh folder holding the user's files of these names. */
  const seeded = (...names: string[]): string => {
    const dir = join(root, `folder-${++count}`);
    mkdirSync(dir, { recursive: true });
    for (const name of names) writeFileSync(join(dir, name), USERS[name]);
    return dir;
  };

  /** Refused with exit 2 naming each file and --force, and the folder exactly as it was: nothing written. */
  const refused = async (args: string[], dir: string, names: string[]) => {
    const before = checksums(dir);
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('nothing was written');
    for (const name of names) expect(run.stderr).toContain(`${join(dir, name)} exists`);
    expect(run.stderr).toContain('--force');
    expect(checksums(dir)).toEqual(before);
    return run;
  };

  /** Ran (any exit but 2), and each named file is mongo-bench's now. */
  const replaced = async (args: string[], dir: string, names: string[]) => {
    const before = checksums(dir);
    const run = await runCli(args);
    // On a refusal, the failure shows what was refused.
    expect(run.code === 2 ? run.stderr : 'not refused').toBe('not refused');
    const after = checksums(dir);
    for (const name of names) expect(after[name]).not.toBe(before[name]);
    expect(Object.keys(after)).toContain(MARKER);
    return run;
  };

  it("scripts: README.md and a start script of the user's; --force; then its own folder, with and without a marker", async () => {
    const args = (dir: string, ...more: string[]) => [
      'scripts',
      '--topology',
      'standalone',
      '--out',
      dir,
      ...more,
    ];
    const dir = seeded('README.md', '00-start.sh');
    await refused(args(dir), dir, ['README.md', '00-start.sh']);
    await replaced(args(dir, '--force'), dir, ['README.md', '00-start.sh']);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain(
      'Generated by `mongo-bench scripts',
    );
    // Again, without --force: the folder's marker lists them.
    expect((await runCli(args(dir))).code).toBe(0);
    // The committed example, written before the marker existed: its files carry their mark.
    const example = join(root, 'example-standalone');
    cpSync(join(__dirname, '..', '..', 'shell-scripts', 'standalone'), example, {
      recursive: true,
    });
    expect(existsSync(join(example, MARKER))).toBe(false);
    const run = await runCli(args(example));
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it("report: summary.md, index.html, results.csv and a chart of the user's; a report folder without its marker names only the unmarked CSV and PNGs", async () => {
    const names = ['summary.md', 'index.html', 'results.csv', 'avg-read-ops.png'];
    const dir = seeded(...names);
    await refused(['report', RESULT, '--out', dir], dir, names);
    await replaced(['report', RESULT, '--out', dir, '--force'], dir, names);
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toContain(
      '<meta name="generator" content="mongo-bench">',
    );
    expect((await runCli(['report', RESULT, '--out', dir])).code).toBe(0);
    // Without the marker, summary.md and index.html still carry their mark; a CSV and a PNG cannot.
    rmSync(join(dir, MARKER));
    const run = await refused(['report', RESULT, '--out', dir], dir, [
      'results.csv',
      'avg-read-ops.png',
    ]);
    expect(run.stderr).not.toContain(join(dir, 'summary.md'));
    expect(run.stderr).not.toContain(join(dir, 'index.html'));
  });

  it("compare: compare.md, compare.json and index.html of the user's; --force; then again without", async () => {
    const names = ['compare.md', 'compare.json', 'index.html'];
    const dir = seeded(...names);
    const [a, b] = [join(FIXTURES, 'compare-w0.json'), join(FIXTURES, 'compare-w1.json')];
    await refused(['compare', a, b, '--out', dir], dir, names);
    await replaced(['compare', a, b, '--out', dir, '--force'], dir, names);
    expect((await runCli(['compare', a, b, '--out', dir])).code).not.toBe(2);
  });

  it("history: history.md and history.json of the user's; --force; then again without", async () => {
    const store = join(root, 'store');
    mkdirSync(store);
    cpSync(RESULT, join(store, 'results.json'));
    const names = ['history.md', 'history.json'];
    const dir = seeded(...names);
    await refused(['history', '--store', store, '--out', dir], dir, names);
    await replaced(['history', '--store', store, '--out', dir, '--force'], dir, names);
    expect((await runCli(['history', '--store', store, '--out', dir])).code).not.toBe(2);
  });

  it("capture: a hand-tuned workload.json and capture.md of the user's; --force; then again without", async () => {
    const log = join(FIXTURES, 'capture', 'logs');
    const names = ['workload.json', 'capture.md'];
    const dir = seeded(...names);
    await refused(['capture', log, '--out', dir], dir, names);
    await replaced(['capture', log, '--out', dir, '--force'], dir, names);
    expect((await runCli(['capture', log, '--out', dir])).code).toBe(0);
  });

  it('matrix, perf-suite, calibrate and diskperf: refused before anything starts, connects or measures', async () => {
    const matrixDir = seeded('summary.md', 'matrix.json', 'results.csv');
    const matrix = await refused(
      ['matrix', '--preset', 'write-concern-latency', '--uri', CLOSED, '--out', matrixDir],
      matrixDir,
      ['summary.md', 'matrix.json', 'results.csv'],
    );
    expect(matrix.stderr).not.toMatch(/ECONNREFUSED|could not connect/i);
    const suiteDir = seeded('suite.json');
    const sample = join(FIXTURES, 'mongo-perf', 'testcases', 'sample.js');
    await refused(['perf-suite', sample, '--uri', CLOSED, '--out', suiteDir], suiteDir, [
      'suite.json',
    ]);
    const calibrateDir = seeded('results.json');
    await refused(['calibrate', '--json', join(calibrateDir, 'results.json')], calibrateDir, [
      'results.json',
    ]);
    const diskDir = seeded('summary.md');
    const testFileDir = join(root, 'diskperf-test-file');
    mkdirSync(testFileDir);
    await refused(['diskperf', '--dir', testFileDir, '--out', diskDir], diskDir, ['summary.md']);
    expect(readdirSync(testFileDir)).toEqual([]);
  });
});

describeNeeding('crud', 'run never replaces a file it did not write (CRUD test server)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'mb-file-harm-run-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const QUICK = [
    '--clients',
    '1',
    '--seconds',
    '1',
    '--warmup',
    '0',
    '--docs',
    '40',
    '--doc-size',
    '128',
    '--workers',
    '1',
    '--quiet',
  ];

  it('refused before the target and before command-log.txt or setup.js; --force replaces; its own folder is rewritten without', async () => {
    const dir = join(root, 'out');
    mkdirSync(dir);
    const names = ['results.json', 'index.html', 'summary.md'];
    for (const name of names) writeFileSync(join(dir, name), USERS[name]);
    const before = checksums(dir);
    // A closed port: refused before it would be tried.
    const refusedRun = await runCli(['run', '--uri', CLOSED, ...QUICK, '--out', dir]);
    expect(refusedRun.code).toBe(2);
    for (const name of names) expect(refusedRun.stderr).toContain(`${join(dir, name)} exists`);
    expect(refusedRun.stderr).not.toMatch(/ECONNREFUSED|could not connect/i);
    expect(checksums(dir)).toEqual(before);
    expect(existsSync(join(dir, 'command-log.txt'))).toBe(false);
    expect(existsSync(join(dir, 'setup.js'))).toBe(false);

    const ns = `file_harm_${process.pid}.bench`;
    const forced = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      ns,
      ...QUICK,
      '--out',
      dir,
      '--force',
    ]);
    expect(forced.code === 0 ? 'ran' : forced.stderr).toBe('ran');
    const after = checksums(dir);
    for (const name of names) expect(after[name]).not.toBe(before[name]);
    expect(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'))).toMatchObject({
      schema: 'mongo-bench/result@1',
    });
    const marker = JSON.parse(readFileSync(join(dir, MARKER), 'utf8')) as { files: object };
    expect(Object.keys(marker.files)).toEqual(
      expect.arrayContaining([
        'results.json',
        'command-log.txt',
        'setup.js',
        'results.csv',
        'index.html',
      ]),
    );

    // mongo-bench's own folder: run again without --force.
    const again = await runCli(['run', '--uri', crudUri(), '--ns', ns, ...QUICK, '--out', dir]);
    expect(again.code === 0 ? 'ran' : again.stderr).toBe('ran');
  });
});
