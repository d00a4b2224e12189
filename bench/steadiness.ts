/**
 * npm run bench:steadiness -- [--runs 500] [--seed 1]
 *
 * The false-alarm rate of `trendTest(...).trending` (lib/metrics/steadiness.ts) on steady series: seeded
 * AR(1) series around a constant mean (x[t] - m = phi * (x[t-1] - m) + e[t], e's sd = cv * m, started in the
 * stationary distribution), as per-second ops/s on a steady server are (a busy second tends to follow a busy
 * second). Prints, for each phi, cv and length, the share of series flagged `trending` and the share for
 * which Mann-Kendall alone rejected (p < 0.05), and the power against a 20% drift. docs/report.md quotes it.
 */
import { trendTest } from '../lib/metrics/steadiness';
import { Prng } from '../lib/workload/language/prng';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function gaussian(rng: Prng): number {
  const u = 1 - rng.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.nextFloat());
}

function ar1(rng: Prng, n: number, phi: number, cv: number, drift: number): number[] {
  const mean = 5000;
  const out: number[] = [];
  let dev = (gaussian(rng) * cv * mean) / Math.sqrt(1 - phi * phi);
  for (let i = 0; i < n; i++) {
    out.push((mean + dev) * (1 + (drift * i) / Math.max(1, n - 1)));
    dev = phi * dev + gaussian(rng) * cv * mean;
  }
  return out;
}

const runs = arg('runs', 500);
const rng = new Prng(arg('seed', 1));
const pct = (k: number): string => `${((k / runs) * 100).toFixed(1)}%`;
console.log(`steady AR(1) series around 5,000 ops/s, ${runs} series per row (seeded)`);
console.log('phi   cv    n    trending  MK p<0.05  power@20%drift');
for (const phi of [0, 0.5, 0.8, 0.95]) {
  for (const cv of [0.02, 0.05, 0.1]) {
    for (const n of [10, 30, 60, 120]) {
      let alarms = 0;
      let rejects = 0;
      let caught = 0;
      for (let r = 0; r < runs; r++) {
        const t = trendTest(ar1(rng, n, phi, cv, 0));
        if (t.trending) alarms++;
        if (t.pValue !== null && t.pValue < 0.05) rejects++;
        if (trendTest(ar1(rng, n, phi, cv, 0.2)).trending) caught++;
      }
      console.log(
        `${phi.toFixed(2)}  ${cv.toFixed(2)}  ${String(n).padStart(3)}  ${pct(alarms).padStart(8)}  ${pct(rejects).padStart(9)}  ${pct(caught).padStart(14)}`,
      );
    }
  }
}
