/**
 * Loads a mongo-perf test file (mongodb/mongo-perf, testcases/*.js) in a node:vm sandbox with the
 * legacy shell globals the suite uses, and turns each test into a mongo-bench workload exactly as
 * mongo-perf's harness hands it to benchRun (util/utils.js):
 *
 * - the collection is `test0.<name with dots as _>0` (runTest with multidb = multicoll = 1,
 *   initCollections);
 * - each op is copied, `#B_COLL` / `#B_NS` / `#B_DB` strings are expanded and `ns` is added to every
 *   op (prepOp), then `writeConcern: {}`, `writeCmd: true`, `readCmd: false` (runTest with
 *   getDefaultCrudOptions);
 * - the set-up is initCollections': drop the collection, then generateData() or pre(), then pre()
 *   when both exist, then createCollection. pre() is recorded through ./shell-recorder; a pre() that
 *   reads `env.threads` is recorded once per client count.
 *
 * Before the test file, the sandbox loads what benchrun.py loads before every run: the checkout's
 * util/utils.js and util/docGenerators.js (found beside the testcases folder), which define helpers
 * the test files call (addQueryTestCase, getNFieldNames, generateRandomString, ...).
 *
 * The sandbox is no security boundary: it runs the user's own mongo-perf checkout.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { BSON, Decimal128, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'mongodb';
import { UsageError } from '../../../config/errors';
import { Prng } from '../prng';
import { SetupStep, WorkloadSetup } from '../setup-spec';
import { reviveTyped, toTypedJson } from '../typed-ejson';
import { SetupRecording, ShellDb, unsupported } from './shell-recorder';
import { messageOf } from '../../../common/values';

/** A test as the file pushes it onto `tests`. */
export interface MongoPerfTest {
  name: string;
  tags: string[];
  ops: unknown[];
  pre?: (collection: unknown, env: unknown) => void;
  generateData?: (collection: unknown, env: unknown) => void;
}

export interface MongoPerfFile {
  path: string;
  tests: MongoPerfTest[];
  /** Run before each pre(): sets the sandbox's `db` to the recording's. */
  useDb(db: ShellDb): void;
}

/** The database mongo-perf's harness uses for the first (only) collection. */
export const MONGO_PERF_DB = 'test0';

// Shell helpers written in the sandbox's own JavaScript (src/mongo/shell/types.js, Object.extend/merge).
const PRELUDE = `
Object.extend = function (dst, src, deep) {
  for (var k in src) {
    var v = src[k];
    if (deep && typeof v === 'object' && v !== null && (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype)) {
      v = Object.extend(Array.isArray(v) ? [] : {}, v, true);
    }
    dst[k] = v;
  }
  return dst;
};
Object.merge = function (dst, src, deep) {
  var tmp = {};
  Object.extend(tmp, dst, deep);
  Object.extend(tmp, src, deep);
  return tmp;
};
`;

/** The shell's Random (src/mongo/shell/random.js): seeded, so recorded set-ups repeat. */
function shellRandom() {
  let prng = new Prng(0);
  const seed = (s?: unknown) => {
    prng = new Prng(typeof s === 'number' ? s : Date.now());
  };
  return {
    setRandomSeed: seed,
    srand: seed,
    rand: () => prng.nextFloat(),
    randInt: (n: number) => Math.floor(prng.nextFloat() * n),
    genExp: (mean: number) => -Math.log(1 - prng.nextFloat()) * mean,
    genNormal: (mean: number, sd: number) =>
      mean +
      sd *
        Math.sqrt(-2 * Math.log(1 - prng.nextFloat())) *
        Math.cos(2 * Math.PI * prng.nextFloat()),
    isInitialized: () => true,
  };
}

function shellAssert() {
  const assert = (cond: unknown, msg?: unknown) => {
    if (!cond) throw new Error(`assert failed${msg ? `: ${String(msg)}` : ''}`);
  };
  const pass = (x: unknown) => x;
  return Object.assign(assert, {
    commandWorked: pass,
    writeOK: pass,
    eq: (a: unknown, b: unknown, msg?: unknown) => assert(a == b, msg), // the shell's assert.eq compares with ==
    neq: (a: unknown, b: unknown, msg?: unknown) => assert(a != b, msg),
    lt: (a: number, b: number, msg?: unknown) => assert(a < b, msg),
    lte: (a: number, b: number, msg?: unknown) => assert(a <= b, msg),
    gt: (a: number, b: number, msg?: unknown) => assert(a > b, msg),
    gte: (a: number, b: number, msg?: unknown) => assert(a >= b, msg),
    soon: pass,
  });
}

/** The legacy shell's globals that mongo-perf's test files use. */
function shellGlobals(): Record<string, unknown> {
  return {
    tests: [],
    Random: shellRandom(),
    NumberLong: (v: unknown) =>
      typeof v === 'string' ? Long.fromString(v) : Long.fromNumber(Number(v ?? 0)),
    NumberInt: (v: unknown) => new Int32(Number(v ?? 0)),
    NumberDecimal: (v: unknown) => Decimal128.fromString(String(v ?? '0')),
    ObjectId: (hex?: string) => new ObjectId(hex),
    ISODate: (s?: string) => (s === undefined ? new Date() : new Date(s)),
    Timestamp: (t: number, i: number) => new Timestamp({ t, i }),
    MinKey: () => new MinKey(),
    MaxKey: () => new MaxKey(),
    print: () => undefined,
    printjson: () => undefined,
    tojson: (x: unknown) => JSON.stringify(x),
    sleep: () => undefined,
    assert: shellAssert(),
    bsonsize: (x: object) => BSON.calculateObjectSize(x),
    load: unsupported('load()'),
    benchRun: unsupported('benchRun()'),
    sh: new Proxy({}, { get: (_t, name) => unsupported(`sh.${String(name)}()`) }),
  };
}

/** benchrun.py's helpers (`for testfile in ['util/utils.js', 'util/docGenerators.js'] + args.testfiles`), where the checkout has them. */
export function harnessHelpers(testFile: string): string[] {
  const util = join(dirname(dirname(testFile)), 'util');
  return ['utils.js', 'docGenerators.js'].map((f) => join(util, f)).filter((f) => existsSync(f));
}

/** Evaluates one mongo-perf test file and returns its tests (functions still bound to the sandbox). */
export function loadMongoPerfFile(
  path: string,
  helpers: string[] = harnessHelpers(path),
): MongoPerfFile {
  let source: string;
  try {
    source = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`option --mongo-perf: cannot read ${path}: ${messageOf(err)}`);
  }
  const context = createContext(shellGlobals());
  const loadingDb = new ShellDb(new SetupRecording(), MONGO_PERF_DB);
  context.db = loadingDb;
  runInContext(`Object.bsonsize = bsonsize;${PRELUDE}`, context);
  for (const helper of [...helpers, path]) {
    try {
      const text = helper === path ? source : readFileSync(helper, 'utf8');
      runInContext(text, context, { filename: helper, timeout: 30_000 });
    } catch (err) {
      throw new UsageError(`mongo-perf file ${helper}: ${messageOf(err)}`);
    }
  }
  const raw = context.tests as unknown;
  if (!Array.isArray(raw))
    throw new UsageError(`mongo-perf file ${path}: it did not fill the "tests" array`);
  const tests = raw.map((t: Record<string, unknown>, i): MongoPerfTest => {
    if (typeof t?.name !== 'string' || !Array.isArray(t.ops))
      throw new UsageError(`mongo-perf file ${path}: tests[${i}] has no name or no ops`);
    return {
      name: t.name,
      tags: Array.isArray(t.tags) ? t.tags.map(String) : [],
      ops: t.ops,
      ...(typeof t.pre === 'function' ? { pre: t.pre as MongoPerfTest['pre'] } : {}),
      ...(typeof t.generateData === 'function'
        ? { generateData: t.generateData as MongoPerfTest['generateData'] }
        : {}),
    };
  });
  return { path, tests, useDb: (db) => (context.db = db) };
}

/** The collection mongo-perf's harness gives a test (initCollections: dots become underscores, then "0"). */
export function collectionName(testName: string): string {
  return `${testName.replace(/\./g, '_')}0`;
}

/** prepOp: `#B_COLL`, `#B_NS`, `#B_DB` at the start of any string value expand; every op gets an `ns`. */
function prepOp(op: Record<string, unknown>, db: string, coll: string): Record<string, unknown> {
  const expand = (s: string): string => {
    if (s.startsWith('#B_COLL')) return s.replace('#B_COLL', coll);
    if (s.startsWith('#B_NS')) return s.replace('#B_NS', `${db}.${coll}`);
    if (s.startsWith('#B_DB')) return s.replace('#B_DB', db);
    throw new UsageError(`unknown expansion ${s}`);
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string' && value.startsWith('#B_')) return expand(value);
    if (Array.isArray(value)) return value.map(walk);
    if (
      value !== null &&
      typeof value === 'object' &&
      !('_bsontype' in value) &&
      !(value instanceof Date)
    ) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v);
      return out;
    }
    return value;
  };
  const out = walk(op) as Record<string, unknown>;
  if (!out.ns) out.ns = out.command ? db : `${db}.${coll}`;
  // runTest with getDefaultCrudOptions(): an empty write concern, write commands, legacy reads.
  return { ...out, writeConcern: {}, writeCmd: true, readCmd: false };
}

/** A test's ops as benchRun receives them, as host-realm data (typed values kept). */
export function mongoPerfOps(test: MongoPerfTest): unknown[] {
  const coll = collectionName(test.name);
  const copied = reviveTyped(JSON.parse(JSON.stringify(toTypedJson(test.ops)))) as Record<
    string,
    unknown
  >[];
  return copied.map((op) => prepOp(op, MONGO_PERF_DB, coll));
}

/**
 * The test's set-up for each client count (initCollections): records pre() (and generateData()) into
 * set-up steps. Throws UnsupportedShellCall when pre() needs an answer from the server.
 */
export function mongoPerfSetup(
  file: MongoPerfFile,
  test: MongoPerfTest,
  clientCounts: number[],
): WorkloadSetup {
  const coll = collectionName(test.name);
  let readsThreads = false;
  const record = (threads: number): SetupStep[] => {
    const rec = new SetupRecording();
    const db = new ShellDb(rec, MONGO_PERF_DB);
    file.useDb(db);
    const collection = db.getCollection(coll);
    const env = {
      get threads() {
        readsThreads = true;
        return threads;
      },
    };
    rec.command(MONGO_PERF_DB, { drop: coll });
    if (test.generateData) test.generateData(collection, env);
    if (test.pre) test.pre(collection, env);
    rec.command(MONGO_PERF_DB, { create: coll });
    // Documents made in the sandbox: copied into this realm with their BSON types.
    return reviveTyped(JSON.parse(JSON.stringify(toTypedJson(rec.steps)))) as SetupStep[];
  };
  const steps = record(clientCounts[0]);
  if (!readsThreads) return { steps };
  return { steps, byClients: Object.fromEntries(clientCounts.map((c) => [String(c), record(c)])) };
}
