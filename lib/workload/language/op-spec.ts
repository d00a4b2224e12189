/**
 * The op spec: legacy benchRun's op documents, validated into plain typed records. A workload
 * written for the old shell's benchRun() parses here unchanged; an unknown or misplaced field is a
 * UsageError naming the op index and the field (e.g. `ops[2].updat: unknown field (did you mean "update"?)`).
 */
import { UsageError } from '../../config/errors';
import { closest } from '../../config/validate';
import { numericValue } from './typed-ejson';
import { isObject, show } from '../../common/values';
import { OP_KIND_LIST, OP_KINDS, opKindNamed, OpType } from './ops';
import {
  OpSpec as AnyOpSpec,
  OpClass,
  Namespace,
  READ_PREFERENCE_MODES,
  ReadPreferenceSpec,
} from './ops/op-kind';

/** The op names benchRun accepts (`query` = `find`, `delete` = `remove`): every registered kind's name and aliases. */
export const OP_NAMES: readonly string[] = OP_KIND_LIST.flatMap((kind) => [
  kind.type,
  ...(kind.aliases ?? []),
]);

export type { OpType };
export type { OpClass, Namespace, ReadPreferenceSpec };
export { READ_PREFERENCE_MODES };

/** A validated op of a registered type. */
export type OpSpec = AnyOpSpec<OpType>;

/**
 * The fields every op takes, whatever its kind (each kind lists its own: ./ops/*.ts `fields`).
 * benchRun requires `ns` on every op, nop and let included (src/mongo/shell/bench.cpp, opFromBson:
 * uassert 34395 "zero length ns"), and mongo-perf's prepOp adds it to every op (util/utils.js);
 * mongo-perf passes a write concern to every op, which only applies to writes. readCmd to options
 * are accepted for compatibility with old workloads and change nothing here; `synthetic` is written
 * by mongo-bench capture on an op whose filter the source did not hold (docs/capture.md) and changes
 * nothing.
 */
const COMMON_FIELDS = [
  'op',
  'ns',
  'writeConcern',
  'delay',
  'readCmd',
  'writeCmd',
  'safe',
  'showError',
  'showResult',
  'handleError',
  'throwGLE',
  'options',
  'synthetic',
];

/** The order fields are offered in when a field name is misspelt (the nearest first, ties in this order); fields of new kinds follow. */
const FIELD_ORDER = [
  'op',
  'ns',
  'query',
  'update',
  'doc',
  'filter',
  'sort',
  'limit',
  'skip',
  'batchSize',
  'multi',
  'upsert',
  'writeConcern',
  'readPreference',
  'readPrefMode',
  'command',
  'target',
  'value',
  'delay',
  'readCmd',
  'writeCmd',
  'safe',
  'showError',
  'showResult',
  'handleError',
  'throwGLE',
  'options',
  'synthetic',
  'weight',
];

/** Every field benchRun ops may carry, and the op types it applies to (in registry order). */
const FIELDS: Record<string, readonly OpType[]> = fieldTable();

function fieldTable(): Record<string, OpType[]> {
  const byField = new Map<string, OpType[]>();
  for (const kind of OP_KIND_LIST) {
    for (const field of [...COMMON_FIELDS, ...kind.fields]) {
      const types = byField.get(field) ?? [];
      if (!types.includes(kind.type)) types.push(kind.type);
      byField.set(field, types);
    }
  }
  const ordered = [
    ...FIELD_ORDER.filter((f) => byField.has(f)),
    ...[...byField.keys()].filter((f) => !FIELD_ORDER.includes(f)),
  ];
  return Object.fromEntries(ordered.map((f) => [f, byField.get(f)!]));
}
export const OP_FIELDS = Object.keys(FIELDS);

export function opClass(spec: Pick<OpSpec, 'type' | 'command'>): OpClass {
  const c = OP_KINDS[spec.type].opClass;
  return typeof c === 'function' ? c(spec) : c;
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
      bad(
        `ops[${unweighted.index}].weight`,
        `required: ops[${weighted.index}] has a weight, so the ops are drawn by weight and every op needs one`,
      );
    }
  }
  return specs;
}

function parseOp(
  raw: unknown,
  index: number,
  defaultNs: string,
  bad: (path: string, message: string) => never,
): OpSpec {
  const at = `ops[${index}]`;
  if (!isObject(raw))
    return bad(
      at,
      `expected an op object like {"op": "findOne", "query": {...}}, got ${show(raw)}`,
    );
  const opName = raw.op;
  if (opName === undefined) bad(`${at}.op`, `required (one of ${OP_NAMES.join(', ')})`);
  const kind = opKindNamed(opName);
  if (!kind) {
    const suggestion = typeof opName === 'string' ? closest(opName, OP_NAMES) : undefined;
    return bad(
      `${at}.op`,
      `unknown op ${show(opName)}${suggestion ? ` (did you mean "${suggestion}"?)` : ` (one of ${OP_NAMES.join(', ')})`}`,
    );
  }
  const type = kind.type;

  for (const key of Object.keys(raw)) {
    const appliesTo = FIELDS[key];
    if (!appliesTo) {
      const suggestion = closest(key, OP_FIELDS);
      bad(`${at}.${key}`, `unknown field${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
    }
    if (!appliesTo.includes(type))
      bad(
        `${at}.${key}`,
        `not valid for op "${opName}" (only for ${appliesTo.map((t) => `"${t}"`).join(', ')})`,
      );
  }

  const object = (key: string, required = false): Record<string, unknown> | undefined => {
    const v = raw[key];
    if (v === undefined)
      return required ? bad(`${at}.${key}`, `required for op "${opName}"`) : undefined;
    if (!isObject(v)) bad(`${at}.${key}`, `expected an object, got ${show(v)}`);
    return v as Record<string, unknown>;
  };
  const count = (key: string): number | undefined => {
    if (raw[key] === undefined) return undefined;
    const v = numericValue(raw[key]);
    if (v === undefined || !Number.isInteger(v) || v < 0)
      bad(`${at}.${key}`, `expected a non-negative integer, got ${show(raw[key])}`);
    return v as number;
  };
  const flag = (key: string): boolean => {
    const v = raw[key];
    if (v === undefined) return false;
    if (typeof v !== 'boolean' && v !== 0 && v !== 1)
      bad(`${at}.${key}`, `expected true or false, got ${show(v)}`);
    return Boolean(v);
  };

  const spec: OpSpec = { index, type, multi: flag('multi'), upsert: flag('upsert'), delayMs: 0 };
  if (flag('throwGLE')) spec.throwGLE = true;

  if (kind.local) {
    // Accepted (benchRun requires it) and unused: these ops never reach the server.
    if (raw.ns !== undefined && typeof raw.ns !== 'string')
      bad(`${at}.ns`, `expected "database.collection", got ${show(raw.ns)}`);
  } else {
    const ns = raw.ns ?? defaultNs;
    if (typeof ns !== 'string') bad(`${at}.ns`, `expected "database.collection", got ${show(ns)}`);
    const parsed = parseNamespace(ns as string, kind.databaseNamespace === true);
    if (!parsed) bad(`${at}.ns`, `expected "database.collection", got ${show(ns)}`);
    spec.ns = parsed;
  }

  kind.parse({ at, opName: opName as string, raw, bad, object, count, flag }, spec);

  const writeConcern = object('writeConcern');
  if (writeConcern) {
    for (const key of Object.keys(writeConcern)) {
      if (!['w', 'j', 'wtimeout', 'wtimeoutMS', 'fsync'].includes(key))
        bad(`${at}.writeConcern.${key}`, 'unknown write concern field (w, j, wtimeout)');
    }
    spec.writeConcern = writeConcern;
  }
  spec.readPreference = parseReadPreference(raw, at, bad);

  if (raw.weight !== undefined) {
    const w = numericValue(raw.weight);
    if (w === undefined || !Number.isFinite(w) || !(w > 0))
      bad(
        `${at}.weight`,
        `expected a number > 0 (the op's share of a weighted workload), got ${show(raw.weight)}`,
      );
    spec.weight = w;
  }

  if (raw.delay !== undefined) {
    if (typeof raw.delay !== 'number' || !(raw.delay >= 0))
      bad(`${at}.delay`, `expected milliseconds >= 0, got ${show(raw.delay)}`);
    spec.delayMs = raw.delay as number;
  }
  return spec;
}

function parseReadPreference(
  raw: Record<string, unknown>,
  at: string,
  bad: (path: string, message: string) => never,
): ReadPreferenceSpec | undefined {
  const key =
    raw.readPreference !== undefined
      ? 'readPreference'
      : raw.readPrefMode !== undefined
        ? 'readPrefMode'
        : undefined;
  if (!key) return undefined;
  const value = raw[key];
  const checkMode = (mode: unknown, path: string): ReadPreferenceSpec['mode'] => {
    if (typeof mode !== 'string' || !(READ_PREFERENCE_MODES as readonly string[]).includes(mode)) {
      const suggestion =
        typeof mode === 'string' ? closest(mode, READ_PREFERENCE_MODES) : undefined;
      bad(
        path,
        `unknown read preference ${show(mode)}${suggestion ? ` (did you mean "${suggestion}"?)` : ` (one of ${READ_PREFERENCE_MODES.join(', ')})`}`,
      );
    }
    return mode as ReadPreferenceSpec['mode'];
  };
  if (typeof value === 'string') return { mode: checkMode(value, `${at}.${key}`) };
  if (key === 'readPreference' && isObject(value)) {
    for (const k of Object.keys(value)) {
      if (!['mode', 'tags', 'maxStalenessSeconds'].includes(k))
        bad(`${at}.readPreference.${k}`, 'unknown field (mode, tags, maxStalenessSeconds)');
    }
    const spec: ReadPreferenceSpec = { mode: checkMode(value.mode, `${at}.readPreference.mode`) };
    if (value.tags !== undefined) {
      if (!Array.isArray(value.tags) || !value.tags.every(isObject))
        bad(`${at}.readPreference.tags`, 'expected an array of tag sets');
      spec.tags = value.tags as Record<string, string>[];
    }
    if (value.maxStalenessSeconds !== undefined) {
      if (typeof value.maxStalenessSeconds !== 'number')
        bad(`${at}.readPreference.maxStalenessSeconds`, 'expected a number');
      spec.maxStalenessSeconds = value.maxStalenessSeconds as number;
    }
    return spec;
  }
  return bad(
    `${at}.${key}`,
    `expected a mode such as "secondaryPreferred"${key === 'readPreference' ? ' or {mode, tags}' : ''}, got ${show(value)}`,
  );
}
