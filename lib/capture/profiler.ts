/**
 * Capture from the profiler of a live server: the documents of DB.system.profile (written when
 * profiling is on: db.setProfilingLevel(2), or 1 with slowms) as ServedOps, the same shapes as a log.
 *
 * A profile document (the server's OpDebug::append, src/mongo/db/curop.cpp, and the profiler's
 * profile(), src/mongo/db/introspect.cpp) holds op ("query", "insert", "update", "remove",
 * "command", "getmore"), ns, command (for an update or remove statement {q, u, multi, upsert} /
 * {q, limit}), millis, ts, planSummary, keysExamined, docsExamined, nreturned, ninserted,
 * queryHash (planCacheShapeHash from 8.0) and client; a getmore its cursorid, originatingCommand and
 * cursorExhausted (when true); a failed op `ok: 0.0`, errName, errCode. A
 * command larger than 50 KB is written as {$truncated: "...", comment?} (appendAsObjOrString with
 * appendMaxElementSize, curop.cpp): statements.ts skips it, naming why.
 */
import { BSON, Document, MongoClient, MongoClientOptions } from 'mongodb';
import { RunError, UsageError } from '../config/errors';
import { redactUri } from '../security/redact';
import { CaptureBuilder, CaptureOptions, CaptureOutcome } from './capture';
import { cursorIdOf, failure } from './log-line';
import { ServedOp, Skip } from './served-op';
import { messageOf } from '../common/values';
import { clientTimeouts } from '../common/client-timeouts';

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** `cursorid`, `originatingCommand` and `cursorExhausted` as OpDebug::append writes them (curop.cpp). */
function cursorFields(doc: Record<string, unknown>): Partial<ServedOp> {
  const cursorId = cursorIdOf(doc.cursorid);
  const origin = doc.originatingCommand;
  return {
    ...(cursorId !== undefined ? { cursorId } : {}),
    ...(origin !== null && typeof origin === 'object' && !Array.isArray(origin)
      ? { originatingCommand: origin as Record<string, unknown> }
      : {}),
    ...(doc.cursorExhausted === true ? { cursorExhausted: true } : {}),
  };
}

/** One profile document (as relaxed Extended JSON, like a log line's values) into a ServedOp, or why not. */
export function servedFromProfile(
  doc: Record<string, unknown>,
  origin: string,
): { served: ServedOp } | { skip: Skip } {
  const op = doc.op;
  const ns = doc.ns;
  const command = doc.command;
  if (
    typeof ns !== 'string' ||
    command === null ||
    typeof command !== 'object' ||
    Array.isArray(command)
  ) {
    return {
      skip: {
        origin,
        reason: 'does not parse',
        detail: 'a profile document without ns and command',
      },
    };
  }
  const kind =
    op === 'update'
      ? 'update'
      : op === 'remove'
        ? 'remove'
        : op === 'query' || op === 'command' || op === 'insert' || op === 'getmore'
          ? 'command'
          : undefined;
  if (!kind)
    return {
      skip: {
        origin,
        reason: 'not a workload command',
        detail: `profiler op ${JSON.stringify(op)}`,
      },
    };
  const ts = doc.ts as { $date?: unknown } | undefined;
  const at = ts && typeof ts.$date === 'string' ? new Date(ts.$date) : undefined;
  const shapeHash =
    typeof doc.planCacheShapeHash === 'string'
      ? doc.planCacheShapeHash
      : typeof doc.queryHash === 'string'
        ? doc.queryHash
        : undefined;
  return {
    served: {
      origin,
      ...(at && !Number.isNaN(at.getTime()) ? { at } : {}),
      ns,
      kind,
      command: command as Record<string, unknown>,
      durationMillis: num(doc.millis),
      planSummary: typeof doc.planSummary === 'string' ? doc.planSummary : undefined,
      keysExamined: num(doc.keysExamined),
      docsExamined: num(doc.docsExamined),
      nreturned: num(doc.nreturned),
      ninserted: num(doc.ninserted),
      shapeHash,
      connection: typeof doc.client === 'string' ? doc.client : undefined,
      ...cursorFields(doc),
      ...failure(doc),
    },
  };
}

/** The profiler's collection; `--profile-collection` reads a copy (system.profile is capped and rolls over). */
export const PROFILE_COLLECTION = 'system.profile';

export interface ProfilerCaptureOptions extends CaptureOptions {
  name?: string;
  /** Default system.profile: a copy made with db.system.profile.aggregate([{$out: "profile_2025_09_24"}]) reads the same. */
  collection?: string;
  insertDocument: unknown;
  insertDocuments: 'placeholder' | 'docs-like';
  clientOptions?: MongoClientOptions;
  onProgress?: (documentsRead: number) => void;
}

/** Reads DB.system.profile in the order it was written; a server that cannot be reached is a RunError naming it (credentials removed). */
export async function captureFromProfiler(
  uri: string,
  db: string,
  options: ProfilerCaptureOptions,
): Promise<CaptureOutcome> {
  if (!db)
    throw new UsageError(
      'capture: --uri needs --db NAME (the database whose system.profile to read)',
    );
  const collection = options.collection ?? PROFILE_COLLECTION;
  const where = `${redactUri(uri)} ${db}.${collection}`;
  const client = new MongoClient(uri, { ...clientTimeouts(), ...options.clientOptions });
  const builder = new CaptureBuilder({ sampled: options.sampled, keepFailed: options.keepFailed });
  builder.sourceKind = 'profiler';
  try {
    await client.connect();
    // $natural: the order the profiler wrote them (system.profile is a capped collection).
    const cursor = client
      .db(db)
      .collection(collection)
      .find({}, { sort: { $natural: 1 } });
    let n = 0;
    for await (const raw of cursor) {
      n++;
      builder.recordsRead++;
      const doc = BSON.EJSON.serialize(raw as Document, { relaxed: true }) as Record<
        string,
        unknown
      >;
      const origin = `${db}.${collection} #${n}`;
      const outcome = servedFromProfile(doc, origin);
      if ('skip' in outcome) builder.skip(outcome.skip);
      else builder.addServed(outcome.served, outcome.served.connection);
      if (n % 10_000 === 0) options.onProgress?.(n);
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new RunError(
      `capture: cannot read ${where}: ${messageOf(err).replace(uri, redactUri(uri))}`,
    );
  } finally {
    await client.close();
  }
  if (builder.recordsRead === 0) {
    throw new UsageError(
      `capture: ${where} is empty: turn the profiler on while the workload runs, e.g. db.setProfilingLevel(2) (every op) or db.setProfilingLevel(1, {slowms: 0, sampleRate: 0.1}); see docs/capture.md`,
    );
  }
  // The collection only: the host and database can name a customer, and workload.json travels.
  builder.sources = [{ name: collection, documents: builder.recordsRead }];
  return builder.finish(
    options.name ?? `captured-${db}`,
    options.insertDocument,
    options.insertDocuments,
    [where],
  );
}
