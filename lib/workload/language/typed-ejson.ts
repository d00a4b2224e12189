/**
 * Extended JSON that keeps the types a workload names. A plain JSON number stays a JS number (the
 * driver sends an int32 when it fits, else a double, as the legacy shell did with a literal), but
 * `{"$numberLong": "42"}`, `{"$numberInt": "7"}`, `{"$numberDouble": "1.0"}` and `{"$numberDecimal": "..."}`
 * become BSON Long / Int32 / Double / Decimal128, so the server receives the type the file names.
 * MongoDB's relaxed mode would turn the first three into JS numbers (an int32 on the wire); its
 * canonical mode would also wrap every plain number, which benchRun's op fields do not expect.
 * Every other wrapper ($oid, $date, $binary, $timestamp, ...) is read as relaxed Extended JSON reads it.
 */
import { BSON, BSONRegExp, Decimal128, Double, Int32, Long } from 'mongodb';
import { isPlainObject } from '../../common/values';

const NUMBER_WRAPPERS = new Set(['$numberInt', '$numberLong', '$numberDouble', '$numberDecimal']);
const OTHER_WRAPPERS = new Set([
  '$oid',
  '$date',
  '$binary',
  '$uuid',
  '$regularExpression',
  '$regex',
  '$timestamp',
  '$minKey',
  '$maxKey',
  '$symbol',
  '$code',
  '$dbPointer',
  '$undefined',
]);

/** Turns a JSON tree (from JSON.parse) into values with their BSON types (see the module comment). */
export function reviveTyped(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reviveTyped);
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && NUMBER_WRAPPERS.has(keys[0]))
    return BSON.EJSON.parse(JSON.stringify(value), { relaxed: false });
  if (keys.some((k) => OTHER_WRAPPERS.has(k)))
    return BSON.EJSON.parse(JSON.stringify(value), { relaxed: true });
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = reviveTyped(value[key]);
  return out;
}

/** Parses Extended JSON text, keeping explicit number types (throws SyntaxError on bad JSON). */
export function parseTypedEjson(text: string): unknown {
  return reviveTyped(JSON.parse(text));
}

/**
 * The inverse of reviveTyped, as plain JSON-able data: BSON values and dates become their canonical
 * wrappers, plain numbers stay numbers. What crosses to a worker thread, where a structured clone
 * would strip BSON values of their types.
 */
export function toTypedJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toTypedJson);
  // Tags rather than instanceof: dates and regular expressions may come from a node:vm sandbox.
  const tag = Object.prototype.toString.call(value);
  if (tag === '[object Date]')
    return BSON.EJSON.serialize(new Date((value as Date).getTime()), { relaxed: false });
  if (tag === '[object RegExp]')
    return BSON.EJSON.serialize(new BSONRegExp((value as RegExp).source, (value as RegExp).flags), {
      relaxed: false,
    });
  if (value !== null && typeof value === 'object' && '_bsontype' in value)
    return BSON.EJSON.serialize(value, { relaxed: false });
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = toTypedJson(value[key]);
  return out;
}

/** A number, whether plain or a BSON numeric type (benchRun reads op fields with numberInt()); else undefined. */
export function numericValue(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (value instanceof Int32 || value instanceof Double) return value.valueOf();
  if (value instanceof Long) return value.toNumber();
  if (value instanceof Decimal128) return Number(value.toString());
  return undefined;
}
