/**
 * Just enough of the query language for scripts that read the config database: equality (deep,
 * BSON-aware), $or/$and, $in/$ne/$exists/$gt/$gte/$lt/$lte; and the BSON comparison order
 * (src/mongo/bson/bsonobj.cpp woCompare; canonical type order from docs "Comparison/Sort Order").
 */
type Doc = Record<string, unknown>;

function bsonType(v: unknown): string | undefined {
  return v !== null && typeof v === 'object' ? (v as { _bsontype?: string })._bsontype : undefined;
}

/** Canonical type order: MinKey, null, numbers, string, object, array, binData, ObjectId, bool, date, ..., MaxKey. */
function typeRank(v: unknown): number {
  const t = bsonType(v);
  if (t === 'MinKey') return 0;
  if (t === 'MaxKey') return 100;
  if (v === null || v === undefined) return 1;
  if (
    typeof v === 'number' ||
    typeof v === 'bigint' ||
    t === 'Long' ||
    t === 'Int32' ||
    t === 'Double' ||
    t === 'Decimal128'
  )
    return 2;
  if (typeof v === 'string') return 3;
  if (Array.isArray(v)) return 5;
  if (t === 'Binary' || t === 'UUID') return 6;
  if (t === 'ObjectId') return 7;
  if (typeof v === 'boolean') return 8;
  if (v instanceof Date) return 9;
  if (t === 'Timestamp') return 10;
  return 4;
}

function asNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  const t = bsonType(v);
  if (t === 'Long') return Number((v as { toString(): string }).toString());
  return Number((v as { valueOf(): unknown }).valueOf());
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return Math.sign(ra - rb);
  switch (ra) {
    case 0:
    case 1:
    case 100:
      return 0;
    case 2: {
      const ta = bsonType(a);
      const tb = bsonType(b);
      // Longs compare exactly (hashed split points use the whole int64 range).
      if (ta === 'Long' || tb === 'Long' || typeof a === 'bigint' || typeof b === 'bigint') {
        const x = BigInt(String(a));
        const y = BigInt(String(b));
        return x < y ? -1 : x > y ? 1 : 0;
      }
      return Math.sign(asNumber(a) - asNumber(b));
    }
    case 3:
      return a === b ? 0 : (a as string) < (b as string) ? -1 : 1;
    case 4:
      return compareDocs(a as Doc, b as Doc);
    case 5: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
      return Math.sign(x.length - y.length);
    }
    case 6:
      return Buffer.compare(
        Buffer.from((a as { buffer: Uint8Array }).buffer),
        Buffer.from((b as { buffer: Uint8Array }).buffer),
      );
    case 7:
      return String(a).localeCompare(String(b));
    case 8:
      return Number(a) - Number(b);
    case 9:
      return Math.sign((a as Date).getTime() - (b as Date).getTime());
    default:
      return String(a).localeCompare(String(b));
  }
}

/** Field by field, in order (like woCompare without an ordering spec). */
export function compareDocs(a: Doc, b: Doc): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
    const c = compareValues(a[ka[i]], b[kb[i]]);
    if (c !== 0) return c;
  }
  return Math.sign(ka.length - kb.length);
}

export const equalValues = (a: unknown, b: unknown): boolean => compareValues(a, b) === 0;

function fieldValue(doc: Doc, path: string): unknown {
  let current: unknown = doc;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Doc)[part];
  }
  return current;
}

function isOperatorObject(v: unknown): v is Doc {
  return (
    v !== null &&
    typeof v === 'object' &&
    !bsonType(v) &&
    !Array.isArray(v) &&
    !(v instanceof Date) &&
    Object.keys(v).some((k) => k.startsWith('$'))
  );
}

function matchCondition(value: unknown, condition: unknown): boolean {
  if (!isOperatorObject(condition))
    return value !== undefined ? equalValues(value, condition) : condition === null;
  return Object.entries(condition).every(([op, arg]) => {
    switch (op) {
      case '$eq':
        return value !== undefined && equalValues(value, arg);
      case '$ne':
        return value === undefined ? arg !== null : !equalValues(value, arg);
      case '$in':
        return (arg as unknown[]).some((x) => value !== undefined && equalValues(value, x));
      case '$nin':
        return !(arg as unknown[]).some((x) => value !== undefined && equalValues(value, x));
      case '$exists':
        return (value !== undefined) === Boolean(arg);
      case '$gt':
        return value !== undefined && compareValues(value, arg) > 0;
      case '$gte':
        return value !== undefined && compareValues(value, arg) >= 0;
      case '$lt':
        return value !== undefined && compareValues(value, arg) < 0;
      case '$lte':
        return value !== undefined && compareValues(value, arg) <= 0;
      default:
        throw new Error(
          `unsupported query operator ${op} (the stand-in models only what the tool sends)`,
        );
    }
  });
}

export function matches(doc: Doc, filter: Doc | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$or') return (condition as Doc[]).some((f) => matches(doc, f));
    if (key === '$and') return (condition as Doc[]).every((f) => matches(doc, f));
    if (key === '$nor') return !(condition as Doc[]).some((f) => matches(doc, f));
    return matchCondition(fieldValue(doc, key), condition);
  });
}
