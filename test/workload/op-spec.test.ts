import { parseOps } from '../../lib/workload/language/op-spec';
import { prepareWorkload } from '../../lib/workload/engine/compile-ops';
import { compileRunWorkload } from '../../lib/run/options/run-workload';
import { presetOps, PRESET_NAMES } from '../../lib/workload/language/presets';
import { parseWorkloadText } from '../../lib/workload/language/workload-file';
import { usageMessage } from '../support/cli';

const NS = 'bench.docs';

describe('parseOps (benchRun op documents)', () => {
  it('accepts benchRun workloads unchanged, with their compatibility fields', () => {
    const specs = parseOps(
      [
        { op: 'let', target: 'x', value: { '#RAND_INT_PLUS_THREAD': [0, 100] } },
        {
          op: 'findOne',
          ns: 'test.foo',
          query: { _id: { '#VARIABLE': 'x' } },
          readCmd: true,
          filter: { a: 1 },
        },
        {
          op: 'query',
          ns: 'test.foo',
          query: {},
          limit: 10,
          skip: 2,
          batchSize: 5,
          readPrefMode: 'secondaryPreferred',
        },
        {
          op: 'update',
          ns: 'test.foo',
          query: { _id: 1 },
          update: { $inc: { x: 1 } },
          multi: true,
          upsert: false,
          writeCmd: true,
          safe: false,
          writeConcern: { w: 1, j: true },
        },
        { op: 'insert', ns: 'test.foo', doc: [{ a: 1 }, { a: 2 }] },
        { op: 'delete', ns: 'test.foo', query: { a: 1 } },
        { op: 'command', ns: 'test', command: { ping: 1 } },
        { op: 'nop' },
      ],
      { defaultNs: NS },
    );
    expect(specs.map((s) => s.type)).toEqual([
      'let',
      'findOne',
      'find',
      'update',
      'insert',
      'remove',
      'command',
      'nop',
    ]);
    expect(specs[2]).toMatchObject({
      limit: 10,
      skip: 2,
      batchSize: 5,
      readPreference: { mode: 'secondaryPreferred' },
      ns: { db: 'test', coll: 'foo' },
    });
    expect(specs[3]).toMatchObject({ multi: true, writeConcern: { w: 1, j: true } });
    expect(specs[6].ns).toEqual({ db: 'test', coll: '' });
  });

  it('gives ops without ns the default namespace', () => {
    const [spec] = parseOps([{ op: 'findOne', query: { _id: 1 } }], { defaultNs: NS });
    expect(spec.ns).toEqual({ db: 'bench', coll: 'docs' });
  });

  it.each([
    [
      [
        { op: 'findOne' },
        { op: 'findOne' },
        { op: 'update', query: {}, updat: { $set: { a: 1 } } },
      ],
      'ops[2].updat: unknown field (did you mean "update"?)',
    ],
    [[{ op: 'fndOne' }], 'ops[0].op: unknown op "fndOne" (did you mean "findOne"?)'],
    [[{ query: {} }], 'ops[0].op: required'],
    [
      [{ op: 'findOne', update: { $set: { a: 1 } } }],
      'ops[0].update: not valid for op "findOne" (only for "update", "readModifyWrite")',
    ],
    [[{ op: 'update', query: {} }], 'ops[0].update: required for op "update"'],
    [[{ op: 'insert' }], 'ops[0].doc: required for op "insert"'],
    [[{ op: 'find', limit: -1 }], 'ops[0].limit: expected a non-negative integer'],
    [[{ op: 'findOne', ns: 'nodot' }], 'ops[0].ns: expected "database.collection"'],
    [
      [{ op: 'update', query: {}, update: { $set: { a: 1 }, b: 2 } }],
      'ops[0].update: mixes update operators',
    ],
    [
      [{ op: 'findOne', readPreference: 'secondaryPrefered' }],
      'ops[0].readPreference: unknown read preference "secondaryPrefered" (did you mean "secondaryPreferred"?)',
    ],
    [[], 'ops: expected at least one op'],
    ['not an array', 'ops: expected an array'],
    [[42], 'ops[0]: expected an op object'],
  ])('rejects %j: %s', (ops, expected) => {
    expect(usageMessage(() => parseOps(ops, { defaultNs: NS }))).toContain(expected);
  });

  it('prefixes messages with where the ops came from', () => {
    expect(
      usageMessage(() =>
        parseOps([{ op: 'findOne', qurey: {} }], {
          defaultNs: NS,
          where: 'workload file w.json: ',
        }),
      ),
    ).toBe('workload file w.json: ops[0].qurey: unknown field (did you mean "query"?)');
  });
});

describe('prepareWorkload (template compilation per op)', () => {
  it('names the op index and field of a malformed template', () => {
    const specs = parseOps(
      [
        { op: 'findOne', query: { _id: 1 } },
        { op: 'update', query: { _id: { '#RAND_INT': [10, 0] } }, update: { $inc: { n: 1 } } },
      ],
      { defaultNs: NS },
    );
    expect(usageMessage(() => prepareWorkload(specs))).toBe(
      'ops[1].query._id.#RAND_INT: expected min < max, got [10,0]',
    );
  });

  it('requires let before #VARIABLE, and gives each insert a fresh document', () => {
    const late = parseOps(
      [
        { op: 'findOne', query: { _id: { '#VARIABLE': 'x' } } },
        { op: 'let', target: 'x', value: 1 },
      ],
      { defaultNs: NS },
    );
    expect(usageMessage(() => prepareWorkload(late))).toBe(
      'ops[0].query._id.#VARIABLE: variable "x" is not set by an earlier "let" op',
    );

    const prepared = prepareWorkload(
      parseOps([{ op: 'insert', doc: { a: 1 } }], { defaultNs: NS }),
    );
    const state = prepared.scope.newClientState(0, 1);
    const first = prepared.ops[0].doc!(state);
    const second = prepared.ops[0].doc!(state);
    expect(first).toEqual({ a: 1 });
    expect(first).not.toBe(second);
  });

  it('applies the default write concern to writes that have none', () => {
    const prepared = prepareWorkload(
      parseOps(
        [
          { op: 'findOne' },
          { op: 'update', query: {}, update: { $set: { a: 1 } } },
          { op: 'insert', doc: {}, writeConcern: { w: 0 } },
        ],
        { defaultNs: NS },
      ),
      { defaultWriteConcern: { w: 'majority' } },
    );
    expect(prepared.ops.map((o) => o.spec.writeConcern)).toEqual([
      undefined,
      { w: 'majority' },
      { w: 0 },
    ]);
    expect(prepared.ops.map((o) => o.opClass)).toEqual(['read', 'write', 'write']);
  });
});

describe('presets', () => {
  it('6to1 is six findOne by random _id over the loaded range to one update ($set + $inc)', () => {
    const ops = presetOps('6to1', { ns: NS, docs: 500, docSize: 1024 });
    expect(ops.map((o) => o.op)).toEqual([
      'findOne',
      'findOne',
      'findOne',
      'findOne',
      'findOne',
      'findOne',
      'update',
    ]);
    expect(ops[0].query).toEqual({ _id: { '#RAND_INT': [0, 500] } });
    expect(ops[6].update).toMatchObject({ $inc: { counter: 1 }, $set: expect.any(Object) });
  });

  it('every preset compiles', () => {
    for (const name of PRESET_NAMES) {
      const prepared = compileRunWorkload({
        workload: { name, ops: presetOps(name, { ns: NS, docs: 100, docSize: 512 }) },
        ns: NS,
      });
      expect(prepared.ops.length).toBeGreaterThan(0);
    }
  });

  it('an unknown preset names --workload with a suggestion', () => {
    expect(usageMessage(() => presetOps('6to2', { ns: NS, docs: 1, docSize: 100 }))).toMatch(
      /^option --workload: unknown workload "6to2" \(did you mean "6to1"\?\)/,
    );
  });
});

describe('workload files', () => {
  it('takes a bare ops array or a benchRun-style {ops, ...} object (Extended JSON)', () => {
    expect(parseWorkloadText('[{"op":"findOne"}]', '/x/mine.json')).toEqual({
      name: 'mine',
      ops: [{ op: 'findOne' }],
    });
    const file = parseWorkloadText(
      '{"ops":[{"op":"insert","doc":{"_id":{"$oid":"5f0000000000000000000000"}}}],"parallel":4,"seconds":10,"ns":"a.b"}',
      'w.json',
    );
    expect(file.ns).toBe('a.b');
    expect((file.ops[0] as { doc: { _id: { toHexString(): string } } }).doc._id.toHexString()).toBe(
      '5f0000000000000000000000',
    );
  });

  it('rejects unknown keys and bad JSON naming the file', () => {
    expect(usageMessage(() => parseWorkloadText('{"opz": []}', 'w.json'))).toBe(
      'workload file w.json: unknown key "opz" (did you mean "ops"?)',
    );
    expect(usageMessage(() => parseWorkloadText('{', 'w.json'))).toMatch(
      /^workload file w.json:1:2: not valid JSON/,
    );
  });
});
