import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../lib/cli/main';
import { fixture, FIXTURES } from './helpers';
import { captureContext } from '../support/cli';
import { SERVER_CHART_FILES } from '../../lib/report/server-charts';
import { REPLICA_SET, SHARDED, withServerSection } from '../support/server-results';

describe('mongo-bench report', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-cli-report-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('compares several result files into --out', async () => {
    const ctx = captureContext({ newline: 'always' });
    const out = join(dir, 'wc');
    const files = ['compare-w0.json', 'compare-w1.json', 'compare-j-true.json'].map((f) =>
      join(FIXTURES, f),
    );
    const code = await main(['node', 'mongo-bench', 'report', ...files, '--out', out], ctx);
    expect(ctx.stderr).toBe('');
    expect(code).toBe(0);
    expect(ctx.stdout).toContain(`wrote 14 files to ${out}`);
    for (const f of [
      'summary.md',
      'results.csv',
      'index.html',
      'latency-writes-p99.png',
      'timeline.png',
    ])
      expect(existsSync(join(out, f))).toBe(true);
  });

  it("re-draws the server charts from results.json files alone: one result's, and two overlaid", async () => {
    // Made-up server sections, marked as test doubles (test/support/server-results.ts).
    const rs = join(dir, 'rs.json');
    const sharded = join(dir, 'sharded.json');
    writeFileSync(
      rs,
      JSON.stringify(
        withServerSection(fixture('compare-w0.json'), {
          label: 'rs',
          topology: 'replica set',
          processes: REPLICA_SET,
        }),
      ),
    );
    writeFileSync(
      sharded,
      JSON.stringify(
        withServerSection(fixture('compare-w1.json'), {
          label: 'sharded',
          topology: 'sharded',
          processes: SHARDED,
        }),
      ),
    );
    for (const [name, files] of [
      ['one', [rs]],
      ['two', [rs, sharded]],
    ] as const) {
      const ctx = captureContext({ newline: 'always' });
      const out = join(dir, name);
      expect(await main(['node', 'mongo-bench', 'report', ...files, '--out', out], ctx)).toBe(0);
      expect(ctx.stderr).toBe('');
      for (const file of Object.values(SERVER_CHART_FILES))
        expect(ctx.stdout).toContain(join(out, file));
      for (const file of Object.values(SERVER_CHART_FILES))
        expect(existsSync(join(out, file))).toBe(true);
    }
  });

  it('exits 2 and names every bad file', async () => {
    const ctx = captureContext({ newline: 'always' });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ schema: 'mongo-bench/result@2' }));
    const missing = join(dir, 'missing.json');
    const code = await main(
      [
        'node',
        'mongo-bench',
        'report',
        join(FIXTURES, 'result-complete.json'),
        bad,
        missing,
        '--out',
        join(dir, 'x'),
      ],
      ctx,
    );
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
