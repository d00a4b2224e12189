/**
 * How long `mongo-bench history` takes as a history grows: E-Divisive means on one series of N runs
 * (100 permutations, one 8% step in the middle), and the whole command path (read a folder store of
 * N results at 4 client counts, 6 metrics each, find the change points, write history.md/json and the
 * charts). Prints the figures; nothing is asserted.
 *
 *   npm run bench:history            (sizes 40, 100, 300, 1000)
 *   npm run bench:history -- 40 200  (your own sizes)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { eDivisive } from '../lib/history/e-divisive';
import { buildHistory, writeHistory } from '../lib/history';
import { FolderStore } from '../lib/store';
import { Prng } from '../lib/workload/language/prng';
import { syntheticResults } from '../test/history/synthetic';

function stepSeries(n: number, seed: number): number[] {
  const prng = new Prng(seed);
  return Array.from(
    { length: n },
    (_, i) => (i >= n / 2 ? 920 : 1000) * (1 + 0.02 * (prng.nextFloat() * 2 - 1) * 1.7),
  );
}

async function main(): Promise<void> {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 1);
  const runs = sizes.length > 0 ? sizes : [40, 100, 300, 1000];
  console.log('E-Divisive means, one series, 100 permutations, p 0.01 (one 8% step at N/2):');
  console.log('      N   change points      ms');
  for (const n of runs) {
    const series = stepSeries(n, 7);
    const start = performance.now();
    const found = eDivisive(series, { permutations: 100, pvalue: 0.01, seed: 1 });
    const ms = performance.now() - start;
    console.log(
      `${String(n).padStart(7)}   ${found
        .map((c) => c.index)
        .sort((a, b) => a - b)
        .join(',')
        .padEnd(13)} ${ms.toFixed(0).padStart(7)}`,
    );
  }
  console.log(
    '\nhistory end to end: a folder store of N results x 4 client counts x 6 metrics (24 series), 100 permutations:',
  );
  console.log('      N   read store ms   analyse ms   write ms   change points');
  for (const n of runs.filter((r) => r <= 300)) {
    const dir = mkdtempSync(join(tmpdir(), 'mb-bench-history-'));
    try {
      const store = new FolderStore(join(dir, 'store'));
      for (const r of syntheticResults({
        runs: n,
        level: 5000,
        noise: 0.02,
        changeAt: Math.floor(n / 2),
        factor: 0.92,
        seed: 3,
        label: 'bench',
        clients: [1, 2, 4, 8],
      }))
        await store.put(r);
      const t0 = performance.now();
      const listed = await store.list();
      const t1 = performance.now();
      const history = buildHistory(listed, { store: store.description });
      const t2 = performance.now();
      await writeHistory(history, join(dir, 'out'));
      const t3 = performance.now();
      const points = history.series.reduce((s, x) => s + x.changePoints.length, 0);
      console.log(
        `${String(n).padStart(7)}   ${(t1 - t0).toFixed(0).padStart(13)}   ${(t2 - t1).toFixed(0).padStart(10)}   ${(t3 - t2).toFixed(0).padStart(8)}   ${points}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

void main();
