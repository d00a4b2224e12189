/**
 * benchRun's template operators (#RAND_INT, #SEQ_INT, ...), compiled once per op into a function
 * that produces the next value for one client. Subtrees without operators are returned as they are
 * (never copied), so a constant query costs nothing per operation.
 */
import { Long, ObjectId } from 'mongodb';
import { UsageError } from '../../config/errors';
import { closest } from '../../config/validate';
import { DEFAULT_THETA, hotspot, Latest, scramble, Zipfian } from './key-distributions';
import { latestKeynum, scrambledZipfianKeynum, ycsbKeyName } from './ycsb-keys';
import { Prng } from './prng';
import { cumulativeIndex } from './weighted-pick';
import { isPlainObject, show } from '../../common/values';

/** Per-client state the generators read and advance. */
export interface ClientState {
  /** The client's index in its step (benchRun's thread id): 0 .. clients-1. */
  readonly index: number;
  readonly rng: Prng;
  /** Per #SEQ_INT slot: how many values this client has drawn. */
  readonly seq: number[];
  /** Per #VARIABLE slot: the value its `let` op last assigned. */
  readonly vars: unknown[];
}

/** The key's slot in a client's state: the one it has, or the next free one. */
function slotOf<K>(slots: Map<K, number>, key: K): number {
  const slot = slots.get(key) ?? slots.size;
  slots.set(key, slot);
  return slot;
}

/** What compiling the ops of one workload shares: sequence and variable slots. */
export class TemplateScope {
  readonly seqSlots = new Map<number, number>();
  readonly varSlots = new Map<string, number>();
  /** True when some #SEQ_INT uses unique: the client index goes in the high byte (max 128 clients). */
  usesUniqueSeq = false;

  seqSlot(seqId: number): number {
    return slotOf(this.seqSlots, seqId);
  }

  /** Called by a `let` op: later ops may read the variable. */
  defineVar(name: string): number {
    return slotOf(this.varSlots, name);
  }

  newClientState(index: number, seed: number): ClientState {
    return {
      index,
      rng: new Prng(seed),
      seq: new Array<number>(this.seqSlots.size).fill(0),
      vars: new Array<unknown>(this.varSlots.size).fill(undefined),
    };
  }
}

export type Generator = (state: ClientState) => unknown;

type Compiled = { constant: true; value: unknown } | { constant: false; gen: Generator };

export const TEMPLATE_OPERATORS = [
  '#RAND_INT',
  '#RAND_INT_PLUS_THREAD',
  '#SEQ_INT',
  '#RAND_STRING',
  '#CONCAT',
  '#OID',
  '#CUR_DATE',
  '#VARIABLE',
  // mongo-bench's extensions (not benchRun's), documented in docs/workload.md:
  '#PICK',
  '#RAND_DATE',
  '#ZIPF',
  '#HOTSPOT',
  '#LATEST',
  '#PICK_FIELD',
  '#YCSB_KEY',
  '#YCSB_KEYNUM',
] as const;

/** The largest client count #SEQ_INT unique supports: benchRun puts the thread id in 7 bits. */
export const MAX_CLIENTS_WITH_UNIQUE_SEQ = 128;

// benchRun's 64 symbols, '+' and '/' last; one 32-bit draw yields five 6-bit characters
// (src/mongo/scripting/bson_template_evaluator.cpp, BsonTemplateEvaluator::evalRandString).
const STRING_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function fail(path: string, message: string): never {
  throw new UsageError(`${path}: ${message}`);
}

/**
 * Compiles a value that may hold template operators into a generator. Throws a UsageError naming
 * `path` (e.g. `ops[2].query._id`) when an operator is malformed.
 */
export function compileTemplate(value: unknown, path: string, scope: TemplateScope): Generator {
  const compiled = compile(value, path, scope);
  if (compiled.constant) {
    const constant = compiled.value;
    return () => constant;
  }
  return compiled.gen;
}

/** True when the value holds at least one template operator. */
export function hasTemplateOperators(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasTemplateOperators);
  if (!isPlainObject(value)) return false;
  return Object.keys(value).some((key) => key.startsWith('#') || hasTemplateOperators(value[key]));
}

function compile(value: unknown, path: string, scope: TemplateScope): Compiled {
  if (Array.isArray(value)) return compileArray(value, path, scope);
  if (!isPlainObject(value)) return { constant: true, value };
  const keys = Object.keys(value);
  const operatorKeys = keys.filter((k) => k.startsWith('#'));
  if (operatorKeys.length > 0) {
    if (keys.length !== 1) {
      // benchRun looks only at the first key: an operator there is evaluated from that key alone and
      // the other keys are dropped; an operator further on is sent literally (bson_template_evaluator.cpp,
      // BsonTemplateEvaluator::_evalElem). Either is almost surely a mistake: refused, saying so.
      const found = keys.map((k) => `"${k}"`).join(', ');
      const benchRunWould = keys[0].startsWith('#')
        ? `benchRun would evaluate only the first key, "${keys[0]}", and drop the others`
        : `benchRun would send the object unevaluated, since its first key "${keys[0]}" is not an operator`;
      fail(
        `${path}.${operatorKeys[0]}`,
        `a template operator must be the only key of its object (found ${found}; ${benchRunWould})`,
      );
    }
    return compileOperator(keys[0], value[keys[0]], `${path}.${keys[0]}`, scope);
  }
  const children = keys.map((key) => compile(value[key], `${path}.${key}`, scope));
  if (children.every((c) => c.constant)) return { constant: true, value };
  const count = keys.length;
  const gens: Generator[] = children.map((c) => (c.constant ? constantGen(c.value) : c.gen));
  return {
    constant: false,
    gen: (state) => {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < count; i++) out[keys[i]] = gens[i](state);
      return out;
    },
  };
}

function constantGen(value: unknown): Generator {
  return () => value;
}

function compileArray(value: unknown[], path: string, scope: TemplateScope): Compiled {
  const items = value.map((item, i) => compile(item, `${path}[${i}]`, scope));
  if (items.every((c) => c.constant)) return { constant: true, value };
  const gens = items.map((c) => (c.constant ? constantGen(c.value) : c.gen));
  const count = gens.length;
  return {
    constant: false,
    gen: (state) => {
      const out = new Array<unknown>(count);
      for (let i = 0; i < count; i++) out[i] = gens[i](state);
      return out;
    },
  };
}

function compileOperator(name: string, arg: unknown, path: string, scope: TemplateScope): Compiled {
  switch (name) {
    case '#RAND_INT':
      return compileRandInt(arg, path, scope, false);
    case '#RAND_INT_PLUS_THREAD':
      return compileRandInt(arg, path, scope, true);
    case '#SEQ_INT':
      return compileSeqInt(arg, path, scope);
    case '#RAND_STRING':
      return compileRandString(arg, path);
    case '#CONCAT':
      return compileConcat(arg, path, scope);
    case '#OID':
      // An extension: benchRun allows #OID only as the value of an `_id` field (bson_template_evaluator.cpp,
      // BsonTemplateEvaluator::evalObjId); here it may stand anywhere.
      return { constant: false, gen: () => new ObjectId() };
    case '#CUR_DATE':
      return compileCurDate(arg, path);
    case '#VARIABLE':
      return compileVariable(arg, path, scope);
    case '#PICK':
      return compilePick(arg, path);
    case '#RAND_DATE':
      return compileRandDate(arg, path);
    case '#ZIPF':
      return compileZipf(arg, path);
    case '#HOTSPOT':
      return compileHotspot(arg, path);
    case '#LATEST':
      return compileLatest(arg, path, scope);
    case '#PICK_FIELD':
      return compilePickField(arg, path, scope);
    case '#YCSB_KEY':
      return compileYcsbKey(arg, path, scope);
    case '#YCSB_KEYNUM':
      return compileYcsbKeynum(arg, path, scope);
    default: {
      const suggestion = closest(name, TEMPLATE_OPERATORS);
      return fail(
        path,
        `unknown template operator${suggestion ? ` (did you mean "${suggestion}"?)` : ` (known: ${TEMPLATE_OPERATORS.join(', ')})`}`,
      );
    }
  }
}

function compileRandInt(
  arg: unknown,
  path: string,
  scope: TemplateScope,
  plusThread: boolean,
): Compiled {
  const shape = plusThread ? '[min, max]' : '[min, max] or [min, max, multiplier]';
  if (!Array.isArray(arg) || arg.length < 2 || arg.length > 3)
    fail(path, `expected ${shape}, got ${show(arg)}`);
  const parts = arg.map((item, i) => compile(item, `${path}[${i}]`, scope));
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.constant && (typeof part.value !== 'number' || !Number.isInteger(part.value))) {
      fail(path, `expected ${shape} of integers, got ${show(arg)}`);
    }
  }
  // benchRun ignores a third argument to #RAND_INT_PLUS_THREAD.
  const multiplierPart = plusThread ? undefined : parts[2];
  if (parts.every((p) => p.constant)) {
    const min = parts[0].constant ? (parts[0].value as number) : 0;
    const max = parts[1].constant ? (parts[1].value as number) : 0;
    if (!(max > min)) fail(path, `expected min < max, got ${show(arg)}`);
    const range = max - min;
    const multiplier = multiplierPart?.constant ? (multiplierPart.value as number) : 1;
    if (plusThread)
      return { constant: false, gen: (s) => min + s.rng.nextBelow(range) + s.index * range };
    if (multiplier === 1) return { constant: false, gen: (s) => min + s.rng.nextBelow(range) };
    return { constant: false, gen: (s) => (min + s.rng.nextBelow(range)) * multiplier };
  }
  // Nested operators in the arguments: evaluated per operation, checked at run time.
  const gens = parts.map((p) => (p.constant ? constantGen(p.value) : p.gen));
  return {
    constant: false,
    gen: (s) => {
      const min = gens[0](s);
      const max = gens[1](s);
      const multiplier = plusThread || gens.length < 3 ? 1 : gens[2](s);
      if (
        typeof min !== 'number' ||
        typeof max !== 'number' ||
        typeof multiplier !== 'number' ||
        !(max > min)
      ) {
        throw new Error(
          `${path}: expected integers with min < max, got [${show(min)}, ${show(max)}]`,
        );
      }
      const range = Math.floor(max - min);
      const x = Math.floor(min) + s.rng.nextBelow(range);
      return plusThread ? x + s.index * range : x * multiplier;
    },
  };
}

const SEQ_KEYS = ['seq_id', 'start', 'step', 'unique', 'mod'];

function compileSeqInt(arg: unknown, path: string, scope: TemplateScope): Compiled {
  if (!isPlainObject(arg))
    fail(path, `expected {seq_id, start, step, unique?, mod?}, got ${show(arg)}`);
  for (const key of Object.keys(arg)) {
    if (!SEQ_KEYS.includes(key)) {
      const suggestion = closest(key, SEQ_KEYS);
      fail(
        `${path}.${key}`,
        `unknown field${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
      );
    }
  }
  const integer = (key: string, required: boolean): number | undefined => {
    const v = arg[key];
    if (v === undefined) {
      if (required) fail(`${path}.${key}`, 'required (an integer)');
      return undefined;
    }
    if (typeof v !== 'number' || !Number.isInteger(v))
      fail(`${path}.${key}`, `expected an integer, got ${show(v)}`);
    return v;
  };
  const seqId = integer('seq_id', true) as number;
  const start = integer('start', true) as number;
  const step = integer('step', true) as number;
  const mod = integer('mod', false);
  if (mod !== undefined && mod <= 0) fail(`${path}.mod`, `expected a positive integer, got ${mod}`);
  const unique = arg.unique;
  if (unique !== undefined && typeof unique !== 'boolean')
    fail(`${path}.unique`, `expected true or false, got ${show(unique)}`);
  const slot = scope.seqSlot(seqId);
  const next = (s: ClientState): number => {
    const n = s.seq[slot]++;
    const v = start + n * step;
    return mod === undefined ? v : ((v % mod) + mod) % mod;
  };
  if (unique === true) {
    scope.usesUniqueSeq = true;
    // As benchRun: the client (thread) id in the high-order byte of a 64-bit integer.
    return {
      constant: false,
      gen: (s) => Long.fromBigInt((BigInt(s.index) << 56n) + BigInt(next(s))),
    };
  }
  return { constant: false, gen: next };
}

function compileRandString(arg: unknown, path: string): Compiled {
  const length = Array.isArray(arg) && arg.length === 1 ? arg[0] : undefined;
  if (typeof length !== 'number' || !Number.isInteger(length) || length < 1) {
    fail(path, `expected [length] with an integer length >= 1, got ${show(arg)}`);
  }
  return {
    constant: false,
    gen: (s) => {
      let out = '';
      let bits = 0;
      let word = 0;
      for (let i = 0; i < length; i++) {
        if (bits < 6) {
          word = s.rng.nextUint32();
          bits = 30;
        }
        out += STRING_ALPHABET[word & 63];
        word >>>= 6;
        bits -= 6;
      }
      return out;
    },
  };
}

function compileConcat(arg: unknown, path: string, scope: TemplateScope): Compiled {
  if (!Array.isArray(arg) || arg.length < 2)
    fail(path, `expected an array of at least two values, got ${show(arg)}`);
  const parts = arg.map((item, i) => compile(item, `${path}[${i}]`, scope));
  const text = (v: unknown): string =>
    typeof v === 'string'
      ? v
      : v !== null && typeof v === 'object' && !(v instanceof Date)
        ? show(v)
        : String(v);
  if (parts.every((p) => p.constant))
    return { constant: true, value: parts.map((p) => text(p.constant ? p.value : '')).join('') };
  const gens = parts.map((p) => (p.constant ? constantGen(text(p.value)) : p.gen));
  return {
    constant: false,
    gen: (s) => {
      let out = '';
      for (let i = 0; i < gens.length; i++) out += text(gens[i](s));
      return out;
    },
  };
}

function compileCurDate(arg: unknown, path: string): Compiled {
  const offset = arg ?? 0;
  if (typeof offset !== 'number' || !Number.isFinite(offset))
    fail(path, `expected an offset in milliseconds, got ${show(arg)}`);
  return { constant: false, gen: () => new Date(Date.now() + offset) };
}

function compileVariable(arg: unknown, path: string, scope: TemplateScope): Compiled {
  if (typeof arg !== 'string' || arg === '')
    fail(path, `expected a variable name, got ${show(arg)}`);
  const slot = scope.varSlots.get(arg);
  if (slot === undefined) {
    const known = [...scope.varSlots.keys()];
    const suggestion = closest(arg, known);
    fail(
      path,
      `variable "${arg}" is not set by an earlier "let" op${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
    );
  }
  return { constant: false, gen: (s) => s.vars[slot] };
}

/**
 * An extension: `{"#PICK": [v1, v2, ...]}` draws one of the values uniformly; `{"#PICK": {"values": [...],
 * "weights": [...]}}` draws value i with probability weights[i] / sum (what `capture` writes for the
 * constants it saw, so a replay touches the same keys with the same skew). Values are sent as given.
 */
function compilePick(arg: unknown, path: string): Compiled {
  const shape = 'an array of values or {values: [...], weights: [...]}';
  const values = Array.isArray(arg) ? arg : isPlainObject(arg) ? arg.values : undefined;
  if (!Array.isArray(values) || values.length === 0)
    fail(path, `expected ${shape} with at least one value, got ${show(arg)}`);
  if (isPlainObject(arg)) {
    for (const key of Object.keys(arg))
      if (key !== 'values' && key !== 'weights')
        fail(`${path}.${key}`, 'unknown field (values, weights)');
  }
  if (values.some(hasTemplateOperators))
    fail(path, 'the values must be constants (no template operators inside #PICK)');
  const weights = isPlainObject(arg) ? arg.weights : undefined;
  if (weights === undefined)
    return { constant: false, gen: (s) => values[s.rng.nextBelow(values.length)] };
  if (
    !Array.isArray(weights) ||
    weights.length !== values.length ||
    !weights.every((w) => typeof w === 'number' && Number.isFinite(w) && w > 0)
  ) {
    fail(
      `${path}.weights`,
      `expected ${values.length} numbers > 0 (one per value), got ${show(weights)}`,
    );
  }
  const cumulative: number[] = [];
  let total = 0;
  for (const w of weights as number[]) cumulative.push((total += w));
  const last = values.length - 1;
  return {
    constant: false,
    gen: (s) => values[cumulativeIndex(cumulative, s.rng.nextFloat() * total, last)],
  };
}

/** An extension: `{"#RAND_DATE": [min, max]}` (dates, or milliseconds since the epoch) gives a date in [min, max). */
function compileRandDate(arg: unknown, path: string): Compiled {
  const ms = (v: unknown): number | undefined =>
    v instanceof Date ? v.getTime() : typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  const min = Array.isArray(arg) && arg.length === 2 ? ms(arg[0]) : undefined;
  const max = Array.isArray(arg) && arg.length === 2 ? ms(arg[1]) : undefined;
  if (min === undefined || max === undefined || !(max > min))
    fail(
      path,
      `expected [min, max] dates (or epoch milliseconds) with min < max, got ${show(arg)}`,
    );
  const range = Math.floor((max as number) - (min as number));
  return { constant: false, gen: (s) => new Date((min as number) + s.rng.nextBelow(range)) };
}

/** Reads `[min, max]` or `{min, max, ...options}` (integers, min < max) of a key-distribution operator. */
function keyRange(
  arg: unknown,
  path: string,
  options: Record<string, 'number' | 'boolean'>,
): { min: number; max: number; opts: Record<string, unknown> } {
  const names = Object.keys(options);
  const shape = `[min, max] or {min, max${names.map((n) => `, ${n}?`).join('')}}`;
  let min: unknown;
  let max: unknown;
  let opts: Record<string, unknown> = {};
  if (Array.isArray(arg) && arg.length === 2) [min, max] = arg;
  else if (isPlainObject(arg)) {
    for (const key of Object.keys(arg)) {
      if (key !== 'min' && key !== 'max' && !names.includes(key)) {
        const suggestion = closest(key, ['min', 'max', ...names]);
        fail(
          `${path}.${key}`,
          `unknown field${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
        );
      }
    }
    ({ min, max, ...opts } = arg);
    for (const [key, type] of Object.entries(options)) {
      if (opts[key] !== undefined && typeof opts[key] !== type)
        fail(`${path}.${key}`, `expected a ${type}, got ${show(opts[key])}`);
    }
  } else fail(path, `expected ${shape}, got ${show(arg)}`);
  if (
    typeof min !== 'number' ||
    typeof max !== 'number' ||
    !Number.isInteger(min) ||
    !Number.isInteger(max) ||
    !(max > min)
  ) {
    fail(path, `expected integers min < max (keys in [min, max)), got ${show(arg)}`);
  }
  return { min: min as number, max: max as number, opts };
}

function fraction(value: unknown, fallback: number, path: string, open: boolean): number {
  if (value === undefined) return fallback;
  const v = value as number;
  if (!(v > 0 && (open ? v < 1 : v <= 1)))
    fail(path, `expected a fraction in (0, 1${open ? ')' : ']'}, got ${show(value)}`);
  return v;
}

/**
 * An extension: `{"#ZIPF": [min, max]}` or `{min, max, theta: 0.99, scrambled: true}`: a key in
 * [min, max) drawn zipfian (rank r with probability proportional to 1/(r+1)^theta), the popular keys
 * scattered over the range (YCSB's scrambled zipfian) unless scrambled is false (then min is the most popular).
 */
function compileZipf(arg: unknown, path: string): Compiled {
  const { min, max, opts } = keyRange(arg, path, { theta: 'number', scrambled: 'boolean' });
  const items = max - min;
  const theta = fraction(opts.theta, DEFAULT_THETA, `${path}.theta`, true);
  const zipf = new Zipfian(items, theta);
  if (opts.scrambled === false)
    return { constant: false, gen: (s) => min + zipf.rank(s.rng.nextFloat()) };
  return { constant: false, gen: (s) => min + scramble(zipf.rank(s.rng.nextFloat()), items) };
}

/** An extension: `{"#HOTSPOT": {min, max, hotSet: 0.2, hotOps: 0.8}}`: hotOps of the draws go to the first hotSet of [min, max), uniformly. */
function compileHotspot(arg: unknown, path: string): Compiled {
  const { min, max, opts } = keyRange(arg, path, { hotSet: 'number', hotOps: 'number' });
  const hotSet = fraction(opts.hotSet, 0.2, `${path}.hotSet`, false);
  const hotOps = fraction(opts.hotOps, 0.8, `${path}.hotOps`, false);
  const items = max - min;
  return {
    constant: false,
    gen: (s) => min + hotspot(s.rng.nextFloat(), s.rng.nextFloat(), items, hotSet, hotOps),
  };
}

/**
 * An extension: `{"#LATEST": {seq_id, start: 0, step: 1, theta: 0.99}}`: one of the keys this client's
 * #SEQ_INT with that seq_id has produced so far, the newest most often (zipfian over age, YCSB's
 * SkewedLatestGenerator). Give the same start and step as the #SEQ_INT; before its first value, start.
 */
function compileLatest(arg: unknown, path: string, scope: TemplateScope): Compiled {
  if (!isPlainObject(arg)) fail(path, `expected {seq_id, start?, step?, theta?}, got ${show(arg)}`);
  for (const key of Object.keys(arg)) {
    if (!['seq_id', 'start', 'step', 'theta'].includes(key))
      fail(`${path}.${key}`, 'unknown field (seq_id, start, step, theta)');
  }
  const int = (key: string, fallback?: number): number => {
    const v = arg[key] ?? fallback;
    if (typeof v !== 'number' || !Number.isInteger(v))
      fail(`${path}.${key}`, `expected an integer, got ${show(arg[key])}`);
    return v as number;
  };
  const slot = scope.seqSlot(int('seq_id'));
  const start = int('start', 0);
  const step = int('step', 1);
  const theta = fraction(arg.theta, DEFAULT_THETA, `${path}.theta`, true);
  const perClient = new Map<number, Latest>();
  return {
    constant: false,
    gen: (s) => {
      let latest = perClient.get(s.index);
      if (!latest) perClient.set(s.index, (latest = new Latest(theta)));
      const count = s.seq[slot];
      if (count === 0) return start;
      return start + step * (count - 1 - latest.age(count, s.rng.nextFloat()));
    },
  };
}

/**
 * An extension: `{"#PICK_FIELD": {"names": ["field0", ...], "value": V}}` gives an object of one field, its
 * name drawn uniformly from names, its value V (a template): YCSB's update of one random field
 * (CoreWorkload.buildSingleValue, fieldchooser = UniformLongGenerator(0, fieldcount - 1)).
 */
function compilePickField(arg: unknown, path: string, scope: TemplateScope): Compiled {
  if (!isPlainObject(arg)) fail(path, `expected {names: [...], value}, got ${show(arg)}`);
  for (const key of Object.keys(arg))
    if (key !== 'names' && key !== 'value') fail(`${path}.${key}`, 'unknown field (names, value)');
  const names = arg.names;
  if (
    !Array.isArray(names) ||
    names.length === 0 ||
    !names.every((n) => typeof n === 'string' && n !== '' && !n.startsWith('$'))
  ) {
    fail(`${path}.names`, `expected a non-empty array of field names, got ${show(names)}`);
  }
  if (!('value' in arg))
    fail(`${path}.value`, 'required: the value the field gets (template operators allowed)');
  const value = compile(arg.value, `${path}.value`, scope);
  const gen = value.constant ? constantGen(value.value) : value.gen;
  const list = names as string[];
  return { constant: false, gen: (s) => ({ [list[s.rng.nextBelow(list.length)]]: gen(s) }) };
}

/**
 * An extension: `{"#YCSB_KEY": N}` (N an integer or a template giving one) gives YCSB's key for key number
 * N: "user" and its FNV-64 hash (CoreWorkload.buildKeyName, insertorder=hashed, zeropadding=1).
 */
function compileYcsbKey(arg: unknown, path: string, scope: TemplateScope): Compiled {
  const keynum = compile(arg, path, scope);
  const isKeynum = (v: unknown): v is number =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (keynum.constant) {
    if (!isKeynum(keynum.value))
      fail(
        path,
        `expected a key number (an integer >= 0, or a template giving one), got ${show(arg)}`,
      );
    return { constant: true, value: ycsbKeyName(keynum.value) };
  }
  const gen = keynum.gen;
  return {
    constant: false,
    gen: (s) => {
      const n = gen(s);
      if (!isKeynum(n))
        throw new Error(`${path}: expected a key number (an integer >= 0), got ${show(n)}`);
      return ycsbKeyName(n);
    },
  };
}

export const YCSB_DISTRIBUTIONS = ['zipfian', 'uniform', 'latest', 'insert'] as const;

/** What one client's YCSB key choosers share: the keys its inserts made (for `latest`). */
interface YcsbClientKeys {
  inserted: number[];
  latest: Latest;
}

/**
 * An extension: `{"#YCSB_KEYNUM": {"distribution": D, "records": N}}`, a key number as YCSB's CoreWorkload
 * chooses it over N loaded records numbered 0..N-1 (CoreWorkload.init, requestdistribution; nextKeynum):
 * - zipfian: ScrambledZipfianGenerator(0, N - 1) (./ycsb-keys);
 * - uniform: UniformLongGenerator(0, N - 1);
 * - insert: a new key number for an insert (doTransactionInsert), remembered by this client for `latest`.
 *   YCSB counts on from N with one counter shared by its threads; here a random number above N, never the
 *   same twice, so no insert collides with a key an earlier step or trial inserted;
 * - latest: SkewedLatestGenerator, the newest key the most popular, over the N records followed by the keys
 *   this client inserted in this step (YCSB: those all threads inserted).
 */
function compileYcsbKeynum(arg: unknown, path: string, scope: TemplateScope): Compiled {
  if (!isPlainObject(arg)) fail(path, `expected {distribution, records}, got ${show(arg)}`);
  for (const key of Object.keys(arg)) {
    if (key !== 'distribution' && key !== 'records') {
      const suggestion = closest(key, ['distribution', 'records']);
      fail(
        `${path}.${key}`,
        `unknown field${suggestion ? ` (did you mean "${suggestion}"?)` : ' (distribution, records)'}`,
      );
    }
  }
  const distribution = arg.distribution;
  if (
    typeof distribution !== 'string' ||
    !(YCSB_DISTRIBUTIONS as readonly string[]).includes(distribution)
  ) {
    fail(
      `${path}.distribution`,
      `expected one of ${YCSB_DISTRIBUTIONS.join(', ')}, got ${show(distribution)}`,
    );
  }
  const records = arg.records;
  if (typeof records !== 'number' || !Number.isSafeInteger(records) || records < 1)
    fail(`${path}.records`, `expected an integer >= 1, got ${show(records)}`);
  const n = records as number;
  switch (distribution as (typeof YCSB_DISTRIBUTIONS)[number]) {
    case 'zipfian':
      return { constant: false, gen: (s) => scrambledZipfianKeynum(s.rng.nextFloat(), n) };
    case 'uniform':
      return { constant: false, gen: (s) => s.rng.nextBelow(n) };
    case 'insert':
    case 'latest': {
      // One slot per workload, shared by its inserts and its latest reads (a name no `let` can define).
      const slot = scope.defineVar('#YCSB_KEYNUM');
      const keysOf = (s: ClientState): YcsbClientKeys =>
        (s.vars[slot] ??= { inserted: [], latest: new Latest() }) as YcsbClientKeys;
      if (distribution === 'insert') {
        const span = 2 ** 52;
        return {
          constant: false,
          gen: (s) => {
            const keynum = n + Math.floor(Math.random() * span);
            keysOf(s).inserted.push(keynum);
            return keynum;
          },
        };
      }
      return {
        constant: false,
        gen: (s) => {
          const keys = keysOf(s);
          const index = latestKeynum(s.rng.nextFloat(), n + keys.inserted.length, keys.latest);
          return index < n ? index : keys.inserted[index - n];
        },
      };
    }
  }
}
