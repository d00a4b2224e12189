import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../lib/cli/main';
import { FIXTURES } from './helpers';
import { captureContext } from '../support/cli';

describe('mongo-bench report', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-cli-report-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('compares several result files into --out', async () => {
    const ctx = captureContext({ newline: 'always' });
    const out = join(dir, 'wc');
    const files = ['compare-w0.json', 'compare-w1.json', 'compare-j-true.json'].map((f) => join(FIXTURES, f));
    const code = await main(['node', 'mongo-bench', 'report', ...files, '--out', out], ctx);
    expect(ctx.stderr).toBe('');
    expect(code).toBe(0);
    expect(ctx.stdout).toContain(`wrote 14 files to ${out}`);
    for (const f of ['summary.md', 'results.csv', 'index.html', 'latency-writes-p99.png', 'timeline.png']) expect(existsSync(join(out, f))).toBe(true);
  });

  it('exits 2 and names every bad file', async () => {
    const ctx = captureContext({ newline: 'always' });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ schema: 'mongo-bench/result@2' }));
    const missing = join(dir, 'missing.json');
    const code = await main(['node', 'mongo-bench', 'report', join(FIXTURES, 'result-complete.json'), bad, missing, '--out', join(dir, 'x')], ctx);
    expect(code).toBe(2);
    expect(ctx.stderr).toContain(`${bad}: unsupported result schema "mongo-bench/result@2"`);
    expect(ctx.stderr).toContain(`${missing}: cannot read result file`);
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });

  it('needs at least one file', async () => {
    const ctx = captureContext({ newline: 'always' });
    expect(await main(['node', 'mongo-bench', 'report'], ctx)).toBe(2);
    expect(ctx.stderr).toContain("missing required argument 'results'");
  });
});
