/**
 * Documents like the user's, without copying them: `$sample` the real collection, infer each field's
 * type, size and value distribution, and write a document template (template operators) that
 * generates documents of the same shape. No sampled value goes into the template: numbers and dates
 * become ranges (min, max), strings random text of their typical length, ObjectIds new ones, booleans
 * a weighted pick of true/false. The sample itself is written only when asked (--keep-sample).
 */
import {
  Binary,
  Decimal128,
  Document,
  Double,
  Int32,
  Long,
  MongoClient,
  MongoClientOptions,
  ObjectId,
} from 'mongodb';
import { RunError, UsageError } from '../config/errors';
import { redactUri } from '../security/redact';
import { messageOf } from '../common/values';
import { clientTimeouts } from '../common/client-timeouts';

export const DEFAULT_SAMPLE_SIZE = 1000;
/** A field present in fewer of the sampled documents than this is left out (templates have no "sometimes"). */
const PRESENT_IN = 0.5;

export interface DocsLikeSource {
  uri: string;
  db: string;
  coll: string;
}

/** `mongodb://host:27017/shop.orders?authSource=admin` into the connection string and the namespace. */
export function parseDocsLike(value: string): DocsLikeSource {
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]+)\/([^?/]+)(\?.*)?$/.exec(value.trim());
  const ns = m?.[2];
  const dot = ns ? ns.indexOf('.') : -1;
  if (!m || !ns || dot <= 0 || dot === ns.length - 1) {
    throw new UsageError(
      `option --docs-like: expected URI/database.collection, e.g. mongodb://127.0.0.1:27017/shop.orders, got "${value}"`,
    );
  }
  return { uri: `${m[1]}/${m[3] ?? ''}`, db: ns.slice(0, dot), coll: ns.slice(dot + 1) };
}

type Kind =
  | 'objectId'
  | 'int'
  | 'long'
  | 'double'
  | 'decimal'
  | 'string'
  | 'bool'
  | 'date'
  | 'null'
  | 'object'
  | 'array'
  | 'binary'
  | 'other';

function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return 'null';
  if (v instanceof ObjectId) return 'objectId';
  if (v instanceof Date) return 'date';
  if (v instanceof Long) return 'long';
  if (v instanceof Int32) return 'int';
  if (v instanceof Double) return 'double';
  if (v instanceof Decimal128) return 'decimal';
  if (v instanceof Binary) return 'binary';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return 'object';
  return 'other';
}

interface FieldStats {
  present: number;
  kinds: Map<Kind, number>;
  min: number;
  max: number;
  lengths: number[];
  trues: number;
  children?: Map<string, FieldStats>;
  objects: number;
}

function newStats(): FieldStats {
  return {
    present: 0,
    kinds: new Map(),
    min: Infinity,
    max: -Infinity,
    lengths: [],
    trues: 0,
    objects: 0,
  };
}

function observe(fields: Map<string, FieldStats>, doc: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(doc)) {
    let f = fields.get(key);
    if (!f) fields.set(key, (f = newStats()));
    f.present++;
    const kind = kindOf(value);
    f.kinds.set(kind, (f.kinds.get(kind) ?? 0) + 1);
    const n =
      kind === 'date'
        ? (value as Date).getTime()
        : kind === 'int' || kind === 'double'
          ? Number(value)
          : kind === 'long'
            ? (value as Long).toNumber()
            : kind === 'decimal'
              ? Number((value as Decimal128).toString())
              : undefined;
    if (n !== undefined && Number.isFinite(n)) {
      f.min = Math.min(f.min, n);
      f.max = Math.max(f.max, n);
    }
    if (kind === 'string') f.lengths.push((value as string).length);
    if (kind === 'array') f.lengths.push((value as unknown[]).length);
    if (kind === 'binary') f.lengths.push((value as Binary).length());
    if (kind === 'bool' && value === true) f.trues++;
    if (kind === 'object') {
      f.objects++;
      observe((f.children ??= new Map()), value as Record<string, unknown>);
    }
  }
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function fieldTemplate(f: FieldStats): unknown {
  const kind = [...f.kinds].sort((a, b) => b[1] - a[1])[0][0];
  switch (kind) {
    case 'objectId':
      return { '#OID': 1 };
    case 'int':
    case 'long':
      return f.max > f.min ? { '#RAND_INT': [f.min, f.max + 1] } : f.min;
    case 'double':
    case 'decimal':
      // No float operator: integers over the same range (the field's scale, not its fraction digits).
      return f.max > f.min ? { '#RAND_INT': [Math.floor(f.min), Math.ceil(f.max) + 1] } : f.min;
    case 'date':
      // Epoch milliseconds: the template travels as JSON in workload.json.
      return f.max > f.min
        ? { '#RAND_DATE': [f.min, f.max + 1] }
        : { $date: new Date(f.min).toISOString() };
    case 'string':
      return { '#RAND_STRING': [Math.max(1, median(f.lengths))] };
    case 'bool':
      return {
        '#PICK': {
          values: [true, false],
          weights: [Math.max(1, f.trues), Math.max(1, f.present - f.trues)],
        },
      };
    case 'object':
      return documentTemplate(f.children ?? new Map(), f.objects);
    case 'array':
      // Its elements' shape is not modelled: random text of about the array's size, in one element per item.
      return Array.from({ length: Math.min(50, median(f.lengths)) }, () => ({
        '#RAND_STRING': [8],
      }));
    case 'binary':
      return { '#RAND_STRING': [Math.max(1, Math.round((median(f.lengths) * 4) / 3))] };
    default:
      return null;
  }
}

function documentTemplate(
  fields: Map<string, FieldStats>,
  documents: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of fields)
    if (f.present / documents >= PRESENT_IN) out[name] = fieldTemplate(f);
  return out;
}

/** The template of documents shaped like these (a sample of one collection). */
export function inferDocumentTemplate(docs: Document[]): Record<string, unknown> {
  if (docs.length === 0)
    throw new UsageError(
      'option --docs-like: the collection is empty: nothing to model the documents on',
    );
  const fields = new Map<string, FieldStats>();
  for (const doc of docs) observe(fields, doc);
  return documentTemplate(fields, docs.length);
}

export interface DocsLike {
  source: string;
  template: Record<string, unknown>;
  sample: Document[];
}

/** `$sample`s a collection through a client the caller holds (the run's own target, for `run --docs-like db.coll`). */
export async function sampleCollection(
  client: MongoClient,
  db: string,
  coll: string,
  where: string,
  size = DEFAULT_SAMPLE_SIZE,
): Promise<DocsLike> {
  let sample: Document[];
  try {
    sample = await client
      .db(db)
      .collection(coll)
      .aggregate([{ $sample: { size } }])
      .toArray();
  } catch (err) {
    throw new RunError(`option --docs-like: cannot sample ${where}: ${messageOf(err)}`);
  }
  if (sample.length === 0)
    throw new UsageError(
      `option --docs-like: ${where} is empty: nothing to model the documents on`,
    );
  return { source: where, template: inferDocumentTemplate(sample), sample };
}

/** `$sample`s the collection and infers the template. */
export async function sampleDocsLike(
  value: string,
  size = DEFAULT_SAMPLE_SIZE,
  clientOptions?: MongoClientOptions,
): Promise<DocsLike> {
  const source = parseDocsLike(value);
  const where = `${redactUri(source.uri).replace(/\/$/, '')} ${source.db}.${source.coll}`;
  const client = new MongoClient(source.uri, { ...clientTimeouts(), ...clientOptions });
  try {
    await client.connect();
    return await sampleCollection(client, source.db, source.coll, where, size);
  } catch (err) {
    if (err instanceof UsageError || err instanceof RunError) throw err;
    throw new RunError(`option --docs-like: cannot sample ${where}: ${messageOf(err)}`);
  } finally {
    await client.close();
  }
}

/**
 * What `capture --docs-like` leaves beside workload.json (DOCS_LIKE_FILE) so that `run --docs-like DIR`
 * loads documents of the same shape without reaching the sampled server again: the template only,
 * never a sampled value.
 */
export const DOCS_LIKE_FILE = 'docs-like.json';

/** docs-like.json's schema: how a later capture into the folder knows the file for mongo-bench's. */
export const DOCS_LIKE_SCHEMA = 'mongo-bench/docs-like@1';

export interface DocsLikeFile {
  schema: typeof DOCS_LIKE_SCHEMA;
  source: string;
  sampled: number;
  template: Record<string, unknown>;
}

export function docsLikeFile(docsLike: DocsLike): DocsLikeFile {
  return {
    schema: DOCS_LIKE_SCHEMA,
    source: docsLike.source,
    sampled: docsLike.sample.length,
    template: docsLike.template,
  };
}
