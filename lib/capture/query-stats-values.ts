/**
 * Values for the literals `$queryStats` replaced with their type. The server keeps no value of the
 * user's: `{item: "card"}` is recorded as `{item: {$eq: "?string"}}` (the type strings of
 * src/mongo/db/query/serialization_options.cpp: "?number", "?string", "?bool", "?date", "?objectId",
 * "?null", "?array<?number>", "?array<>", "?object", "?regex", ...). A replay needs a value, and none
 * is invented as if it were the user's:
 * - in a filter (`filter`, `query`, an update's or delete's `q`, a `$match` stage) and in an update
 *   modifier's values (`{$set: {status: "?string"}}`: the value of its field), with `--docs-like --keep-sample` (the sampled
 *   documents are written to sample.json anyway) a #PICK among the field's sampled values of that type;
 *   else the field's template from `--docs-like` (the
 *   range, length or kind sampled from the user's collection) when the template has that field and
 *   its type agrees; otherwise a generator of the type over the tool's own keys: a number is one of
 *   the loader's `_id`s 0..9999, a string random text, a date within the entry's firstSeen..latestSeen,
 *   an ObjectId a new one, a boolean true or false, null null; an `$in` list one such value;
 * - a `limit` (find, count, `$limit`) becomes the most documents the shape returned (docsReturned.max),
 *   the bound the limit set when the matches were more; a `skip` / `$skip` is dropped;
 * - a number or boolean in an expression (`$group: {n: {$sum: "?number"}}`, `$expr`) becomes 1 / true:
 *   the work is the same whatever the constant (a `$bucketAuto`'s `buckets` is the exception: 1 bucket);
 *   `"?null"` is null; other types there cannot be rebuilt;
 * - any other normalized option (batchSize, maxTimeMS, comment, a hint or min/max with a placeholder
 *   in it, ...) is dropped.
 * A literal of a type that cannot be generated (an object, a regex, binary data, ...) skips its entry.
 */
import { isObject } from '../common/values';
import { SYNTHETIC_UPDATE_KEYS } from './statements';

/** Where a value came from, counted for capture.md. */
export interface LiteralCounts {
  /** From the sampled values of the field (--docs-like with --keep-sample). */
  fromSample: number;
  fromDocsLike: number;
  byType: number;
  expressionConstants: number;
  /** Normalized options dropped (skip, batchSize, maxTimeMS, ...), by name. */
  dropped: Record<string, number>;
  /** Limits set to the shape's docsReturned.max. */
  limitsFromDocsReturned: number;
}

export function emptyCounts(): LiteralCounts {
  return {
    fromSample: 0,
    fromDocsLike: 0,
    byType: 0,
    expressionConstants: 0,
    dropped: {},
    limitsFromDocsReturned: 0,
  };
}

/** The span and counts of the entry whose placeholders are filled. */
export interface EntryContext {
  firstSeen?: Date;
  latestSeen?: Date;
  docsReturnedMax?: number;
}

/** What placeholders take their values from. */
export interface ValueSource {
  /** The --docs-like template (no sampled value in it), or undefined. */
  template?: Record<string, unknown>;
  /**
   * The sampled documents (relaxed Extended JSON), only when the user keeps the sample anyway
   * (--keep-sample writes it to sample.json): a placeholder in a filter draws among its field's
   * sampled values, so a replayed equality finds documents.
   */
  sample?: Record<string, unknown>[];
}

/** Distinct sampled values kept per field for a #PICK. */
const SAMPLED_VALUES = 1000;

function sampledType(v: unknown): string | undefined {
  if (typeof v === 'number') return '?number';
  if (typeof v === 'string') return '?string';
  if (typeof v === 'boolean') return '?bool';
  if (isObject(v) && typeof v.$oid === 'string') return '?objectId';
  if (isObject(v) && v.$date !== undefined) return '?date';
  return undefined;
}

/** The sampled values of `field` of `type`, most frequent first, with how often each was seen. */
function sampledValues(
  sample: Record<string, unknown>[] | undefined,
  field: string | undefined,
  type: string,
): { values: unknown[]; weights: number[] } | undefined {
  if (!sample || !field) return undefined;
  const seen = new Map<string, { value: unknown; count: number }>();
  for (const doc of sample) {
    const v = templateAt(doc, field);
    if (v === undefined || sampledType(v) !== type) continue;
    const key = JSON.stringify(v);
    const known = seen.get(key);
    if (known) known.count++;
    else seen.set(key, { value: v, count: 1 });
  }
  if (seen.size === 0) return undefined;
  const kept = [...seen.values()].sort((a, b) => b.count - a.count).slice(0, SAMPLED_VALUES);
  return { values: kept.map((k) => k.value), weights: kept.map((k) => k.count) };
}

const PLACEHOLDER = /^\?[a-zA-Z]+(<.*>)?$/;

export function isPlaceholder(v: unknown): v is string {
  return typeof v === 'string' && PLACEHOLDER.test(v);
}

function templateAt(
  template: Record<string, unknown> | undefined,
  field: string | undefined,
): unknown {
  if (!template || !field) return undefined;
  let at: unknown = template;
  for (const part of field.split('.')) at = isObject(at) ? at[part] : undefined;
  return at;
}

function templateType(v: unknown): string | undefined {
  if (typeof v === 'number') return '?number';
  if (typeof v === 'string') return '?string';
  if (typeof v === 'boolean') return '?bool';
  if (v === null) return '?null';
  if (!isObject(v)) return undefined;
  if ('#RAND_INT' in v) return '?number';
  if ('#RAND_STRING' in v) return '?string';
  if ('#OID' in v) return '?objectId';
  if ('#RAND_DATE' in v || '$date' in v) return '?date';
  const pick = v['#PICK'];
  if (
    isObject(pick) &&
    Array.isArray(pick.values) &&
    pick.values.every((x) => typeof x === 'boolean')
  )
    return '?bool';
  return undefined;
}

/** A generator of the type over the tool's own keys, or undefined when the type has none. */
function byType(type: string, ctx: EntryContext): unknown {
  switch (type) {
    case '?number':
      return { '#RAND_INT': [0, SYNTHETIC_UPDATE_KEYS] };
    case '?string':
      return { '#RAND_STRING': [8] };
    case '?bool':
      return { '#PICK': [true, false] };
    case '?null':
      return null;
    case '?objectId':
      return { '#OID': 1 };
    case '?date': {
      const to = (ctx.latestSeen ?? ctx.firstSeen)?.getTime();
      if (to === undefined) return undefined;
      const from = Math.min(ctx.firstSeen?.getTime() ?? to, to);
      return { '#RAND_DATE': [from, Math.max(to, from + 1000)] };
    }
    default:
      return undefined;
  }
}

type Filled = { value: unknown } | { cannot: string };

class Filler {
  readonly counts = emptyCounts();
  constructor(
    private readonly source: ValueSource,
    private readonly ctx: EntryContext,
  ) {}

  /** A placeholder in a filter, at `field`. */
  private valueFor(type: string, field: string | undefined): Filled {
    const array = /^\?array<(.*)>$/.exec(type);
    if (array) {
      if (array[1] === '') return { value: [] };
      const one = this.valueFor(array[1], field);
      return 'cannot' in one ? one : { value: [one.value] };
    }
    const sampled = sampledValues(this.source.sample, field, type);
    if (sampled) {
      this.counts.fromSample++;
      return { value: sampled.values.length === 1 ? sampled.values[0] : { '#PICK': sampled } };
    }
    const t = templateAt(this.source.template, field);
    if (t !== undefined && templateType(t) === type) {
      this.counts.fromDocsLike++;
      return { value: t };
    }
    const gen = byType(type, this.ctx);
    if (gen === undefined && type !== '?null')
      return { cannot: `a literal of type ${type}${field ? ` at ${field}` : ''}` };
    this.counts.byType++;
    return { value: gen };
  }

  filter(v: unknown, field: string | undefined): Filled {
    if (isPlaceholder(v)) return this.valueFor(v, field);
    if (Array.isArray(v)) return this.all(v, (x) => this.filter(x, field));
    if (!isObject(v)) return { value: v };
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const r =
        k === '$expr'
          ? this.expression(x)
          : k.startsWith('$')
            ? this.filter(x, field)
            : this.filter(x, field ? `${field}.${k}` : k);
      if ('cannot' in r) return r;
      out[k] = r.value;
    }
    return { value: out };
  }

  /** An expression (a pipeline stage other than $match, $expr, a projection): numbers and booleans only. */
  expression(v: unknown): Filled {
    if (isPlaceholder(v)) {
      // `$group: {_id: "?null"}`: null has one value, the one the query had.
      if (v === '?null') return { value: null };
      if (v === '?number' || v === '?bool') {
        this.counts.expressionConstants++;
        return { value: v === '?number' ? 1 : true };
      }
      return { cannot: `a literal of type ${v} in an expression` };
    }
    if (Array.isArray(v)) return this.all(v, (x) => this.expression(x));
    if (!isObject(v)) return { value: v };
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const r = k === '$match' ? this.filter(x, undefined) : this.expression(x);
      if ('cannot' in r) return r;
      out[k] = r.value;
    }
    return { value: out };
  }

  private all(list: unknown[], f: (x: unknown) => Filled): Filled {
    const out: unknown[] = [];
    for (const x of list) {
      const r = f(x);
      if ('cannot' in r) return r;
      out.push(r.value);
    }
    return { value: out };
  }

  /** A limit the shape normalized: the most documents it returned, or none. */
  limit(name: string): number | undefined {
    const max = this.ctx.docsReturnedMax;
    if (max !== undefined && max > 0) {
      this.counts.limitsFromDocsReturned++;
      return max;
    }
    this.leaveOut(name);
    return undefined;
  }

  leaveOut(name: string): void {
    this.counts.dropped[name] = (this.counts.dropped[name] ?? 0) + 1;
  }

  pipeline(stages: unknown[]): Filled {
    const out: unknown[] = [];
    for (const stage of stages) {
      if (isObject(stage) && isPlaceholder(stage.$skip)) {
        this.leaveOut('$skip');
        continue;
      }
      if (isObject(stage) && isPlaceholder(stage.$limit)) {
        const n = this.limit('$limit');
        if (n !== undefined) out.push({ $limit: n });
        continue;
      }
      const r = this.expression(stage);
      if ('cannot' in r) return r;
      out.push(r.value);
    }
    return { value: out };
  }
}

function containsPlaceholder(v: unknown): boolean {
  if (isPlaceholder(v)) return true;
  if (Array.isArray(v)) return v.some(containsPlaceholder);
  return isObject(v) && Object.values(v).some(containsPlaceholder);
}

/** Fields of a shape that hold a filter: find's and count's, an update's or delete's `q`. */
const FILTER_FIELDS = new Set(['filter', 'query', 'q']);

/**
 * The shape's fields (queryShape less cmdNs and command, plus the key's readConcern/hint/...) with
 * every placeholder given a value, or why one cannot be.
 */
export function fillPlaceholders(
  command: string,
  fields: Record<string, unknown>,
  source: ValueSource,
  ctx: EntryContext,
): { command: Record<string, unknown>; counts: LiteralCounts } | { cannot: string } {
  const filler = new Filler(source, ctx);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (command === 'aggregate' && k === 'pipeline' && Array.isArray(v)) {
      const r = filler.pipeline(v);
      if ('cannot' in r) return r;
      out.pipeline = r.value;
    } else if (command === 'update' && k === 'u') {
      // A pipeline's stages are expressions; a modifier's values are the values of its fields
      // ({$set: {status: "?string"}} takes status's), like a filter's; a replacement is "?object".
      const r = Array.isArray(v) ? filler.pipeline(v) : filler.filter(v, undefined);
      if ('cannot' in r) return r;
      out.u = r.value;
    } else if (FILTER_FIELDS.has(k)) {
      const r = filler.filter(v, undefined);
      if ('cannot' in r) return r;
      out[k] = r.value;
    } else if (k === 'limit' && isPlaceholder(v)) {
      const n = filler.limit('limit');
      if (n !== undefined) out.limit = n;
    } else if (isPlaceholder(v)) {
      // skip, batchSize, maxTimeMS, comment, ...: normalized options with no value to send.
      filler.leaveOut(k);
    } else if (k === 'cursor' && isObject(v)) {
      // An aggregate's {batchSize: "?number"}: the server's default batch.
      if (isPlaceholder(v.batchSize)) filler.leaveOut('cursor.batchSize');
      out.cursor = {};
    } else if (k !== 'projection' && k !== 'let' && containsPlaceholder(v)) {
      // hint, min, max, collation...: a normalized value cannot be sent as it is, nor guessed (a hint
      // names an index: {a: "?number"} may be {a: 1} or {a: -1}).
      filler.leaveOut(k);
    } else {
      const r = k === 'projection' || k === 'let' ? filler.expression(v) : { value: v };
      if ('cannot' in r) return r;
      out[k] = r.value;
    }
  }
  return { command: out, counts: filler.counts };
}
