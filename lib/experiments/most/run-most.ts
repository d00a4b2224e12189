/**
 * MOST (Nathan Tippy, OCI, 2011): writers insert documents 1..N of 16 KB in batches of 256 with the
 * configuration's write concern; readers then read them back N..1 on their own connections (findOne by
 * _id) and count the reads that found their document (consistent) against those that did not (a write
 * not yet applied: the seed's NORMAL write concern lost the last 153 documents this way).
 *
 * MiB/s is 2^20 bytes per second, as the seed's "MBs". Only reads that found their document carry bytes.
 */
import { dropCollection, GuardPolicy } from '../../server/data-guard';
import { BSON, Collection, MongoClient, ReadPreferenceMode, WriteConcernSettings } from 'mongodb';
import { LatencyRecorder } from '../../metrics/latency';
import { documentFactory } from '../../workload/language/documents';
import { messageOf } from '../../common/values';

export interface MostParams {
  /** Documents 1..docs. The seed: 1,048,576 (16 GiB). */
  docs: number;
  /** Approximate BSON size per document. The seed: 16,384. */
  docSize: number;
  /** Documents per insertMany. The seed: 256 (4 MiB per batch). */
  batchSize: number;
  /** Writer connections. The seed: 6 threads. */
  writers: number;
  /** Reader connections. */
  readers: number;
  /** 'after-writes': readers start the moment the writers return (the seed); 'with-writes': at once, racing them. */
  readStart: 'after-writes' | 'with-writes';
  randomSeed: number;
}

export interface MostConfig {
  writeConcern?: WriteConcernSettings;
  /** A capped collection sized to hold every document of the test (as the seed sized it). */
  capped: boolean;
  readPreference?: ReadPreferenceMode;
  /** What may be dropped (lib/server/data-guard); default: only what mongo-bench loaded. */
  guard?: GuardPolicy;
  /**
   * The writers' client, where it is not `client` (w:0: a server that answers unacknowledged writes anyway,
   * as FerretDB does, leaves each reply on the connection for the next command to read as its own).
   */
  writeClient?: MongoClient;
}

export interface ReadTally {
  /** Lookups that found their document. */
  hits: number;
  /** Lookups that found nothing: the document was not (yet) written where the reader looked. */
  misses: number;
  errors: number;
  /** A few of the ids that missed, highest first (for the report). */
  missedSample: number[];
}

export interface MostMeasurement {
  docsWritten: number;
  /** BSON size of one document, in bytes. */
  docBytes: number;
  writeSeconds: number;
  readSeconds: number;
  /** From the first write to the last read. */
  elapsedSeconds: number;
  writeBatches: number;
  writeErrors: number;
  firstWriteError?: string;
  reads: ReadTally;
  writeMiBps: number;
  readMiBps: number;
  /** hits / (hits + misses), 0..1; null when nothing was read. */
  consistentShare: number | null;
  latency: { insertMany: LatencyRecorder; findOne: LatencyRecorder };
  /** Per second since the first write: documents written, lookups completed, errors. */
  perSecond: { writes: number[]; reads: number[]; errors: number[] };
  interrupted: boolean;
  cappedSizeBytes?: number;
}

export interface MostHooks {
  signal?: AbortSignal;
  onProgress?: (p: { phase: 'write' | 'read'; done: number; total: number }) => void;
}

const MIB = 1024 * 1024;
const MISSED_SAMPLE = 10;

/** Bytes a capped collection needs to hold every document: data plus 10 % and 1 MiB of headroom for record overhead. */
export function cappedSizeFor(docs: number, docBytes: number): number {
  return Math.ceil(docs * docBytes * 1.1) + MIB;
}

export function mibPerSecond(bytes: number, seconds: number): number {
  return seconds > 0 ? bytes / MIB / seconds : 0;
}

/** Counts per second since `start` (ms, performance.now()). */
class PerSecond {
  readonly counts: number[] = [];
  constructor(private readonly start: number) {}
  add(at: number, n = 1): void {
    const second = Math.max(0, Math.floor((at - this.start) / 1000));
    while (this.counts.length <= second) this.counts.push(0);
    this.counts[second] += n;
  }
}

/**
 * Readers read ids from..1 (descending), interleaved: reader r of R reads from-r, from-r-R, ...
 * `lookup` resolves true when it found the document. Plain over a lookup function so the consistency
 * count is testable without a server.
 */
export async function readDescending(
  from: number,
  readers: number,
  lookup: (id: number) => Promise<boolean>,
  hooks: {
    signal?: AbortSignal;
    onRead?: (id: number, found: boolean | 'error', at: number) => void;
  } = {},
): Promise<ReadTally> {
  const tally: ReadTally = { hits: 0, misses: 0, errors: 0, missedSample: [] };
  const reader = async (offset: number) => {
    for (let id = from - offset; id >= 1; id -= readers) {
      if (hooks.signal?.aborted) return;
      let found: boolean | 'error';
      try {
        found = await lookup(id);
      } catch {
        found = 'error';
      }
      if (found === 'error') tally.errors += 1;
      else if (found) tally.hits += 1;
      else {
        tally.misses += 1;
        if (tally.missedSample.length < MISSED_SAMPLE) tally.missedSample.push(id);
      }
      hooks.onRead?.(id, found, performance.now());
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, readers) }, (_, r) => reader(r)));
  tally.missedSample.sort((a, b) => b - a);
  return tally;
}

export function consistentShare(tally: ReadTally): number | null {
  const looked = tally.hits + tally.misses;
  return looked > 0 ? tally.hits / looked : null;
}

/** Prepares the collection: dropped, then created capped (sized for the whole test) or plain. */
export async function prepareMostCollection(
  client: MongoClient,
  db: string,
  coll: string,
  config: MostConfig,
  sizeBytes: number,
): Promise<void> {
  await dropCollection(
    client,
    db,
    coll,
    config.guard ?? { ours: false, consent: false, consentFlag: '--drop' },
    { claim: true },
  );
  if (config.capped) await client.db(db).createCollection(coll, { capped: true, size: sizeBytes });
  else await client.db(db).createCollection(coll);
}

export async function runMost(
  client: MongoClient,
  db: string,
  coll: string,
  params: MostParams,
  config: MostConfig,
  hooks: MostHooks = {},
): Promise<MostMeasurement> {
  const factory = documentFactory(params.docs, params.docSize, params.randomSeed);
  const sample = factory.make(params.docs);
  const docBytes = BSON.calculateObjectSize(sample);
  const cappedSizeBytes = config.capped ? cappedSizeFor(params.docs, docBytes) : undefined;
  await prepareMostCollection(client, db, coll, config, cappedSizeBytes ?? 0);

  const writeColl: Collection<{ _id: number }> = (config.writeClient ?? client)
    .db(db)
    .collection(coll);
  const readColl: Collection<{ _id: number }> = client
    .db(db)
    .collection(coll, config.readPreference ? { readPreference: config.readPreference } : {});
  const insertLatency = new LatencyRecorder();
  const findLatency = new LatencyRecorder();
  const started = performance.now();
  const writesPerSecond = new PerSecond(started);
  const readsPerSecond = new PerSecond(started);
  const errorsPerSecond = new PerSecond(started);
  const batches = Math.ceil(params.docs / params.batchSize);
  let nextBatch = 0;
  let docsWritten = 0;
  let writeErrors = 0;
  let firstWriteError: string | undefined;
  const insertOptions = config.writeConcern
    ? { ordered: true, writeConcern: config.writeConcern }
    : { ordered: true };

  // Writers take batches in id order from a shared counter, so ids land roughly ascending.
  const writer = async () => {
    for (;;) {
      if (hooks.signal?.aborted) return;
      const batch = nextBatch++;
      if (batch >= batches) return;
      const first = batch * params.batchSize + 1;
      const last = Math.min(params.docs, first + params.batchSize - 1);
      const docs = [];
      for (let id = first; id <= last; id++) docs.push(factory.make(id));
      const t0 = performance.now();
      try {
        await writeColl.insertMany(docs, insertOptions);
        const t1 = performance.now();
        insertLatency.record((t1 - t0) * 1000);
        docsWritten += docs.length;
        writesPerSecond.add(t1, docs.length);
      } catch (err) {
        writeErrors += 1;
        firstWriteError ??= messageOf(err);
        errorsPerSecond.add(performance.now());
      }
      hooks.onProgress?.({ phase: 'write', done: docsWritten, total: params.docs });
    }
  };

  let readsDone = 0;
  const read = async (): Promise<{ tally: ReadTally; seconds: number }> => {
    const t0 = performance.now();
    const tally = await readDescending(
      params.docs,
      params.readers,
      async (id) => {
        const s = performance.now();
        const found = await readColl.findOne({ _id: id }, { projection: { _id: 1, pad: 1 } });
        findLatency.record((performance.now() - s) * 1000);
        return found !== null;
      },
      {
        signal: hooks.signal,
        onRead: (_id, found, at) => {
          if (found === 'error') errorsPerSecond.add(at);
          else readsPerSecond.add(at);
          readsDone += 1;
          if (readsDone % 256 === 0)
            hooks.onProgress?.({ phase: 'read', done: readsDone, total: params.docs });
        },
      },
    );
    return { tally, seconds: (performance.now() - t0) / 1000 };
  };

  const writeAll = async () => {
    await Promise.all(Array.from({ length: params.writers }, () => writer()));
    return (performance.now() - started) / 1000;
  };
  let writeSeconds: number;
  let readResult: { tally: ReadTally; seconds: number };
  if (params.readStart === 'with-writes') {
    [writeSeconds, readResult] = await Promise.all([writeAll(), read()]);
  } else {
    writeSeconds = await writeAll();
    readResult = await read();
  }
  const elapsedSeconds = (performance.now() - started) / 1000;
  const { tally, seconds: readSeconds } = readResult;
  const length = Math.max(
    writesPerSecond.counts.length,
    readsPerSecond.counts.length,
    errorsPerSecond.counts.length,
  );
  const pad = (a: number[]) => Array.from({ length }, (_, i) => a[i] ?? 0);
  return {
    docsWritten,
    docBytes,
    writeSeconds,
    readSeconds,
    elapsedSeconds,
    writeBatches: batches,
    writeErrors,
    firstWriteError,
    reads: tally,
    writeMiBps: mibPerSecond(docsWritten * docBytes, writeSeconds),
    readMiBps: mibPerSecond(tally.hits * docBytes, readSeconds),
    consistentShare: consistentShare(tally),
    latency: { insertMany: insertLatency, findOne: findLatency },
    perSecond: {
      writes: pad(writesPerSecond.counts),
      reads: pad(readsPerSecond.counts),
      errors: pad(errorsPerSecond.counts),
    },
    interrupted: hooks.signal?.aborted === true,
    cappedSizeBytes,
  };
}
