/**
 * History over a folder store, through the command as CI runs it: 40 nights whose ops/s drops 8% at
 * night 25 give one change point at 25 and exit 1; 40 nights of pure noise give none and exit 0.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderStore } from '../../lib/store';
import { buildHistory, HistoryDocument } from '../../lib/history';
import { runCli } from '../support/cli';
import { trendChartConfiguration, trendChartWarnings } from '../../lib/history/chart';
import { serverLabel } from '../../lib/report/describe';
import { identifyServer } from '../../lib/server/identify-server';
import { decodePng, countPixels, isWarningRed, pngSize } from '../report/helpers';
import { syntheticResults } from './synthetic';

describe('history over a folder store', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-history-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const storeOf = async (name: string, results: ReturnType<typeof syntheticResults>) => {
    const store = new FolderStore(join(dir, name));
    for (const r of results) await store.put(r);
    return join(dir, name);
  };

  it('40 runs with an 8% drop in ops/s at run 25: one change point at 25, named by its run, exit 1', async () => {
    const results = syntheticResults({
      runs: 40,
      level: 5000,
      noise: 0.02,
      changeAt: 25,
      factor: 0.92,
      seed: 11,
      label: 'nightly',
    });
    const store = await storeOf('drop', results);
    const out = join(dir, 'drop-out');
    const cli = await runCli(['history', '--store', store, '--out', out, '--threshold', '5']);
    expect(cli.code).toBe(1);
    const history = JSON.parse(readFileSync(join(out, 'history.json'), 'utf8')) as HistoryDocument;
    const ops = history.series.filter((s) => s.metric === 'opsPerSec');
    expect(ops.map((s) => s.clients)).toEqual([1, 4]);
    for (const s of ops) {
      expect(s.points).toHaveLength(40);
      expect(s.changePoints.map((cp) => cp.index)).toEqual([25]);
      const [cp] = s.changePoints;
      expect(cp.firstAfter).toMatchObject({ startedAt: results[25].startedAt, label: 'nightly' });
      expect(cp.lastBefore.startedAt).toBe(results[24].startedAt);
      expect(cp.changePercent).toBeGreaterThan(-11);
      expect(cp.changePercent).toBeLessThan(-5);
      expect(cp).toMatchObject({ direction: 'regression', beyondThreshold: true });
      expect(cp.pvalue).toBeLessThanOrEqual(0.01);
    }
    // Latency moves with throughput here (closed loop); wherever a change is found, it is the one at 25.
    for (const s of history.series) for (const cp of s.changePoints) expect(cp.index).toBe(25);
    expect(history.regressions.length).toBeGreaterThanOrEqual(2);
    expect(cli.stdout).toContain(`ops/s at 1 client: `);
    expect(cli.stdout).toContain(`from ${results[25].startedAt} (nightly) on`);
    const md = readFileSync(join(out, 'history.md'), 'utf8');
    expect(md).toContain(
      `| ops/s | 1 | ${results[25].startedAt} (nightly) | ${results[24].startedAt} (nightly) |`,
    );
    expect(md).toContain('![trend](trend-nightly-opsPerSec.png)');
    // The chart marks the change: a red dashed line (regression beyond the threshold) in the plot.
    const png = readFileSync(join(out, 'trend-nightly-opsPerSec.png'));
    expect(pngSize(png)).toEqual({ width: 1000, height: 600 });
    const pixels = await decodePng(png);
    expect(countPixels(pixels, 100, 550, (r, g, b) => r > 150 && g < 40 && b < 60)).toBeGreaterThan(
      200,
    );
  });

  it('a label measured on FerretDB: its trend chart names the server as summaries do and says NOT MongoDB', async () => {
    // The product as a run records it when FerretDB 1.x answers buildInfo (lib/server/identify-server.ts).
    const product = identifyServer({
      uri: 'mongodb://127.0.0.1:27017',
      buildInfo: { version: '7.0.42', ferretdbVersion: 'v1.24.2' },
    });
    expect(product).toMatchObject({ name: 'FerretDB', testDouble: false });
    const onFerret = syntheticResults({
      runs: 6,
      level: 3000,
      noise: 0.02,
      seed: 7,
      label: 'ferret',
    }).map((r) => ({ ...r, target: { ...r.target, serverVersion: '7.0.42', product } }));
    const onMongo = syntheticResults({
      runs: 6,
      level: 3000,
      noise: 0.02,
      seed: 7,
      label: 'mongo',
    });
    const store = await storeOf('ferret', [...onFerret, ...onMongo]);
    const out = join(dir, 'ferret-out');
    const cli = await runCli(['history', '--store', store, '--out', out]);
    expect(cli.code).toBe(0);
    const history = JSON.parse(readFileSync(join(out, 'history.json'), 'utf8')) as HistoryDocument;
    const ferret = history.labels.find((l) => l.label === 'ferret')!;
    expect(ferret.servers).toEqual([serverLabel(onFerret[0])]);
    expect(ferret.servers![0]).toContain('FerretDB 1.24.2');
    expect(trendChartWarnings(history, 'ferret')).toEqual([
      expect.stringMatching(/^NOT MongoDB: FerretDB 1\.24\.2.*not MongoDB's$/),
    ]);
    expect(trendChartWarnings(history, 'mongo')).toEqual([]);
    const subtitle = [
      trendChartConfiguration(history, 'ferret', 'opsPerSec')!.options!.plugins!.subtitle!.text,
    ]
      .flat()
      .join(' ');
    expect(subtitle).toContain(serverLabel(onFerret[0]));
    expect(
      [trendChartConfiguration(history, 'mongo', 'opsPerSec')!.options!.plugins!.subtitle!.text]
        .flat()
        .join(' '),
    ).toContain('MongoDB 7.0.14');
    // The warning is drawn: red text under the axis on FerretDB's chart, none on MongoDB's.
    const bottomRed = async (file: string) => {
      const pixels = await decodePng(readFileSync(join(out, file)));
      return countPixels(pixels, pixels.height - 30, pixels.height, isWarningRed);
    };
    expect(await bottomRed('trend-ferret-opsPerSec.png')).toBeGreaterThan(300);
    expect(await bottomRed('trend-mongo-opsPerSec.png')).toBe(0);
    const md = readFileSync(join(out, 'history.md'), 'utf8');
    expect(md).toContain(`Server: ${serverLabel(onFerret[0])}.`);
    expect(md).toMatch(/\*\*NOT MongoDB: FerretDB 1\.24\.2/);
  });

  it('a raised threshold keeps the change point but passes the gate (exit 0)', async () => {
    const results = syntheticResults({
      runs: 40,
      level: 5000,
      noise: 0.02,
      changeAt: 25,
      factor: 0.92,
      seed: 11,
      label: 'nightly',
    });
    const history = buildHistory(
      { results: results.map((result, i) => ({ result, source: `r${i}` })), skipped: [] },
      { store: 'memory' },
      { threshold: 15 },
    );
    const ops = history.series.find((s) => s.metric === 'opsPerSec' && s.clients === 1)!;
    expect(ops.changePoints.map((cp) => [cp.index, cp.direction, cp.beyondThreshold])).toEqual([
      [25, 'regression', false],
    ]);
    expect(history.regressions).toEqual([]);
  });

  it('40 runs of pure noise: no change point in any series, exit 0', async () => {
    const store = await storeOf(
      'noise',
      syntheticResults({ runs: 40, level: 5000, noise: 0.02, seed: 5, label: 'noise' }),
    );
    const out = join(dir, 'noise-out');
    const cli = await runCli(['history', '--store', store, '--out', out, '--json']);
    expect(cli.code).toBe(0);
    const history = JSON.parse(cli.stdout) as HistoryDocument;
    expect(history.series.length).toBe(2 * 6);
    expect(history.series.flatMap((s) => s.changePoints)).toEqual([]);
    expect(history.regressions).toEqual([]);
    expect(existsSync(join(out, 'trend-noise-opsPerSec.png'))).toBe(true);
  });

  it('an improvement is a change point but never fails the gate', () => {
    const results = syntheticResults({
      runs: 30,
      level: 2000,
      noise: 0.02,
      changeAt: 15,
      factor: 1.2,
      seed: 3,
      label: 'faster',
      clients: [1],
    });
    const history = buildHistory(
      { results: results.map((result, i) => ({ result, source: `r${i}` })), skipped: [] },
      { store: 'memory' },
    );
    const ops = history.series.find((s) => s.metric === 'opsPerSec')!;
    expect(ops.changePoints.map((cp) => [cp.index, cp.direction])).toEqual([[15, 'improvement']]);
    expect(history.regressions).toEqual([]);
  });

  it('a folder store reads result files at any depth, once per run, and skips other JSON', async () => {
    const results = syntheticResults({
      runs: 3,
      level: 1000,
      noise: 0.01,
      seed: 1,
      label: 'copied',
    });
    const root = join(dir, 'copied');
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    writeFileSync(join(root, 'a', 'b', 'results.json'), JSON.stringify(results[2]));
    writeFileSync(join(root, 'a', 'results.json'), JSON.stringify(results[0]));
    writeFileSync(join(root, 'copy-of-first.json'), JSON.stringify(results[0]));
    writeFileSync(join(root, 'compare.json'), JSON.stringify({ a: 1 }));
    writeFileSync(join(root, 'broken.json'), JSON.stringify({ ...results[1], steps: 'none' }));
    const store = new FolderStore(root);
    await store.put(results[1]);
    const listed = await store.list();
    expect(listed.results.map((r) => r.result.startedAt)).toEqual(results.map((r) => r.startedAt));
    expect(listed.skipped).toHaveLength(1);
    expect(listed.skipped[0].source).toBe(join(root, 'broken.json'));
    expect(listed.skipped[0].why).toContain('steps');
    expect((await store.put(results[1])).created).toBe(false);
  });

  it('a result is stored without the password its target URI carried', async () => {
    const [result] = syntheticResults({
      runs: 1,
      level: 1000,
      noise: 0.01,
      seed: 1,
      label: 'secret',
    });
    result.target.uri = 'mongodb://alice:s3cr3t-pw@db.example.net:27017/?authSource=admin';
    const store = new FolderStore(join(dir, 'secret'));
    const { id } = await store.put(result);
    const text = readFileSync(id, 'utf8');
    expect(text).not.toContain('s3cr3t-pw');
    expect(text).toContain('mongodb://alice:****@db.example.net:27017');
  });

  it('bad input: no store, a missing folder, a bad p-value', async () => {
    const saved = process.env.MONGO_BENCH_STORE;
    delete process.env.MONGO_BENCH_STORE;
    const none = await runCli(['history']).finally(() => {
      if (saved !== undefined) process.env.MONGO_BENCH_STORE = saved;
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('option --store: required');
    const missing = await runCli([
      'history',
      '--store',
      join(dir, 'nope'),
      '--out',
      join(dir, 'nope-out'),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such folder');
    const p = await runCli(['history', '--store', dir, '--pvalue', '2']);
    expect(p.code).toBe(2);
    expect(p.stderr).toContain('option --pvalue');
  });
});
