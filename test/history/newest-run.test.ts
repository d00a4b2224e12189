/**
 * The gate on short series: the newest run against the runs before the newest change point or failed
 * check. A collapse fails on its first night and keeps failing while it lasts (until --accept); a
 * series too short for either test says so and, when nothing could be tested, exits 3. Over 1,000
 * seeded 10-run histories of 2% noise the store-wide false-alarm rate stays at most 1%.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderStore } from '../../lib/store';
import { buildHistory, HistoryDocument, newestRunCheck } from '../../lib/history';
import { runCli } from '../support/cli';
import { syntheticResults } from './synthetic';

const memory = (results: ReturnType<typeof syntheticResults>, options = {}) =>
  buildHistory(
    { results: results.map((result, i) => ({ result, source: `r${i}` })), skipped: [] },
    { store: 'memory' },
    options,
  );

describe('the newest-run check', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-newest-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const storeOf = async (name: string, results: ReturnType<typeof syntheticResults>) => {
    const store = new FolderStore(join(dir, name));
    for (const r of results) await store.put(r);
    return join(dir, name);
  };

  it('3 runs, then 3 runs 99% slower: exit 1, the newest run against the 3 before the collapse', async () => {
    const results = syntheticResults({
      runs: 6,
      level: 5000,
      noise: 0.02,
      changeAt: 3,
      factor: 0.01,
      seed: 2,
      label: 'collapse',
    });
    const out = join(dir, 'collapse-out');
    const cli = await runCli([
      'history',
      '--store',
      await storeOf('collapse', results),
      '--out',
      out,
    ]);
    expect(cli.code).toBe(1);
    const h = JSON.parse(readFileSync(join(out, 'history.json'), 'utf8')) as HistoryDocument;
    const ops = h.series.find((s) => s.metric === 'opsPerSec' && s.clients === 1)!;
    expect(ops.eDivisive).toBe('series too short');
    expect(ops.newestRun).toMatchObject({
      tested: true,
      failed: true,
      baseline: { runs: 3, last: { startedAt: results[2].startedAt } },
    });
    expect(ops.newestRun.changePercent).toBeLessThan(-95);
    expect(h.newestRunFailures.map((f) => [f.metric, f.clients])).toEqual(
      expect.arrayContaining([
        ['ops/s', 1],
        ['ops/s', 4],
        ['read p50', 1],
      ]),
    );
    expect(cli.stdout).toContain('NEWEST RUN');
    expect(readFileSync(join(out, 'history.md'), 'utf8')).toContain(
      'fail the newest-run check: exit 1',
    );
    // Accepted as the new normal from the first slow run: its runs are too few to test yet.
    const accepted = memory(results, { accept: results[3].startedAt });
    expect(accepted.newestRunFailures).toEqual([]);
    expect(accepted.outcome).toBe('not tested');
  });

  it('3 runs, then 1 run 99% slower: exit 1', async () => {
    const results = syntheticResults({
      runs: 4,
      level: 5000,
      noise: 0.02,
      changeAt: 3,
      factor: 0.01,
      seed: 4,
      label: 'one-slow',
    });
    const cli = await runCli([
      'history',
      '--store',
      await storeOf('one-slow', results),
      '--out',
      join(dir, 'one-slow-out'),
      '--json',
    ]);
    expect(cli.code).toBe(1);
    expect((JSON.parse(cli.stdout) as HistoryDocument).outcome).toBe('regression');
  });

  it('10 runs of 2% noise: exit 0', async () => {
    const results = syntheticResults({
      runs: 10,
      level: 5000,
      noise: 0.02,
      seed: 6,
      label: 'steady',
    });
    const cli = await runCli([
      'history',
      '--store',
      await storeOf('steady', results),
      '--out',
      join(dir, 'steady-out'),
      '--json',
    ]);
    expect(cli.code).toBe(0);
    const h = JSON.parse(cli.stdout) as HistoryDocument;
    expect(
      h.series.filter((s) => s.gated).every((s) => s.newestRun.tested && s.eDivisive === 'tested'),
    ).toBe(true);
  });

  it('a 2-run series: "not tested", exit 3', async () => {
    const results = syntheticResults({ runs: 2, level: 5000, noise: 0.02, seed: 8, label: 'two' });
    const out = join(dir, 'two-out');
    const cli = await runCli([
      'history',
      '--store',
      await storeOf('two', results),
      '--out',
      out,
      '--json',
    ]);
    expect(cli.code).toBe(3);
    const h = JSON.parse(cli.stdout) as HistoryDocument;
    expect(h.outcome).toBe('not tested');
    expect(h.notTested[0].why).toMatch(/^series too short: 1 run before the newest/);
    expect(readFileSync(join(out, 'history.md'), 'utf8')).toContain(
      'not tested: no gated series has enough runs',
    );
  });

  it('a collapse that persists keeps failing; a single noisy night that the next run does not repeat is forgotten', () => {
    const point = (value: number, i: number) => ({
      startedAt: `2026-01-0${i + 1}T00:00:00Z`,
      label: 'x',
      source: `r${i}`,
      value,
    });
    const check = (values: number[]) =>
      newestRunCheck({
        points: values.map(point),
        higherIsBetter: true,
        absolute: false,
        threshold: 5,
        start: 0,
      });
    expect(check([100, 101, 99, 1, 1, 1, 1]).failed).toBe(true);
    expect(check([100, 101, 99, 1, 100]).failed).toBe(false);
    // The within-run spread of the trials widens the scale: a 10% drop is within 4 x 3%.
    const spread = (values: number[], trialSpread: number) =>
      newestRunCheck({
        points: values.map((v, i) => ({ ...point(v, i), trialSpread })),
        higherIsBetter: true,
        absolute: false,
        threshold: 5,
        start: 0,
      });
    expect(spread([100, 100, 100, 90], 0.03)).toMatchObject({
      failed: false,
      scalePercent: 3,
      limitPercent: 12,
    });
    expect(spread([100, 100, 100, 90], 0.005)).toMatchObject({
      failed: true,
      scalePercent: 1,
      limitPercent: 5,
    });
  });

  it('p99 and errors are gated only with --gate p99,errors', () => {
    const results = syntheticResults({
      runs: 4,
      level: 5000,
      noise: 0.01,
      seed: 9,
      label: 'p99',
      clients: [1],
    });
    for (const step of results[3].steps) step.latencyMicros.reads.p99 *= 3;
    expect(memory(results).outcome).toBe('no regression');
    const gated = memory(results, { gate: ['p99', 'errors'] });
    expect(gated.newestRunFailures.map((f) => f.metric)).toEqual(['read p99']);
  });

  it('over 1,000 seeded 10-run histories of 2% noise, the store-wide false-alarm rate is at most 1%', () => {
    let alarms = 0;
    for (let seed = 1; seed <= 1000; seed++) {
      const h = memory(
        syntheticResults({ runs: 10, level: 5000, noise: 0.02, seed: 1000 + seed, label: 'noise' }),
      );
      if (h.outcome === 'regression') alarms++;
    }
    expect(alarms).toBeLessThanOrEqual(10);
  });
});
