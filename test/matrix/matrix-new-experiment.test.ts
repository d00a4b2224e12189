/**
 * Adding an experiment touches nothing else: the ping experiment lives in one folder
 * (test/matrix/ping-experiment/) and one registerExperiment line makes it runnable from a matrix
 * file, with its own parameters, validation, table, CSV, chart and notes. lib/matrix names no experiment.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { experimentNames, registerExperiment } from '../../lib/experiments/registry';
import { MatrixDocument } from '../../lib/matrix/matrix-document';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding } from '../support/servers';
import { ping } from './ping-experiment';

registerExperiment(ping);

let out: string;
beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'mb-matrix-ping-'));
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

function matrixFile(name: string, content: unknown): string {
  const path = join(out, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe('a new experiment', () => {
  it('lib/matrix names no experiment: it knows them only through the registry', () => {
    const dir = join(__dirname, '../../lib/matrix');
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const name of experimentNames()) {
        // Quoted anywhere, or as a word (except "most", which is also English: "at most").
        const named = new RegExp(
          `['"\`]${name}['"\`]${name === 'most' ? '' : `|(?<![\\w-])${name}(?![\\w-])`}`,
        );
        expect({ file, name, named: named.test(text) }).toEqual({ file, name, named: false });
      }
    }
  });

  it('its parameters are validated like any other, naming the configuration', async () => {
    const path = matrixFile('bad.json', {
      experiment: 'ping',
      configurations: [{ label: 'a', parameters: { pings: 0 } }],
    });
    const r = await runCli([
      'matrix',
      '--matrix',
      path,
      '--uri',
      'mongodb://127.0.0.1:1',
      '--dry-run',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `matrix file ${path}: configurations[0].parameters.pings: pings must be at least 1`,
    );
  });
});

describeNeeding('crud', 'a new experiment on the CRUD test server', () => {
  it('runs from a matrix file: rows, summary.md, results.csv and its chart', async () => {
    const path = matrixFile('ping.yaml.json', {
      name: 'pings',
      experiment: 'ping',
      parameters: { pings: 5 },
      configurations: [{ label: 'five' }, { label: 'three', parameters: { pings: 3 } }],
    });
    const dir = join(out, 'run');
    const r = await runCli([
      'matrix',
      '--matrix',
      path,
      '--uri',
      crudUri(),
      '--test-double',
      '--out',
      dir,
    ]);
    expect(r.stderr).toContain('matrix pings (ping): 2 configurations');
    expect(r.code).toBe(0);
    const doc = JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixDocument;
    expect(doc.rows.map((row) => [row.label, row.status, row.measures.pings])).toEqual([
      ['five', 'ok', 5],
      ['three', 'ok', 3],
    ]);
    expect(doc.notes).toContain('ping measures the round trip only: no data is read or written.');
    const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain(
      '| Configuration | Settings | Average (ms) | Max (ms) | Pings | Status |',
    );
    expect(readFileSync(join(dir, 'results.csv'), 'utf8').split('\n')[0]).toContain(
      'avg_ms,max_ms,pings,result_file',
    );
    expect(existsSync(join(dir, 'ping-latency.png'))).toBe(true);
  });

  it('--trials 3 runs every configuration three times in interleaved rounds, and the table shows medians', async () => {
    const path = matrixFile('ping-trials.json', {
      name: 'pings',
      experiment: 'ping',
      parameters: { pings: 3 },
      configurations: [{ label: 'five', parameters: { pings: 5 } }, { label: 'three' }],
    });
    const dir = join(out, 'trials');
    const r = await runCli([
      'matrix',
      '--matrix',
      path,
      '--uri',
      crudUri(),
      '--test-double',
      '--trials',
      '3',
      '--out',
      dir,
    ]);
    expect(r.code).toBe(0);
    // Round 1: five, three; round 2: three, five; round 3: five, three.
    const starts = [...r.stderr.matchAll(/^\[\d\/2\] (\w+) \(trial (\d)\/3\) \(/gm)].map(
      (m) => `${m[1]}${m[2]}`,
    );
    expect(starts).toEqual(['five1', 'three1', 'three2', 'five2', 'five3', 'three3']);
    const doc = JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixDocument;
    expect(doc.trials).toBe(3);
    // Their recorded start times interleave the same way: neither configuration's trials all come first.
    const byStart = doc.rows.flatMap((row) =>
      (row.trials ?? []).map((t) => ({
        key: `${row.label}${t.trial}`,
        at: Date.parse(t.startedAt),
      })),
    );
    const at = Object.fromEntries(byStart.map((t) => [t.key, t.at]));
    for (const [earlier, later] of [
      ['five1', 'three1'],
      ['three1', 'three2'],
      ['three2', 'five2'],
      ['five2', 'five3'],
      ['five3', 'three3'],
    ]) {
      expect(at[earlier]).toBeLessThanOrEqual(at[later]);
    }
    expect(Math.max(at.five1, at.five2, at.five3)).toBeGreaterThan(
      Math.min(at.three1, at.three2, at.three3),
    );
    for (const row of doc.rows) {
      expect(row.trials?.map((t) => [t.trial, t.status])).toEqual([
        [1, 'ok'],
        [2, 'ok'],
        [3, 'ok'],
      ]);
      const avgs = (row.trials ?? []).map((t) => t.measures.avgMs as number).sort((a, b) => a - b);
      expect(row.measures.avgMs).toBeCloseTo(avgs[1], 10);
      expect(row.status).toBe('ok');
    }
    expect(doc.rows.map((row) => row.measures.pings)).toEqual([5, 3]);
    expect(
      doc.notes.some((n) => n.startsWith('Each configuration ran 3 times, in interleaved rounds')),
    ).toBe(true);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain(
      'Each configuration ran 3 times',
    );
  });
});
