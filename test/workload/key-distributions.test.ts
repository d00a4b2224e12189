/**
 * #ZIPF, #HOTSPOT, #LATEST (and capture's #PICK, #RAND_DATE): tested by what they promise about
 * frequencies (rank-frequency, shares), not by a fixed sequence.
 */
import { compileTemplate, TemplateScope } from '../../lib/workload/language/template';
import { zeta } from '../../lib/workload/language/key-distributions';
import { usageMessage } from '../support/cli';

function draws(
  template: unknown,
  n: number,
  seed = 1,
): { values: unknown[]; scope: TemplateScope } {
  const scope = new TemplateScope();
  const gen = compileTemplate(template, 'ops[0].query.k', scope);
  const state = scope.newClientState(0, seed);
  return { values: Array.from({ length: n }, () => gen(state)), scope };
}

function frequencies(values: unknown[]): number[] {
  const counts = new Map<unknown, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.values()].sort((a, b) => b - a);
}

/** Least-squares slope of log(frequency) against log(rank) over ranks 1..k. */
function logLogSlope(freq: number[], k: number): number {
  const xs = freq.slice(0, k).map((_, i) => Math.log(i + 1));
  const ys = freq.slice(0, k).map((f) => Math.log(f));
  const mx = xs.reduce((a, b) => a + b, 0) / k;
  const my = ys.reduce((a, b) => a + b, 0) / k;
  let num = 0;
  let den = 0;
  for (let i = 0; i < k; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return num / den;
}

describe('#ZIPF (scrambled zipfian, theta 0.99)', () => {
  const n = 200_000;
  it('has the rank-frequency of a zipfian: slope about -0.99, the top key takes 1/zeta(items)', () => {
    const { values } = draws({ '#ZIPF': [0, 1000] }, n);
    expect(
      values.every((v) => typeof v === 'number' && v >= 0 && v < 1000 && Number.isInteger(v)),
    ).toBe(true);
    const freq = frequencies(values);
    expect(logLogSlope(freq, 50)).toBeGreaterThan(-1.1);
    expect(logLogSlope(freq, 50)).toBeLessThan(-0.88);
    expect(freq[0] / n).toBeGreaterThan((1 / zeta(1000, 0.99)) * 0.9);
    expect(freq[0] / n).toBeLessThan((1 / zeta(1000, 0.99)) * 1.1);
  });

  it('scatters the popular keys over the range (scrambled); scrambled: false puts them at min', () => {
    const top = (values: unknown[]) => {
      const counts = new Map<number, number>();
      for (const v of values as number[]) counts.set(v, (counts.get(v) ?? 0) + 1);
      return [...counts]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([k]) => k);
    };
    const scrambled = top(draws({ '#ZIPF': { min: 100, max: 1100 } }, 50_000).values);
    expect(Math.max(...scrambled) - Math.min(...scrambled)).toBeGreaterThan(100);
    expect(
      top(draws({ '#ZIPF': { min: 100, max: 1100, scrambled: false } }, 50_000).values),
    ).toEqual([100, 101, 102, 103, 104]);
  });

  it('a smaller theta is less skewed', () => {
    const steep = logLogSlope(
      frequencies(draws({ '#ZIPF': { min: 0, max: 1000, theta: 0.99 } }, n).values),
      50,
    );
    const flat = logLogSlope(
      frequencies(draws({ '#ZIPF': { min: 0, max: 1000, theta: 0.5 } }, n).values),
      50,
    );
    expect(flat).toBeGreaterThan(steep + 0.3);
  });

  it('repeats with the seed', () => {
    expect(draws({ '#ZIPF': [0, 100] }, 50, 9).values).toEqual(
      draws({ '#ZIPF': [0, 100] }, 50, 9).values,
    );
  });

  it('refuses a bad range or theta, naming the path', () => {
    expect(usageMessage(() => draws({ '#ZIPF': [10, 10] }, 1))).toBe(
      'ops[0].query.k.#ZIPF: expected integers min < max (keys in [min, max)), got [10,10]',
    );
    expect(usageMessage(() => draws({ '#ZIPF': { min: 0, max: 9, theta: 1.5 } }, 1))).toBe(
      'ops[0].query.k.#ZIPF.theta: expected a fraction in (0, 1), got 1.5',
    );
    expect(usageMessage(() => draws({ '#ZIPF': { min: 0, max: 9, thetta: 0.5 } }, 1))).toBe(
      'ops[0].query.k.#ZIPF.thetta: unknown field (did you mean "theta"?)',
    );
  });
});

describe('#HOTSPOT', () => {
  it('sends hotOps of the draws to the hot set (the first hotSet of the range), uniformly within each part', () => {
    const n = 100_000;
    const { values } = draws({ '#HOTSPOT': { min: 0, max: 1000, hotSet: 0.1, hotOps: 0.9 } }, n);
    const hot = (values as number[]).filter((v) => v < 100);
    expect(hot.length / n).toBeGreaterThan(0.89);
    expect(hot.length / n).toBeLessThan(0.91);
    expect((values as number[]).every((v) => v >= 0 && v < 1000)).toBe(true);
    // Flat inside the hot set: its most and least drawn keys differ by noise only (about 900 each).
    const hotFreq = frequencies(hot);
    expect(hotFreq).toHaveLength(100);
    expect(hotFreq[0] / hotFreq[hotFreq.length - 1]).toBeLessThan(1.4);
  });

  it('defaults to 20% of the keys taking 80% of the ops', () => {
    const { values } = draws({ '#HOTSPOT': [0, 500] }, 50_000);
    const share = (values as number[]).filter((v) => v < 100).length / 50_000;
    expect(share).toBeGreaterThan(0.79);
    expect(share).toBeLessThan(0.81);
  });
});

describe('#LATEST', () => {
  it('reads the keys its client inserted with #SEQ_INT, the newest most often (zipfian over age)', () => {
    const scope = new TemplateScope();
    const insertKey = compileTemplate(
      { '#SEQ_INT': { seq_id: 3, start: 1000, step: 10 } },
      'ops[0].doc._id',
      scope,
    );
    const readKey = compileTemplate(
      { '#LATEST': { seq_id: 3, start: 1000, step: 10 } },
      'ops[1].query._id',
      scope,
    );
    const state = scope.newClientState(0, 5);
    expect(readKey(state)).toBe(1000); // nothing inserted yet: the start
    for (let i = 0; i < 500; i++) insertKey(state);
    const newest = 1000 + 10 * 499;
    const n = 100_000;
    const ages = Array.from({ length: n }, () => (newest - (readKey(state) as number)) / 10);
    expect(ages.every((a) => Number.isInteger(a) && a >= 0 && a < 500)).toBe(true);
    const byAge = new Array<number>(500).fill(0);
    for (const a of ages) byAge[a]++;
    // Rank = age: the newest key is the most read, and frequency falls with age like a zipfian.
    expect(byAge[0]).toBe(Math.max(...byAge));
    expect(byAge[0] / n).toBeGreaterThan((1 / zeta(500, 0.99)) * 0.9);
    expect(byAge[0] / n).toBeLessThan((1 / zeta(500, 0.99)) * 1.1);
    expect(logLogSlope(byAge, 30)).toBeLessThan(-0.85);
    // More inserts: the newest key moves with them.
    for (let i = 0; i < 500; i++) insertKey(state);
    const later = Array.from({ length: 10_000 }, () => readKey(state) as number);
    expect(frequencies(later)[0]).toBe(later.filter((k) => k === 1000 + 10 * 999).length);
  });
});

describe('#PICK and #RAND_DATE (what capture writes)', () => {
  it('#PICK draws each value with its weight', () => {
    const n = 60_000;
    const { values } = draws({ '#PICK': { values: ['a', 'b', 'c'], weights: [3, 2, 1] } }, n);
    const share = (v: string) => values.filter((x) => x === v).length / n;
    expect(Math.abs(share('a') - 0.5)).toBeLessThan(0.01);
    expect(Math.abs(share('b') - 1 / 3)).toBeLessThan(0.01);
    expect(Math.abs(share('c') - 1 / 6)).toBeLessThan(0.01);
    expect(new Set(draws({ '#PICK': [1, 2] }, 100).values)).toEqual(new Set([1, 2]));
    expect(usageMessage(() => draws({ '#PICK': { values: [1, 2], weights: [1] } }, 1))).toBe(
      'ops[0].query.k.#PICK.weights: expected 2 numbers > 0 (one per value), got [1]',
    );
  });

  it('#RAND_DATE gives dates in [min, max)', () => {
    const min = new Date('2025-01-01T00:00:00Z');
    const max = new Date('2025-01-02T00:00:00Z');
    const { values } = draws({ '#RAND_DATE': [min, max] }, 1000);
    expect(values.every((d) => d instanceof Date && d >= min && d < max)).toBe(true);
    expect(new Set(values.map((d) => (d as Date).getTime())).size).toBeGreaterThan(900);
  });
});
