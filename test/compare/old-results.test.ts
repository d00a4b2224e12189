/**
 * Results written before warnings, steadiness, `min`, `count` and trial start times existed (the
 * fixtures come from test/fixtures/generate-results.ts as the report's first version wrote them) are
 * still read by `compare` and `history`: the optional fields are absent, the verdicts are computed.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';

const FIXTURES = join(__dirname, '..', 'fixtures');
const OLD = ['compare-w0.json', 'compare-w1.json', 'result-complete.json'];

describe('results from before the warnings', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-old-results-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('have none of the newer fields', () => {
    for (const name of OLD) {
      const text = readFileSync(join(FIXTURES, name), 'utf8');
      for (const field of ['"warnings"', '"steadiness"', '"min"', '"timerWaits"'])
        expect(text).not.toContain(field);
    }
  });

  it('compare reads them: every client count gets a verdict or says why not, with its smallest detectable change', async () => {
    const out = join(dir, 'compare');
    const cli = await runCli([
      'compare',
      join(FIXTURES, 'compare-w0.json'),
      join(FIXTURES, 'compare-w1.json'),
      '--out',
      out,
      '--json',
    ]);
    // One run a side: a ratio without a verdict (exit 3), never a crash (exit 2 would be a refusal).
    expect(cli.code).toBe(3);
    const comparison = JSON.parse(cli.stdout) as {
      steps: Array<{ clients: number; verdict: string; minDetectablePercent?: number | null }>;
    };
    const fixture = JSON.parse(readFileSync(join(FIXTURES, 'compare-w0.json'), 'utf8')) as {
      steps: Array<{ clients: number }>;
    };
    expect(comparison.steps.map((s) => s.clients)).toEqual(fixture.steps.map((s) => s.clients));
    for (const s of comparison.steps) {
      expect(s.verdict).toBe('not compared');
      expect(s).toHaveProperty('minDetectablePercent', null);
    }
  });

  it('history reads them from a store: series too short to test say so (exit 3)', async () => {
    const store = join(dir, 'store');
    mkdirSync(store);
    for (const name of OLD) copyFileSync(join(FIXTURES, name), join(store, name));
    const out = join(dir, 'history');
    const cli = await runCli(['history', '--store', store, '--out', out, '--json']);
    expect(cli.code).toBe(3);
    const history = JSON.parse(readFileSync(join(out, 'history.json'), 'utf8')) as {
      outcome: string;
      series: unknown[];
    };
    expect(history.outcome).toBe('not tested');
    expect(history.series.length).toBeGreaterThan(0);
  });
});
