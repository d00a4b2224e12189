/**
 * The MongoDB store: one collection a team shares (default database mongo_bench, collection
 * results; `mongodb://host/db` or `mongodb://host/db.collection` picks others). Each document holds
 * the result as its exact JSON text (field names such as `$set` inside workload ops, or host names
 * with dots, need no escaping) beside the fields a history is read by: label, workload, target,
 * startedAt (a date), complete, and a summary per step for the team's own queries. An index on
 * {label, startedAt} and one on {workload, target.uri, startedAt} serve the series reads. The _id is
 * a hash of the run's identity, so importing the same result twice keeps one copy.
 *
 * Opening it checks that the collection is absent, empty or already a results store, never a user's
 * (lib/server/role-check.ts; a UsageError, exit 2, before anything is read or written); the first write
 * builds the indexes and marks it a results store (`<db>.mongo_bench_owner`, lib/server/ownership.ts).
 */
import { createHash } from 'node:crypto';
import { MongoClient, MongoClientOptions } from 'mongodb';
import { RunError, UsageError } from '../config/errors';
import type { ResultDocument } from '../result';
import { parseResult } from '../result';
import { redactUri } from '../security/redact';
import { resultForStore } from './redact-result';
import {
  orderAndDeduplicate,
  PutOutcome,
  ResultStore,
  runKey,
  SkippedEntry,
  StoredResult,
  StoreFilter,
} from './store';
import { dropUndefined, messageOf } from '../common/values';
import { checkRole } from '../server/role-check';
import { markRole } from '../server/ownership';
import { clientTimeouts } from '../common/client-timeouts';

export const MONGO_STORE_DEFAULTS = { db: 'mongo_bench', collection: 'results' } as const;

export interface MongoStoreOptions {
  clientOptions?: MongoClientOptions;
  serverSelectionTimeoutMS?: number;
}

/** Splits `mongodb://h/db.coll?x` into the URI the driver gets (`mongodb://h/db?x`), the database and the collection. */
export function parseStoreUri(spec: string): { uri: string; db: string; collection: string } {
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]*)(?:\/([^?]*))?(\?.*)?$/i.exec(spec);
  if (!m)
    throw new UsageError(`option --store: not a MongoDB connection string: ${redactUri(spec)}`);
  const [, base, pathPart = '', query = ''] = m;
  const decoded = decodeURIComponent(pathPart);
  const dot = decoded.indexOf('.');
  const db = (dot < 0 ? decoded : decoded.slice(0, dot)) || MONGO_STORE_DEFAULTS.db;
  const collection = (dot < 0 ? '' : decoded.slice(dot + 1)) || MONGO_STORE_DEFAULTS.collection;
  if (/[/\\. "$]/.test(db))
    throw new UsageError(
      `option --store: "${db}" is not a valid database name (${redactUri(spec)})`,
    );
  return { uri: `${base}/${encodeURIComponent(db)}${query}`, db, collection };
}

interface StoredDocument {
  _id: string;
  schema: string;
  label: string;
  workload: string;
  target: { uri: string; topology: string; serverVersion?: string; testDouble?: boolean };
  startedAt: Date;
  finishedAt?: Date;
  complete: boolean;
  tool: { name: string; version: string };
  steps: {
    clients: number;
    status: string;
    opsPerSec: number;
    readsP50Micros: number;
    readsP99Micros: number;
    writesP50Micros: number;
    writesP99Micros: number;
    errors: number;
  }[];
  storedAt: Date;
  /** The result document, exactly as JSON. */
  result: string;
}

function toStored(result: ResultDocument): StoredDocument {
  return {
    _id: createHash('sha256').update(runKey(result)).digest('hex').slice(0, 24),
    schema: result.schema,
    label: result.label,
    workload: result.workload.name,
    target: {
      uri: result.target.uri,
      topology: result.target.topology,
      ...dropUndefined({ serverVersion: result.target.serverVersion }),
      ...dropUndefined({ testDouble: result.target.testDouble }),
    },
    startedAt: new Date(result.startedAt),
    ...(result.finishedAt ? { finishedAt: new Date(result.finishedAt) } : {}),
    complete: result.complete,
    tool: result.tool,
    steps: result.steps.map((s) => ({
      clients: s.clients,
      status: s.status ?? 'ok',
      opsPerSec: s.opsPerSec.total,
      readsP50Micros: s.latencyMicros.reads.p50,
      readsP99Micros: s.latencyMicros.reads.p99,
      writesP50Micros: s.latencyMicros.writes.p50,
      writesP99Micros: s.latencyMicros.writes.p99,
      errors: s.ops.errors,
    })),
    storedAt: new Date(),
    result: JSON.stringify(result),
  };
}

export class MongoStore implements ResultStore {
  readonly description: string;
  private indexed = false;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: string,
    private readonly collectionName: string,
    redacted: string,
    /** Already marked a results store when opened. */
    private readonly marked: boolean,
  ) {
    this.description = `MongoDB ${redacted} (collection ${db}.${collectionName})`;
  }

  static async open(spec: string, options: MongoStoreOptions = {}): Promise<MongoStore> {
    const { uri, db, collection } = parseStoreUri(spec);
    // A serverSelectionTimeoutMS in the URI wins over the default.
    const timeout = /[?&]serverSelectionTimeoutMS=/i.test(uri)
      ? {}
      : clientTimeouts(options.serverSelectionTimeoutMS);
    const client = new MongoClient(uri, { ...timeout, ...options.clientOptions });
    try {
      await client.connect();
    } catch (err) {
      await client.close().catch(() => undefined);
      // The driver's message may quote the URI: never show its password.
      throw new RunError(`store ${redactUri(spec)}: cannot connect (${redactUri(messageOf(err))})`);
    }
    let state;
    try {
      // A user's collection is refused here, for every caller (run, import, history, the API).
      state = await checkRole(client, {
        role: 'store',
        db,
        coll: collection,
        option: 'option --store',
        at: spec,
      });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    const marked = state.exists && state.role === 'store';
    return new MongoStore(client, db, collection, redactUri(uri), marked);
  }

  private get collection() {
    return this.client.db(this.db).collection<StoredDocument>(this.collectionName);
  }

  private async ensureIndexes(): Promise<void> {
    if (this.indexed) return;
    await this.collection.createIndex({ label: 1, startedAt: 1 }, { name: 'label_startedAt' });
    await this.collection.createIndex(
      { workload: 1, 'target.uri': 1, startedAt: 1 },
      { name: 'workload_target_startedAt' },
    );
    // Absent or empty when opened: a results store from now on (its UUID, now that it exists).
    if (!this.marked) await markRole(this.client, this.db, 'store', this.collectionName);
    this.indexed = true;
  }

  async put(result: ResultDocument): Promise<PutOutcome> {
    await this.ensureIndexes();
    const doc = toStored(resultForStore(result));
    const outcome = await this.collection.updateOne(
      { _id: doc._id },
      { $setOnInsert: doc },
      { upsert: true },
    );
    return { id: doc._id, created: outcome.upsertedCount === 1 };
  }

  async list(filter?: StoreFilter): Promise<{ results: StoredResult[]; skipped: SkippedEntry[] }> {
    const query: Record<string, unknown> = {};
    if (filter?.label !== undefined) query.label = filter.label;
    if (filter?.workload !== undefined) query.workload = filter.workload;
    const results: StoredResult[] = [];
    const skipped: SkippedEntry[] = [];
    const cursor = this.collection
      .find(query, { projection: { result: 1 } })
      .sort({ startedAt: 1, _id: 1 });
    for await (const doc of cursor) {
      const source = `${this.db}.${this.collectionName} _id ${doc._id}`;
      try {
        results.push({
          result: parseResult(
            typeof doc.result === 'string' ? doc.result : JSON.stringify(doc.result),
            source,
          ),
          source,
        });
      } catch (err) {
        skipped.push({ source, why: messageOf(err) });
      }
    }
    return { results: orderAndDeduplicate(results), skipped };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
