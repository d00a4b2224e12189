/**
 * Groups statements by shape and turns each shape into one weighted benchRun op.
 *
 * A shape is what the server's queryHash groups (src/mongo/db/query/canonical_query_encoder.cpp,
 * canonical_query_encoder::encode: the filter's fields and operators, sort and projection, without
 * the constants): here the namespace, the op type and the op with every constant of its filter,
 * update or $match replaced by "?". An array of constants (an $in list) is one constant, whatever
 * its length. Each constant's observed values become a template operator: one value stays as it
 * was; several become a #PICK among them weighted by how often each was seen (the same keys, the
 * same skew); more distinct integers or dates than are kept become a #RAND_INT / #RAND_DATE range.
 */
import { CAPTURED_BY, Path, Statement, StatementType } from './statements';
import type { QueryStatsMetrics } from './served-op';
import { isObject } from '../common/values';

/** Distinct values kept per constant for #PICK (the most frequent ones). */
export const PICK_LIMIT = 1000;
/** Distinct values tracked per constant before new ones are only counted in the range. */
const TRACK_LIMIT = PICK_LIMIT * 10;

/** Extended JSON wrappers that stand for one BSON value (a constant), not a sub-document. */
const EJSON_KEYS = new Set([
  '$date',
  '$oid',
  '$numberLong',
  '$numberInt',
  '$numberDouble',
  '$numberDecimal',
  '$uuid',
  '$binary',
  '$regularExpression',
  '$timestamp',
  '$minKey',
  '$maxKey',
  '$symbol',
  '$code',
]);

function isEjsonValue(v: Record<string, unknown>): boolean {
  const keys = Object.keys(v);
  return keys.length >= 1 && keys.length <= 2 && EJSON_KEYS.has(keys[0]);
}

/** A constant: a scalar, an Extended JSON value, or an array of constants (an $in list). */
export function isConstant(v: unknown): boolean {
  if (Array.isArray(v)) return v.every(isConstant);
  if (isObject(v)) return isEjsonValue(v);
  return true;
}

/** Calls visit(path, value) for every constant under `value`, and returns its shape ("?" for each constant). */
function walk(value: unknown, path: Path, visit: (path: Path, value: unknown) => void): unknown {
  if (isConstant(value)) {
    visit(path, value);
    return '?';
  }
  if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, i], visit));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    out[k] = walk(v, [...path, k], visit);
  return out;
}

function getAt(root: unknown, path: Path): unknown {
  let at: unknown = root;
  for (const key of path) at = (at as Record<string | number, unknown> | undefined)?.[key];
  return at;
}

function setAt(root: unknown, path: Path, value: unknown): void {
  let at = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path[path.length - 1]] = value;
}

/** A copy of `root` with `value` at `path`, copying only the containers on the way. */
function withValueAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path;
  const container = root as Record<string | number, unknown>;
  const copy: Record<string | number, unknown> = Array.isArray(root)
    ? ([...(root as unknown[])] as unknown as Record<number, unknown>)
    : { ...container };
  copy[key] = withValueAt(container[key], rest, value);
  return copy;
}

interface ValueStats {
  path: Path;
  seen: number;
  /** Keyed by the value's JSON. */
  distinct: Map<string, { value: unknown; count: number }>;
  /** More distinct values than tracked: the range is still exact. */
  overflow: boolean;
  allIntegers: boolean;
  allDates: boolean;
  min: number;
  max: number;
}

function dateMillis(v: unknown): number | undefined {
  if (!isObject(v) || !('$date' in v)) return undefined;
  const d = v.$date;
  const ms =
    typeof d === 'string'
      ? Date.parse(d)
      : isObject(d) && typeof d.$numberLong === 'string'
        ? Number(d.$numberLong)
        : typeof d === 'number'
          ? d
          : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

function note(stats: ValueStats, value: unknown): void {
  stats.seen++;
  const key = JSON.stringify(value);
  const known = stats.distinct.get(key);
  if (known) known.count++;
  else if (stats.distinct.size < TRACK_LIMIT) stats.distinct.set(key, { value, count: 1 });
  else stats.overflow = true;
  const ms = dateMillis(value);
  const n = typeof value === 'number' ? value : ms;
  if (typeof value !== 'number' || !Number.isInteger(value)) stats.allIntegers = false;
  if (ms === undefined) stats.allDates = false;
  if (n !== undefined) {
    stats.min = Math.min(stats.min, n);
    stats.max = Math.max(stats.max, n);
  }
}

/** The template operator for one constant, from what was seen. */
export function templateFor(stats: ValueStats): unknown {
  const values = [...stats.distinct.values()].sort((a, b) => b.count - a.count);
  if (values.length === 1 && !stats.overflow) return values[0].value;
  const many = stats.overflow || values.length > PICK_LIMIT;
  if (many && stats.allIntegers) return { '#RAND_INT': [stats.min, stats.max + 1] };
  if (many && stats.allDates)
    return {
      '#RAND_DATE': [
        { $date: new Date(stats.min).toISOString() },
        { $date: new Date(stats.max + 1).toISOString() },
      ],
    };
  const kept = values.slice(0, PICK_LIMIT);
  return { '#PICK': { values: kept.map((v) => v.value), weights: kept.map((v) => v.count) } };
}

export interface Shape {
  key: string;
  type: StatementType;
  ns: string;
  /** The op with "?" for constants, for people: e.g. find {"user":"?","ts":{"$gt":"?"}}. */
  description: string;
  count: number;
  /** Server time (ms, as logged) summed over the shape's statements. */
  serverMillis: number;
  /** Each statement's logged duration (ms). */
  durations: number[];
  plans: Map<string, number>;
  hashes: Set<string>;
  firstOrigin: string;
  /** The first statement's op: the skeleton the templates go into. */
  skeleton: Record<string, unknown>;
  values: Map<string, ValueStats>;
  /** A stand-in form for writes logged without their statements (statements.ts, syntheticStatement). */
  synthetic: boolean;
  /** The $queryStats entries of this shape, merged (a count and sums, not one duration per op). */
  queryStats?: QueryStatsMetrics;
  /** Its statements that are cursors known by their getMores only. */
  cursorsFromGetMores: number;
}

function mergeMetrics(
  into: QueryStatsMetrics | undefined,
  m: QueryStatsMetrics,
): QueryStatsMetrics {
  if (!into) return { ...m };
  const add = (a?: number, b?: number) => (a === undefined || b === undefined ? undefined : a + b);
  const pick = (
    a: number | undefined,
    b: number | undefined,
    f: (x: number, y: number) => number,
  ) => (a === undefined ? b : b === undefined ? a : f(a, b));
  const date = (a: Date | undefined, b: Date | undefined, later: boolean) =>
    !a ? b : !b ? a : b > a === later ? b : a;
  return {
    execCount: into.execCount + m.execCount,
    execMicros: add(into.execMicros, m.execMicros),
    firstResponseMicros: add(into.firstResponseMicros, m.firstResponseMicros),
    docsReturned: add(into.docsReturned, m.docsReturned),
    maxMicros: pick(into.maxMicros, m.maxMicros, Math.max),
    minMicros: pick(into.minMicros, m.minMicros, Math.min),
    firstSeen: date(into.firstSeen, m.firstSeen, false),
    latestSeen: date(into.latestSeen, m.latestSeen, true),
  };
}

/** The shapes of a capture, in the order first seen. */
export class ShapeTable {
  readonly shapes = new Map<string, Shape>();

  /** Adds one statement; returns its shape (a cursor's getMores add their time to it later). */
  add(st: Statement): Shape {
    const skeleton = st.op;
    // Copied only along the value paths: the rest of the op is shared, not cloned (a log has millions of lines).
    let shaped: Record<string, unknown> = skeleton;
    const leaves: Array<{ path: Path; value: unknown }> = [];
    for (const path of st.valuePaths) {
      const sub = getAt(skeleton, path);
      if (sub === undefined) continue;
      shaped = withValueAt(
        shaped,
        path,
        walk(sub, path, (p, v) => leaves.push({ path: p, value: v })),
      ) as Record<string, unknown>;
    }
    const key = JSON.stringify(shaped);
    let shape = this.shapes.get(key);
    if (!shape) {
      shape = {
        key,
        type: st.type,
        ns: String(skeleton.ns),
        description: describe(st.type, shaped),
        count: 0,
        serverMillis: 0,
        durations: [],
        plans: new Map(),
        hashes: new Set(),
        firstOrigin: st.from.origin,
        skeleton: structuredClone(skeleton),
        values: new Map(),
        synthetic: st.synthetic === true,
        cursorsFromGetMores: 0,
      };
      this.shapes.set(key, shape);
    }
    if (st.queryStats) {
      // A $queryStats entry: its executions at once, its time as the server summed it.
      shape.count += st.queryStats.execCount;
      shape.queryStats = mergeMetrics(shape.queryStats, st.queryStats);
      if (st.queryStats.execMicros !== undefined)
        shape.serverMillis += st.queryStats.execMicros / 1000;
    } else shape.count++;
    if (st.fromGetMores) shape.cursorsFromGetMores++;
    if (st.durationMillis !== undefined) {
      shape.serverMillis += st.durationMillis;
      shape.durations.push(st.durationMillis);
    }
    if (st.from.planSummary)
      shape.plans.set(st.from.planSummary, (shape.plans.get(st.from.planSummary) ?? 0) + 1);
    if (st.from.shapeHash) shape.hashes.add(st.from.shapeHash);
    for (const leaf of leaves) {
      const id = JSON.stringify(leaf.path);
      let stats = shape.values.get(id);
      if (!stats) {
        stats = {
          path: leaf.path,
          seen: 0,
          distinct: new Map(),
          overflow: false,
          allIntegers: true,
          allDates: true,
          min: Infinity,
          max: -Infinity,
        };
        shape.values.set(id, stats);
      }
      note(stats, leaf.value);
    }
    return shape;
  }

  list(): Shape[] {
    return [...this.shapes.values()];
  }
}

/** The shape's op with its constants as template operators, and its weight (how often it was served). */
export function shapeOp(shape: Shape, insertDocument: unknown): Record<string, unknown> {
  const op: Record<string, unknown> = structuredClone(shape.skeleton);
  for (const stats of shape.values.values()) setAt(op, stats.path, templateFor(stats));
  if (shape.type === 'insert') {
    const batch = typeof op.batch === 'number' ? op.batch : 1;
    delete op.batch;
    // Every document a replay inserts carries capture's mark: what a synthetic delete removes.
    const doc =
      isObject(insertDocument) && !('capturedBy' in insertDocument)
        ? { ...insertDocument, capturedBy: CAPTURED_BY }
        : insertDocument;
    op.doc = batch > 1 ? Array.from({ length: batch }, () => doc) : doc;
  }
  op.weight = shape.count;
  return op;
}

/**
 * For people: the op without ns and weight. A find's projection is benchRun's `filter` field in the op,
 * but in the logged command `filter` is the query: the description says `projection`.
 */
function describe(type: StatementType, shaped: Record<string, unknown>): string {
  const { op: _op, ns: _ns, weight: _w, synthetic: _s, ...rest } = shaped;
  if ((type === 'find' || type === 'findOne') && rest.command === undefined && 'filter' in rest) {
    const { filter, ...others } = rest;
    const renamed: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(others)) {
      renamed[k] = v;
      if (k === 'query') renamed.projection = filter;
    }
    if (!('projection' in renamed)) renamed.projection = filter;
    return `${type} ${JSON.stringify(renamed)}`;
  }
  const body =
    type === 'insert' ? `batch of ${String(rest.batch)}` : JSON.stringify(rest.command ?? rest);
  return `${type} ${body}`;
}
