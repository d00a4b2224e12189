import vm from 'node:vm';
import { Long, ObjectId } from 'mongodb';
import { compileTemplate, TemplateScope } from '../../lib/workload/language/template';
import { Prng } from '../../lib/workload/language/prng';
import { usageMessage } from '../support/cli';

function draw(
  template: unknown,
  n: number,
  opts: { index?: number; seed?: number; scope?: TemplateScope } = {},
): unknown[] {
  const scope = opts.scope ?? new TemplateScope();
  const gen = compileTemplate(template, 'ops[0].query', scope);
  const state = scope.newClientState(opts.index ?? 0, opts.seed ?? 42);
  return Array.from({ length: n }, () => gen(state));
}

describe('#RAND_INT', () => {
  it('draws integers in [min, max) and covers the whole range', () => {
    const values = draw({ '#RAND_INT': [3, 8] }, 2000) as number[];
    expect(values.every((v) => Number.isInteger(v) && v >= 3 && v < 8)).toBe(true);
    expect(new Set(values)).toEqual(new Set([3, 4, 5, 6, 7]));
  });

  it('multiplies by the optional third argument', () => {
    const values = draw({ '#RAND_INT': [1, 5, 4] }, 1000) as number[];
    expect(new Set(values)).toEqual(new Set([4, 8, 12, 16]));
  });

  it('evaluates nested operators in its arguments', () => {
    const values = draw({ '#RAND_INT': [{ '#RAND_INT': [0, 5] }, 10] }, 500) as number[];
    expect(values.every((v) => v >= 0 && v < 10)).toBe(true);
  });

  it('is roughly uniform', () => {
    const values = draw({ '#RAND_INT': [0, 10] }, 20000) as number[];
    const counts = new Array(10).fill(0);
    for (const v of values) counts[v]++;
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(250);
  });

  it('rejects malformed arguments naming the path', () => {
    expect(usageMessage(() => draw({ '#RAND_INT': [5, 0] }, 1))).toMatch(
      /^ops\[0\]\.query\.#RAND_INT: expected min < max/,
    );
    expect(usageMessage(() => draw({ '#RAND_INT': ['a', 'b'] }, 1))).toMatch(
      /ops\[0\]\.query\.#RAND_INT: expected .* of integers/,
    );
    expect(usageMessage(() => draw({ '#RAND_INT': [1] }, 1))).toMatch(
      /#RAND_INT: expected \[min, max\]/,
    );
    expect(usageMessage(() => draw({ _id: { '#RAND_INT': 7 } }, 1))).toMatch(
      /^ops\[0\]\.query\._id\.#RAND_INT: /,
    );
  });
});

describe('#RAND_INT_PLUS_THREAD', () => {
  it('offsets each client by index * (max - min), so clients use disjoint ranges', () => {
    for (const index of [0, 1, 5]) {
      const values = draw({ '#RAND_INT_PLUS_THREAD': [1, 5] }, 500, { index }) as number[];
      expect(Math.min(...values)).toBe(1 + index * 4);
      expect(Math.max(...values)).toBe(4 + index * 4);
    }
  });

  it('ignores a third argument, as benchRun does', () => {
    const values = draw({ '#RAND_INT_PLUS_THREAD': [1, 5, 4] }, 300, { index: 1 }) as number[];
    expect(values.every((v) => v >= 5 && v < 9)).toBe(true);
  });
});

describe('#SEQ_INT', () => {
  it('counts from start by step, per client', () => {
    expect(draw({ '#SEQ_INT': { seq_id: 0, start: -4, step: 2 } }, 4)).toEqual([-4, -2, 0, 2]);
    expect(draw({ '#SEQ_INT': { seq_id: 1, start: 5, step: -5 } }, 4)).toEqual([5, 0, -5, -10]);
  });

  it('wraps with mod', () => {
    expect(draw({ '#SEQ_INT': { seq_id: 6, start: 0, step: 1, mod: 3 } }, 6)).toEqual([
      0, 1, 2, 0, 1, 2,
    ]);
    expect(draw({ '#SEQ_INT': { seq_id: 6, start: 0, step: -1, mod: 3 } }, 4)).toEqual([
      0, 2, 1, 0,
    ]);
  });

  it('keeps separate counters per seq_id and shares one seq_id between fields', () => {
    const values = draw(
      {
        a: { '#SEQ_INT': { seq_id: 2, start: 0, step: 1 } },
        b: { '#SEQ_INT': { seq_id: 3, start: 0, step: -1 } },
      },
      3,
    );
    expect(values).toEqual([
      { a: 0, b: 0 },
      { a: 1, b: -1 },
      { a: 2, b: -2 },
    ]);
    const shared = draw(
      [
        { '#SEQ_INT': { seq_id: 9, start: 0, step: 1 } },
        { '#SEQ_INT': { seq_id: 9, start: 0, step: 1 } },
      ],
      2,
    );
    expect(shared).toEqual([
      [0, 1],
      [2, 3],
    ]);
  });

  it('unique: puts the client index in the high byte of a 64-bit integer, so clients never collide', () => {
    const seen = new Set<string>();
    for (const index of [0, 1, 9, 127]) {
      const values = draw({ '#SEQ_INT': { seq_id: 5, start: 8, step: 1, unique: true } }, 50, {
        index,
      }) as Long[];
      expect(values[0]).toBeInstanceOf(Long);
      expect(values[0].toBigInt()).toBe((BigInt(index) << 56n) + 8n);
      for (const v of values) seen.add(v.toString());
    }
    expect(seen.size).toBe(4 * 50);
  });

  it('rejects missing or bad fields naming them', () => {
    expect(usageMessage(() => draw({ '#SEQ_INT': { seq_id: 0, start: 0 } }, 1))).toMatch(
      /#SEQ_INT\.step: required/,
    );
    expect(
      usageMessage(() => draw({ '#SEQ_INT': { seq_id: 0, start: 0, step: 1, mod: 'x' } }, 1)),
    ).toMatch(/#SEQ_INT\.mod: expected an integer/);
    expect(
      usageMessage(() => draw({ '#SEQ_INT': { seq_id: 0, start: 0, step: 1, stpe: 1 } }, 1)),
    ).toMatch(/#SEQ_INT\.stpe: unknown field \(did you mean "step"\?\)/);
  });
});

describe('other operators', () => {
  it('#RAND_STRING makes strings of the given length', () => {
    const values = draw({ '#RAND_STRING': [37] }, 20) as string[];
    expect(values.every((s) => s.length === 37 && /^[A-Za-z0-9+/]+$/.test(s))).toBe(true);
    expect(new Set(values).size).toBe(20);
    expect(usageMessage(() => draw({ '#RAND_STRING': [0] }, 1))).toMatch(
      /#RAND_STRING: expected \[length\]/,
    );
  });

  it('#CONCAT joins strings, numbers and generated values', () => {
    expect(draw({ '#CONCAT': ['F', 1, 'racing'] }, 1)).toEqual(['F1racing']);
    const [v] = draw(
      { '#CONCAT': [{ '#RAND_INT': [0, 5] }, ' hello world ', { '#RAND_STRING': [5] }] },
      1,
    ) as string[];
    expect(v).toHaveLength(19);
    expect(usageMessage(() => draw({ '#CONCAT': ['only'] }, 1))).toMatch(
      /#CONCAT: expected an array of at least two/,
    );
  });

  it('#OID makes a new ObjectId each time; #CUR_DATE adds its offset to now', () => {
    const [a, b] = draw({ '#OID': 1 }, 2) as ObjectId[];
    expect(a).toBeInstanceOf(ObjectId);
    expect(a.equals(b)).toBe(false);
    const before = Date.now();
    const [d] = draw({ '#CUR_DATE': -60000 }, 1) as Date[];
    expect(d).toBeInstanceOf(Date);
    expect(d.getTime()).toBeGreaterThanOrEqual(before - 60000);
    expect(d.getTime()).toBeLessThanOrEqual(Date.now() - 60000);
  });

  it('#VARIABLE reads what a let op assigned; an unset variable is an error', () => {
    const scope = new TemplateScope();
    const slot = scope.defineVar('x');
    const gen = compileTemplate({ _id: { '#VARIABLE': 'x' } }, 'ops[1].query', scope);
    const state = scope.newClientState(0, 1);
    state.vars[slot] = 17;
    expect(gen(state)).toEqual({ _id: 17 });
    expect(
      usageMessage(() => compileTemplate({ '#VARIABLE': 'counter' }, 'ops[1].query._id', scope)),
    ).toBe('ops[1].query._id.#VARIABLE: variable "counter" is not set by an earlier "let" op');
  });

  it('an unknown operator is named with a suggestion; an operator must be alone in its object', () => {
    expect(usageMessage(() => draw({ _id: { '#RAND_INTT': [0, 1] } }, 1))).toBe(
      'ops[0].query._id.#RAND_INTT: unknown template operator (did you mean "#RAND_INT"?)',
    );
    expect(usageMessage(() => draw({ _id: { '#RAND_INT': [0, 1], x: 1 } }, 1))).toMatch(
      /must be the only key of its object \(found "#RAND_INT", "x"; benchRun would evaluate only the first key, "#RAND_INT", and drop the others\)/,
    );
  });
});

describe('compilation', () => {
  it('returns constant subtrees as they are, and builds fresh objects only around operators', () => {
    const constant = { a: { b: [1, 2] }, c: 'x' };
    const scope = new TemplateScope();
    const gen = compileTemplate({ fixed: constant, r: { '#RAND_INT': [0, 3] } }, 'q', scope);
    const state = scope.newClientState(0, 1);
    const first = gen(state) as { fixed: unknown };
    const second = gen(state) as { fixed: unknown };
    expect(first).not.toBe(second);
    expect(first.fixed).toBe(constant);
    expect(compileTemplate(constant, 'q', scope)(state)).toBe(constant);
  });

  it('recognises operators in objects from another realm (structuredClone, vm contexts)', () => {
    const foreign = vm.runInNewContext('({ _id: { "#RAND_INT": [0, 3] } })') as unknown;
    const cloned = structuredClone({ _id: { '#RAND_INT': [0, 3] } });
    for (const template of [foreign, cloned]) {
      const [value] = draw(template, 1) as { _id: unknown }[];
      expect(typeof value._id).toBe('number');
    }
  });

  it('is deterministic under a seed, and clients with different seeds differ', () => {
    const template = { a: { '#RAND_INT': [0, 1_000_000] }, s: { '#RAND_STRING': [8] } };
    expect(draw(template, 50, { seed: 7 })).toEqual(draw(template, 50, { seed: 7 }));
    expect(draw(template, 50, { seed: 7 })).not.toEqual(draw(template, 50, { seed: 8 }));
  });

  it('the PRNG stays in range for wide ranges', () => {
    const rng = new Prng(3);
    for (let i = 0; i < 1000; i++) {
      const v = rng.nextBelow(2 ** 40);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(2 ** 40);
    }
  });
});
