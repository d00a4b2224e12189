/**
 * The op spec: legacy benchRun's op documents, validated into plain typed records. A workload
 * written for the old shell's benchRun() parses here unchanged; an unknown or misplaced field is a
 * UsageError naming the op index and the field (e.g. `ops[2].updat: unknown field (did you mean "update"?)`).
 */
import { UsageError } from '../../config/errors';
import { closest } from '../../config/validate';
import { numericValue } from './typed-ejson';
import { isObject, show } from '../../common/values';

/** The op names benchRun accepts (`query` = `find`, `delete` = `remove`). */
export const OP_NAMES = ['findOne', 'find', 'query', 'update', 'insert', 'remove', 'delete', 'command', 'nop', 'let'] as const;
export type OpName = (typeof OP_NAMES)[number];

/** Canonical op type, used for per-op statistics. */
export type OpType = 'findOne' | 'find' | 'update' | 'insert' | 'remove' | 'command' | 'nop' | 'let';

/** Reads and writes are reported separately; `nop` and `let` never reach the server and are not counted. */
export type OpClass = 'read' | 'write' | 'none';

export const READ_PREFERENCE_MODES = ['primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest'] as const;
export type ReadPreferenceSpec = { mode: (typeof READ_PREFERENCE_MODES)[number]; tags?: Record<string, string>[]; maxStalenessSeconds?: number };

export interface Namespace {
  db: string;
  coll: string;
}

export interface OpSpec {
  /** Position in the ops array (for messages). */
  index: number;
  type: OpType;
  ns?: Namespace;
  query?: unknown;
  update?: unknown;
  doc?: unknown;
  projection?: unknown;
  sort?: unknown;
  limit?: number;
  skip?: number;
  batchSize?: number;
  multi: boolean;
  upsert: boolean;
  writeConcern?: Record<string, unknown>;
  readPreference?: ReadPreferenceSpec;
  command?: unknown;
  target?: string;
  value?: unknown;
  /** benchRun's `delay`: milliseconds to pause after the op. */
  delayMs: number;
  /** benchRun's `throwGLE`: a write error counts as a failed op in the benchRun figures (./benchrun-outcome). */
  throwGLE?: boolean;
  /**
   * mongo-bench's extension: the op's share of a weighted workload (ops drawn at random by weight,
   * ./weighted-pick). Either every op of a workload has one or none has.
   */
  weight?: number;
}

const ALL: readonly OpType[] = ['findOne', 'find', 'update', 'insert', 'remove', 'command', 'nop', 'let'];

/** Every field benchRun ops may carry, and the op types it applies to. */
const FIELDS: Record<string, readonly OpType[]> = {
  op: ALL,
  // benchRun requires `ns` on every op, nop and let included (src/mongo/shell/bench.cpp, opFromBson:
  // uassert 34395 "zero length ns"), and mongo-perf's prepOp adds it to every op (util/utils.js).
  ns: ALL,
  query: ['findOne', 'find', 'update', 'remove'],
  update: ['update'],
  doc: ['insert'],
  filter: ['findOne', 'find'],
  sort: ['findOne', 'find'],
  limit: ['find'],
  skip: ['find'],
  batchSize: ['find'],
  multi: ['update', 'remove'],
  upsert: ['update'],
  // mongo-perf passes a write concern to every op; it only applies to writes.
  writeConcern: ALL,
  readPreference: ['findOne', 'find', 'command'],
  readPrefMode: ['findOne', 'find', 'command'],
  command: ['command'],
  target: ['let'],
  value: ['let'],
  delay: ALL,
  // Accepted for compatibility with old workloads; they change nothing here.
  readCmd: ALL,
  writeCmd: ALL,
  safe: ALL,
  showError: ALL,
  showResult: ALL,
  handleError: ALL,
  throwGLE: ALL,
  options: ALL,
  // Written by mongo-bench capture on an op whose filter the source did not hold (docs/capture.md); changes nothing.
  synthetic: ALL,
  // mongo-bench's extension (not benchRun's): ops drawn by weight. Not on `let`: a variable set by
  // one op for the next needs the ops in order.
  weight: ['findOne', 'find', 'update', 'insert', 'remove', 'command', 'nop'],
};
export const OP_FIELDS = Object.keys(FIELDS);

const WRITE_COMMANDS = new Set(['insert', 'update', 'delete', 'findandmodify', 'findAndModify', 'bulkWrite', 'create', 'drop', 'createIndexes', 'dropIndexes']);

export function opClass(spec: Pick<OpSpec, 'type' | 'command'>): OpClass {
  switch (spec.type) {
    case 'findOne':
    case 'find':
      return 'read';
    case 'update':
    case 'insert':
    case 'remove':
      return 'write';
    case 'command': {
      // A command is a write when its first key names a write command; otherwise a read.
      const name = spec.command && typeof spec.command === 'object' ? Object.keys(spec.command)[0] : undefined;
      return name !== undefined && WRITE_COMMANDS.has(name) ? 'write' : 'read';
    }
    default:
      return 'none';
  }
}

export function parseNamespace(ns: string, allowDbOnly: boolean): Namespace | undefined {
  const dot = ns.indexOf('.');
  if (dot < 0) return allowDbOnly && ns.length > 0 ? { db: ns, coll: '' } : undefined;
  const db = ns.slice(0, dot);
  const coll = ns.slice(dot + 1);
  if (!db || (!coll && !allowDbOnly)) return undefined;
  return { db, coll };
}

export interface ParseOpsOptions {
  /** Used by ops that have no `ns` (benchRun required one; here the workload's default applies). */
  defaultNs: string;
  /** Prefix for messages, e.g. `workload file ops.json: `. */
  where?: string;
}

/** Validates a benchRun ops array; throws a UsageError naming `ops[i].field` on the first problem. */
export function parseOps(raw: unknown, options: ParseOpsOptions): OpSpec[] {
  const where = options.where ?? '';
  const bad = (path: string, message: string): never => {
    throw new UsageError(`${where}${path}: ${message}`);
  };
  if (!Array.isArray(raw)) bad('ops', `expected an array of benchRun ops, got ${show(raw)}`);
  const list = raw as unknown[];
  if (list.length === 0) bad('ops', 'expected at least one op');
  // A workload of only nop/let ops is valid: benchRun counts them in totalOps (mongo-perf's Commands.nop).
  const specs = list.map((item, index) => parseOp(item, index, options.defaultNs, bad));
  const weighted = specs.find((s) => s.weight !== undefined);
  if (weighted) {
    const unweighted = specs.find((s) => s.weight === undefined);
    if (unweighted) {
      bad(`ops[${unweighted.index}].weight`, `required: ops[${weighted.index}] has a weight, so the ops are drawn by weight and every op needs one`);
    }
  }
  return specs;
}

function parseOp(raw: unknown, index: number, defaultNs: string, bad: (path: string, message: string) => never): OpSpec {
  const at = `ops[${index}]`;
  if (!isObject(raw)) return bad(at, `expected an op object like {"op": "findOne", "query": {...}}, got ${show(raw)}`);
  const opName = raw.op;
  if (opName === undefined) bad(`${at}.op`, `required (one of ${OP_NAMES.join(', ')})`);
  if (typeof opName !== 'string' || !(OP_NAMES as readonly string[]).includes(opName)) {
    const suggestion = typeof opName === 'string' ? closest(opName, OP_NAMES) : undefined;
    bad(`${at}.op`, `unknown op ${show(opName)}${suggestion ? ` (did you mean "${suggestion}"?)` : ` (one of ${OP_NAMES.join(', ')})`}`);
  }
  const type: OpType = opName === 'query' ? 'find' : opName === 'delete' ? 'remove' : (opName as OpType);

  for (const key of Object.keys(raw)) {
    const appliesTo = FIELDS[key];
    if (!appliesTo) {
      const suggestion = closest(key, OP_FIELDS);
      bad(`${at}.${key}`, `unknown field${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
    }
    if (!appliesTo.includes(type)) bad(`${at}.${key}`, `not valid for op "${opName}" (only for ${appliesTo.map((t) => `"${t}"`).join(', ')})`);
  }

  const object = (key: string, required = false): Record<string, unknown> | undefined => {
    const v = raw[key];
    if (v === undefined) return required ? bad(`${at}.${key}`, `required for op "${opName}"`) : undefined;
    if (!isObject(v)) bad(`${at}.${key}`, `expected an object, got ${show(v)}`);
    return v as Record<string, unknown>;
  };
  const count = (key: string): number | undefined => {
    if (raw[key] === undefined) return undefined;
    const v = numericValue(raw[key]);
    if (v === undefined || !Number.isInteger(v) || v < 0) bad(`${at}.${key}`, `expected a non-negative integer, got ${show(raw[key])}`);
    return v as number;
  };
  const flag = (key: string): boolean => {
    const v = raw[key];
    if (v === undefined) return false;
    if (typeof v !== 'boolean' && v !== 0 && v !== 1) bad(`${at}.${key}`, `expected true or false, got ${show(v)}`);
    return Boolean(v);
  };

  const spec: OpSpec = { index, type, multi: flag('multi'), upsert: flag('upsert'), delayMs: 0 };
  if (flag('throwGLE')) spec.throwGLE = true;

  if (type === 'nop' || type === 'let') {
    // Accepted (benchRun requires it) and unused: these ops never reach the server.
    if (raw.ns !== undefined && typeof raw.ns !== 'string') bad(`${at}.ns`, `expected "database.collection", got ${show(raw.ns)}`);
  } else {
    const ns = raw.ns ?? defaultNs;
    if (typeof ns !== 'string') bad(`${at}.ns`, `expected "database.collection", got ${show(ns)}`);
    const parsed = parseNamespace(ns as string, type === 'command');
    if (!parsed) bad(`${at}.ns`, `expected "database.collection", got ${show(ns)}`);
    spec.ns = parsed;
  }

  if (type === 'findOne' || type === 'find' || type === 'update' || type === 'remove') spec.query = object('query') ?? {};
  if (type === 'findOne' || type === 'find') {
    spec.projection = object('filter');
    spec.sort = object('sort');
  }
  if (type === 'find') {
    spec.limit = count('limit');
    spec.skip = count('skip');
    spec.batchSize = count('batchSize');
  }
  if (type === 'update') {
    const update = raw.update;
    if (update === undefined) bad(`${at}.update`, 'required for op "update"');
    if (Array.isArray(update)) {
      if (!update.every(isObject)) bad(`${at}.update`, 'expected an update document or an aggregation pipeline (array of stages)');
    } else if (!isObject(update)) {
      bad(`${at}.update`, `expected an update document, got ${show(update)}`);
    } else {
      const keys = Object.keys(update);
      const operators = keys.filter((k) => k.startsWith('$'));
      if (operators.length > 0 && operators.length !== keys.length) {
        bad(`${at}.update`, 'mixes update operators ($set, $inc, ...) with plain fields');
      }
      if (operators.length === 0 && spec.multi) bad(`${at}.update`, 'a replacement document cannot be used with multi: true');
    }
    spec.update = update;
  }
  if (type === 'insert') {
    const doc = raw.doc;
    if (doc === undefined) bad(`${at}.doc`, 'required for op "insert"');
    if (Array.isArray(doc)) {
      if (doc.length === 0 || !doc.every(isObject)) bad(`${at}.doc`, 'expected a document or a non-empty array of documents (a batch insert)');
    } else if (!isObject(doc)) {
      bad(`${at}.doc`, `expected a document or an array of documents, got ${show(doc)}`);
    }
    spec.doc = doc;
  }
  if (type === 'command') {
    const command = object('command', true) as Record<string, unknown>;
    if (Object.keys(command).length === 0) bad(`${at}.command`, 'expected a command document like {"ping": 1}');
    spec.command = command;
  }
  if (type === 'let') {
    const target = raw.target;
    if (typeof target !== 'string' || target === '') bad(`${at}.target`, `required for op "let": the variable name (a string)`);
    if (!('value' in raw)) bad(`${at}.value`, 'required for op "let"');
    spec.target = target as string;
    spec.value = raw.value;
  }

  const writeConcern = object('writeConcern');
  if (writeConcern) {
    for (const key of Object.keys(writeConcern)) {
      if (!['w', 'j', 'wtimeout', 'wtimeoutMS', 'fsync'].includes(key)) bad(`${at}.writeConcern.${key}`, 'unknown write concern field (w, j, wtimeout)');
    }
    spec.writeConcern = writeConcern;
  }
  spec.readPreference = parseReadPreference(raw, at, bad);

  if (raw.weight !== undefined) {
    const w = numericValue(raw.weight);
    if (w === undefined || !Number.isFinite(w) || !(w > 0)) bad(`${at}.weight`, `expected a number > 0 (the op's share of a weighted workload), got ${show(raw.weight)}`);
    spec.weight = w;
  }

  if (raw.delay !== undefined) {
    if (typeof raw.delay !== 'number' || !(raw.delay >= 0)) bad(`${at}.delay`, `expected milliseconds >= 0, got ${show(raw.delay)}`);
    spec.delayMs = raw.delay as number;
  }
  return spec;
}

function parseReadPreference(raw: Record<string, unknown>, at: string, bad: (path: string, message: string) => never): ReadPreferenceSpec | undefined {
  const key = raw.readPreference !== undefined ? 'readPreference' : raw.readPrefMode !== undefined ? 'readPrefMode' : undefined;
  if (!key) return undefined;
  const value = raw[key];
  const checkMode = (mode: unknown, path: string): ReadPreferenceSpec['mode'] => {
    if (typeof mode !== 'string' || !(READ_PREFERENCE_MODES as readonly string[]).includes(mode)) {
      const suggestion = typeof mode === 'string' ? closest(mode, READ_PREFERENCE_MODES) : undefined;
      bad(path, `unknown read preference ${show(mode)}${suggestion ? ` (did you mean "${suggestion}"?)` : ` (one of ${READ_PREFERENCE_MODES.join(', ')})`}`);
    }
    return mode as ReadPreferenceSpec['mode'];
  };
  if (typeof value === 'string') return { mode: checkMode(value, `${at}.${key}`) };
  if (key === 'readPreference' && isObject(value)) {
    for (const k of Object.keys(value)) {
      if (!['mode', 'tags', 'maxStalenessSeconds'].includes(k)) bad(`${at}.readPreference.${k}`, 'unknown field (mode, tags, maxStalenessSeconds)');
    }
    const spec: ReadPreferenceSpec = { mode: checkMode(value.mode, `${at}.readPreference.mode`) };
    if (value.tags !== undefined) {
      if (!Array.isArray(value.tags) || !value.tags.every(isObject)) bad(`${at}.readPreference.tags`, 'expected an array of tag sets');
      spec.tags = value.tags as Record<string, string>[];
    }
    if (value.maxStalenessSeconds !== undefined) {
      if (typeof value.maxStalenessSeconds !== 'number') bad(`${at}.readPreference.maxStalenessSeconds`, 'expected a number');
      spec.maxStalenessSeconds = value.maxStalenessSeconds as number;
    }
    return spec;
  }
  return bad(`${at}.${key}`, `expected a mode such as "secondaryPreferred"${key === 'readPreference' ? ' or {mode, tags}' : ''}, got ${show(value)}`);
}
