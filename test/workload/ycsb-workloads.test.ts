/**
 * YCSB's keys, key choosers and workloads without a server (lib/workload/language/ycsb-keys.ts,
 * ycsb-workloads.ts and the #YCSB_KEY, #YCSB_KEYNUM, #PICK_FIELD operators).
 */
import {
  fnvhash64,
  fnvhash64Mod,
  scrambledZipfianKeynum,
  SCRAMBLED_ZIPFIAN_ZETAN,
  ycsbKeyName,
} from '../../lib/workload/language/ycsb-keys';
import { YCSB_FIELDS, ycsbOps, ycsbSetup } from '../../lib/workload/language/ycsb-workloads';
import { presetOps, presetSetup } from '../../lib/workload/language/presets';
import { compileTemplate, TemplateScope } from '../../lib/workload/language/template';
import { Prng } from '../../lib/workload/language/prng';
import { parseOps } from '../../lib/workload/language/op-spec';
import { weightedOpPicker } from '../../lib/workload/language/weighted-pick';
import { resolveBenchmarkOptions } from '../../lib/run/options/run-options';
import { usageMessage } from '../support/cli';

const NS = { db: 'ycsb', coll: 'usertable' };

/** Utils.fnvhash64 written as YCSB writes it, on 64-bit integers. */
function javaFnvhash64(value: bigint): bigint {
  let val = value;
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < 8; i++) {
    hash ^= val & 0xffn;
    val >>= 8n;
    hash = BigInt.asIntN(64, hash * 1099511628211n);
  }
  return hash < 0n && hash !== -(1n << 63n) ? -hash : hash;
}

describe("YCSB's keys", () => {
  it('are "user" + the FNV-64 hash of the key number (buildKeyName, insertorder=hashed), computed exactly', () => {
    // The key of record 0 every YCSB load writes first.
    expect(ycsbKeyName(0)).toBe('user6284781860667377211');
    const rng = new Prng(3);
    const wrong: string[] = [];
    for (let i = 0; i < 600; i++) {
      const n = i < 300 ? i : rng.nextBelow(2 ** 31) * 2 ** 21 + rng.nextBelow(2 ** 21);
      if (fnvhash64(n) !== javaFnvhash64(BigInt(n))) wrong.push(`fnvhash64(${n})`);
      const m = 1 + rng.nextBelow(2 ** 31) * (i % 2 === 0 ? 1 : 4000);
      if (fnvhash64Mod(n, m) !== Number(javaFnvhash64(BigInt(n)) % BigInt(m)))
        wrong.push(`fnvhash64(${n}) % ${m}`);
    }
    expect(wrong).toEqual([]);
  });

  it("scrambled zipfian: YCSB's 10^10-item zipfian hashed onto the keys, the hottest key drawn 1/ZETAN of the time", () => {
    const rng = new Prng(7);
    const counts = new Map<number, number>();
    const draws = 40_000;
    for (let i = 0; i < draws; i++) {
      const k = scrambledZipfianKeynum(rng.nextFloat(), 1000);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect(Math.min(...counts.keys())).toBeGreaterThanOrEqual(0);
    expect(Math.max(...counts.keys())).toBeLessThan(1000);
    const hottest = Math.max(...counts.values()) / draws;
    // Rank 0 (1/ZETAN = 3.78%) lands on fnvhash64(0) % 1000; other ranks may share its key.
    expect(counts.get(Number(fnvhash64(0) % 1000n))! / draws).toBeCloseTo(hottest, 5);
    expect(hottest).toBeGreaterThan(1 / SCRAMBLED_ZIPFIAN_ZETAN - 0.004);
    expect(hottest).toBeLessThan(1 / SCRAMBLED_ZIPFIAN_ZETAN + 0.01);
  });

  it('latest: the newest key the most popular, inserts joining the records; inserted keys are new and remembered', () => {
    const scope = new TemplateScope();
    const insert = compileTemplate(
      { '#YCSB_KEYNUM': { distribution: 'insert', records: 100 } },
      'insert',
      scope,
    );
    const latest = compileTemplate(
      { '#YCSB_KEYNUM': { distribution: 'latest', records: 100 } },
      'read',
      scope,
    );
    const state = scope.newClientState(0, 5);
    const counts = new Map<unknown, number>();
    for (let i = 0; i < 5000; i++) {
      const k = latest(state) as number;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    // Key 99 is the newest record: the most drawn; key 0 never (SkewedLatestGenerator: max - zipfian(max)).
    expect([...counts.entries()].sort((a, b) => b[1] - a[1])[0][0]).toBe(99);
    expect(counts.has(0)).toBe(false);
    const inserted = [insert(state), insert(state)] as number[];
    for (const k of inserted) expect(k).toBeGreaterThanOrEqual(100);
    expect(new Set(inserted).size).toBe(2);
    const after = new Map<unknown, number>();
    for (let i = 0; i < 5000; i++) {
      const k = latest(state);
      after.set(k, (after.get(k) ?? 0) + 1);
    }
    expect([...after.entries()].sort((a, b) => b[1] - a[1])[0][0]).toBe(inserted[1]);
    expect(after.has(inserted[0])).toBe(true);
  });

  it('refuses malformed operators, naming the path', () => {
    const compile = (value: unknown) => () =>
      compileTemplate(value, 'ops[0].query', new TemplateScope());
    expect(usageMessage(compile({ '#YCSB_KEYNUM': { distribution: 'zipf', records: 10 } }))).toBe(
      'ops[0].query.#YCSB_KEYNUM.distribution: expected one of zipfian, uniform, latest, insert, got "zipf"',
    );
    expect(usageMessage(compile({ '#YCSB_KEYNUM': { distribution: 'uniform', record: 10 } }))).toBe(
      'ops[0].query.#YCSB_KEYNUM.record: unknown field (did you mean "records"?)',
    );
    expect(usageMessage(compile({ '#YCSB_KEY': -1 }))).toMatch(
      /^ops\[0\]\.query\.#YCSB_KEY: expected a key number/,
    );
    expect(usageMessage(compile({ '#PICK_FIELD': { names: [], value: 1 } }))).toMatch(
      /^ops\[0\]\.query\.#PICK_FIELD\.names: expected a non-empty array/,
    );
  });
});

describe("YCSB's workloads", () => {
  const scope = new TemplateScope();
  const state = scope.newClientState(0, 11);

  it('ycsb-a reads all fields and updates one field of 100 characters, 50/50 by weight, over zipfian keys', () => {
    const [read, update] = ycsbOps('ycsb-a', NS, 1000);
    expect(read).toMatchObject({ op: 'findOne', ns: 'ycsb.usertable', weight: 50 });
    expect(read.filter).toBeUndefined();
    expect(update).toMatchObject({ op: 'update', weight: 50 });
    const set = compileTemplate(update.update, 'update', scope);
    const fields = new Set<string>();
    const wrong: unknown[] = [];
    for (let i = 0; i < 500; i++) {
      const u = set(state) as { $set: Record<string, string> };
      const names = Object.keys(u.$set);
      if (names.length !== 1 || u.$set[names[0]].length !== 100) wrong.push(u);
      fields.add(names[0]);
    }
    expect(wrong).toEqual([]);
    expect([...fields].sort()).toEqual([...YCSB_FIELDS].sort());
    const id = compileTemplate(read.query, 'query', scope);
    expect((id(state) as { _id: string })._id).toMatch(/^user\d+$/);
  });

  it('the six mix their ops as the workload files say', () => {
    const mix = (name: 'ycsb-a' | 'ycsb-b' | 'ycsb-c' | 'ycsb-d' | 'ycsb-e' | 'ycsb-f') =>
      ycsbOps(name, NS, 10).map((o) => `${o.op}:${o.weight ?? 1}`);
    expect(mix('ycsb-a')).toEqual(['findOne:50', 'update:50']);
    expect(mix('ycsb-b')).toEqual(['findOne:95', 'update:5']);
    expect(mix('ycsb-c')).toEqual(['findOne:1']);
    expect(mix('ycsb-d')).toEqual(['findOne:95', 'insert:5']);
    expect(mix('ycsb-e')).toEqual(['command:95', 'insert:5']);
    expect(mix('ycsb-f')).toEqual(['findOne:50', 'readModifyWrite:50']);
    expect(JSON.stringify(ycsbOps('ycsb-d', NS, 10)[0])).toContain('"distribution":"latest"');
    for (const name of ['ycsb-a', 'ycsb-b', 'ycsb-c', 'ycsb-d', 'ycsb-e', 'ycsb-f']) {
      expect(
        parseOps(presetOps(name, { ns: 'ycsb.usertable', docs: 10, docSize: 1 }), {
          defaultNs: 'ycsb.usertable',
        }).length,
      ).toBeGreaterThan(0);
    }
  });

  it("draws A's and B's ops in their workload files' proportions (the engine's weighted picker, 10,000 draws)", () => {
    const draws = 10_000;
    for (const [name, readShare] of [
      ['ycsb-a', 0.5],
      ['ycsb-b', 0.95],
    ] as const) {
      const pick = weightedOpPicker(
        ycsbOps(name, NS, 10).map((op) => op.weight as number),
        1314159265,
      )!;
      let reads = 0;
      for (let i = 0; i < draws; i++) if (pick() === 0) reads++;
      // Binomial: within 4 standard deviations of the expected count.
      expect(Math.abs(reads - draws * readShare)).toBeLessThanOrEqual(
        4 * Math.sqrt(draws * readShare * (1 - readShare)),
      );
    }
  });

  it("ycsb-e scans from a zipfian key in _id order, a length uniform in 1..100 (workloade's maxscanlength)", () => {
    const [scan] = ycsbOps('ycsb-e', NS, 1000);
    expect(scan).toMatchObject({ op: 'command', ns: 'ycsb', weight: 95 });
    const command = compileTemplate(scan.command, 'command', scope);
    const lengths = new Map<number, number>();
    const draws = 10_000;
    const wrong: unknown[] = [];
    for (let i = 0; i < draws; i++) {
      const c = command(state) as {
        find: string;
        filter: { _id: { $gte: string } };
        sort: { _id: number };
        limit: number;
      };
      if (
        c.find !== 'usertable' ||
        c.sort._id !== 1 ||
        Object.keys(c.sort).length !== 1 ||
        !/^user\d+$/.test(c.filter._id.$gte)
      )
        wrong.push(c);
      lengths.set(c.limit, (lengths.get(c.limit) ?? 0) + 1);
    }
    expect(wrong).toEqual([]);
    expect(Math.min(...lengths.keys())).toBe(1);
    expect(Math.max(...lengths.keys())).toBe(100);
    expect(lengths.size).toBe(100);
    // Uniform: each length about 1% of the scans (100 of 10,000; 6 standard deviations is 60).
    expect([...lengths.values()].filter((count) => Math.abs(count - draws / 100) >= 60)).toEqual(
      [],
    );
  });

  it("loads N records of YCSB's shape in key order 0..N-1, through a drop the data guard checks", () => {
    const setup = ycsbSetup(NS, 3, 100);
    expect(setup.steps[0]).toEqual({ kind: 'command', db: 'ycsb', command: { drop: 'usertable' } });
    const generate = setup.steps[1];
    if (generate.kind !== 'generate') throw new Error('expected a generate step');
    expect(generate).toMatchObject({ ns: NS, count: 3, batchSize: 100 });
    // As the set-up runs it: client 0's state, its #SEQ_INT counting the documents.
    const loadScope = new TemplateScope();
    const make = compileTemplate(generate.doc, 'doc', loadScope);
    const loadState = loadScope.newClientState(0, 1);
    const docs = [0, 1, 2].map(() => make(loadState) as Record<string, string>);
    expect(Object.keys(docs[0])).toEqual(['_id', ...YCSB_FIELDS]);
    for (const field of YCSB_FIELDS) expect(docs[0][field]).toHaveLength(100);
    expect(docs.map((d) => d._id)).toEqual([0, 1, 2].map(ycsbKeyName));
  });

  it('a ycsb preset brings its set-up, except with --no-load; --docs-like and scenarios refuse it', () => {
    expect(presetSetup('6to1', { ns: 'a.b', docs: 1, docSize: 1, batchSize: 1 })).toBeUndefined();
    expect(resolveBenchmarkOptions({ workload: 'ycsb-b', docs: 50 }).setup?.steps[1]).toMatchObject(
      { kind: 'generate', count: 50 },
    );
    expect(resolveBenchmarkOptions({ workload: 'ycsb-b', load: false }).setup).toBeUndefined();
    expect(
      usageMessage(() => resolveBenchmarkOptions({ workload: 'ycsb-c', docsLike: 'a.b' })),
    ).toBe(
      "option --docs-like: workload ycsb-c loads its own records (YCSB's), which --docs-like cannot shape",
    );
    expect(
      usageMessage(() =>
        resolveBenchmarkOptions({ scenarios: [{ name: 's', workload: 'ycsb-a', clients: [1] }] }),
      ),
    ).toMatch(/ycsb-a runs over YCSB's records, which a scenario does not load/);
  });
});
