import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { writeReport } from '../../lib/report/write-report';
import { renderSummaryMarkdown } from '../../lib/report/summary-md';
import { renderResultsCsv, CSV_HEADER } from '../../lib/report/results-csv';
import { buildCharts } from '../../lib/report/chart-registry';
import { formatOps } from '../../lib/report/format';
import { COMPARISON, FIXTURES, fixture, PNG_SIGNATURE } from './helpers';

const EXPECTED = join(FIXTURES, 'expected');

/** Compares with a golden file; UPDATE_GOLDEN=1 rewrites it (then review the diff by eye). */
function expectGolden(name: string, actual: string): void {
  const file = join(EXPECTED, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(EXPECTED, { recursive: true });
    writeFileSync(file, actual);
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

describe('summary.md and results.csv', () => {
  const complete = fixture('result-complete.json');
  const compared = COMPARISON.map(fixture);

  it('summary.md of one result matches the expected file', () => {
    expectGolden('summary-single.md', renderSummaryMarkdown([complete], buildCharts([complete])));
  });

  it('summary.md of a comparison matches the expected file', () => {
    expectGolden('summary-comparison.md', renderSummaryMarkdown(compared, buildCharts(compared)));
  });

  it('results.csv of one result and of a comparison match the expected files', () => {
    expectGolden('results-single.csv', renderResultsCsv([complete]));
    expectGolden('results-comparison.csv', renderResultsCsv(compared));
  });

  it("summary.md has one row per client count with the result's own figures", () => {
    const md = renderSummaryMarkdown([complete], buildCharts([complete]));
    for (const s of complete.steps) {
      const row = md.split('\n').find((line) => line.startsWith(`| ${s.clients} |`));
      expect(
        row
          ?.split('|')
          .map((c) => c.trim())
          .slice(1, 6),
      ).toEqual([
        String(s.clients),
        formatOps(s.opsPerSec.reads),
        formatOps(s.peakOpsPerSec.reads),
        formatOps(s.opsPerSec.writes),
        formatOps(s.peakOpsPerSec.writes),
      ]);
      expect(row?.split('|').map((c) => c.trim())[10]).toBe(String(s.ops.errors));
    }
    for (const chart of buildCharts([complete])) expect(md).toContain(`](${chart.file})`);
  });

  it('a comparison has a table with one column per result', () => {
    const md = renderSummaryMarkdown(compared, buildCharts(compared));
    expect(md).toContain('| Clients | w:0 | w:1 | j:true |');
  });

  it('results.csv has a header and one row per result and client count', () => {
    const lines = renderResultsCsv(compared).trimEnd().split('\n');
    expect(lines[0]).toBe(CSV_HEADER.join(','));
    expect(lines).toHaveLength(1 + compared.reduce((n, r) => n + r.steps.length, 0));
    const col = (name: string) => CSV_HEADER.indexOf(name);
    const j = lines.filter((l) => l.startsWith('j:true,'));
    expect(j.map((l) => Number(l.split(',')[col('clients')]))).toEqual([1, 2, 4, 8, 16, 32]);
    expect(j.map((l) => Number(l.split(',')[col('write_p99_us')]))).toEqual(
      compared[2].steps.map((s) => s.latencyMicros.writes.p99),
    );
  });

  it('quotes labels with commas and quotes in results.csv', () => {
    const odd = { ...complete, label: 'w:1, "fast"' };
    expect(renderResultsCsv([odd]).split('\n')[1].startsWith('"w:1, ""fast""",')).toBe(true);
  });

  it('an incomplete result is marked incomplete in summary.md and results.csv', () => {
    const r = fixture('result-incomplete.json');
    const md = renderSummaryMarkdown([r], buildCharts([r]));
    expect(md).toContain(
      '> **INCOMPLETE run: interrupted by SIGINT during the 8-client step (showing the steps it finished)**',
    );
    expect(md).toMatch(/^\| 8 \|.*\| interrupted \|$/m);
    const csv = renderResultsCsv([r]).trimEnd().split('\n');
    expect(csv).toHaveLength(5);
    expect(csv[4]).toContain(',false,false,'); // complete=false, test_double=false
    expect(csv[4]).toContain(',8,interrupted,');
  });
});

describe('writeReport', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-report-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the charts, summary.md, results.csv and a self-contained index.html', async () => {
    const out = join(dir, 'single');
    const { files } = await writeReport([fixture('result-complete.json')], out);
    expect(files.map((f) => basename(f))).toEqual([
      'avg-read-ops.png',
      'peak-read-ops.png',
      'avg-write-ops.png',
      'peak-write-ops.png',
      'latency-reads.png',
      'latency-writes.png',
      'timeline.png',
      'summary.md',
      'results.csv',
      'index.html',
    ]);
    for (const f of files) expect(existsSync(f)).toBe(true);
    for (const f of files.filter((x) => x.endsWith('.png')))
      expect(readFileSync(f).subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    for (const f of files.filter((x) => x.endsWith('.png')))
      expect(html).toContain(`<img src="${basename(f)}"`);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).toContain('<td class="right">22,860</td>');
  });

  it('writes a comparison report, and index.html says which result is incomplete', async () => {
    const out = join(dir, 'compare');
    const { files } = await writeReport(
      [fixture('result-complete.json'), fixture('result-incomplete.json')],
      out,
    );
    expect(files.filter((f) => f.endsWith('.png'))).toHaveLength(11);
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    expect(html).toContain(
      '<p class="warning">INCOMPLETE (showing the steps that finished): standalone w:1 (cut short)</p>',
    );
    expect(html).toContain('<th>standalone w:1 (cut short) (incomplete)</th>');
  });
});
