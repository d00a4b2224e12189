/**
 * The import: `docs` documents in insertMany batches of `batchSize`, `writers` batches in flight at
 * once (each writer takes the next batch of sequence numbers). Bounded by a time limit, stopped by
 * an AbortSignal (the batches in flight finish), stopped by the first failed batch; whatever way it
 * ends, it reports what was acknowledged and when.
 */
import { Collection, MongoBulkWriteError, WriteConcernSettings } from 'mongodb';
import { ImportDocument } from './documents';
import { round3 } from './rates';
import { messageOf } from '../../common/values';

export interface ImportPlan {
  docs: number;
  batchSize: number;
  writers: number;
  makeDocument: (seq: number) => ImportDocument;
  writeConcern?: WriteConcernSettings;
  /** Stop starting batches after this many seconds. */
  maxSeconds: number;
}

export interface ImportProgress {
  inserted: number;
  total: number;
  seconds: number;
}

export interface ImportOutcome {
  inserted: number;
  batches: number;
  seconds: number;
  complete: boolean;
  stoppedBy?: 'signal' | 'time-limit' | 'error';
  error?: string;
  /** Each acknowledged batch: when (seconds on the caller's clock) and how many documents. */
  acks: Array<{ t: number; docs: number }>;
}

export async function importDocuments(
  collection: Collection<ImportDocument>,
  plan: ImportPlan,
  hooks: {
    signal?: AbortSignal;
    onProgress?: (p: ImportProgress) => void;
    clock?: () => number;
  } = {},
): Promise<ImportOutcome> {
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const clock = hooks.clock ?? elapsed;
  const acks: ImportOutcome['acks'] = [];
  let next = 0;
  let inserted = 0;
  let batches = 0;
  let stoppedBy: ImportOutcome['stoppedBy'];
  let error: string | undefined;
  const options = {
    ordered: false,
    ...(plan.writeConcern ? { writeConcern: plan.writeConcern } : {}),
  };

  const writer = async () => {
    for (;;) {
      if (stoppedBy) return;
      if (hooks.signal?.aborted) {
        stoppedBy = 'signal';
        return;
      }
      if (elapsed() >= plan.maxSeconds) {
        stoppedBy = 'time-limit';
        return;
      }
      if (next >= plan.docs) return;
      const from = next;
      const to = Math.min(plan.docs, from + plan.batchSize);
      next = to;
      const batch: ImportDocument[] = [];
      for (let seq = from; seq < to; seq++) batch.push(plan.makeDocument(seq));
      try {
        const result = await collection.insertMany(batch, options);
        record(result.insertedCount);
      } catch (err) {
        // An unordered batch may have inserted part of its documents before failing.
        if (err instanceof MongoBulkWriteError) record(err.insertedCount);
        error ??= messageOf(err);
        stoppedBy = 'error';
        return;
      }
    }
  };
  const record = (docs: number) => {
    inserted += docs;
    batches++;
    acks.push({ t: round3(clock()), docs });
    hooks.onProgress?.({ inserted, total: plan.docs, seconds: elapsed() });
  };

  hooks.onProgress?.({ inserted: 0, total: plan.docs, seconds: 0 });
  await Promise.all(Array.from({ length: plan.writers }, writer));
  const complete = stoppedBy === undefined && inserted === plan.docs;
  return {
    inserted,
    batches,
    seconds: round3(elapsed()),
    complete,
    ...(stoppedBy ? { stoppedBy } : {}),
    ...(error ? { error } : {}),
    acks,
  };
}
