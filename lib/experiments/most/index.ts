/**
 * MOST (OCI 2011, Test Results 1-3): 16 KiB documents written in batches by several writers, then read
 * back N..1 counting the reads that found their document; by write concern, capped and read preference.
 */
import { annotateResult } from '../../metrics/warnings';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { z } from 'zod';
import { clientTimeouts } from '../../common/client-timeouts';
import { writeResultFile } from '../../result';
import { RESULTS_FILE } from '../../run/benchmark';
import { driverWriteConcern, dropQuietly } from '../configuration';
import {
  Experiment,
  MatrixConfiguration,
  RunContext,
  RunOutcome,
  WriteConcernSpec,
} from '../experiment';
import { BSON_LIMIT, docSize, positiveInt, SEED } from '../parameters';
import { JOURNAL_NOTE, MAPPING_NOTE } from '../write-concern-notes';
import { mostResult } from './result';
import {
  readConfigurationStorage,
  STORAGE_MEASURES,
  storageMeasures,
  withStorage,
} from '../storage-measures';
import { runMost } from './run-most';

export * from './run-most';

const COLLECTION = 'most';

const PARAMETERS = z
  .object({
    docs: positiveInt('docs'),
    docSize: docSize(BSON_LIMIT, 'docSize must be at most 16 MiB (the BSON limit)'),
    batchSize: positiveInt('batchSize'),
    writers: positiveInt('writers'),
    readers: positiveInt('readers'),
    readStart: z.enum(['after-writes', 'with-writes'], {
      error: 'readStart: expected "after-writes" or "with-writes"',
    }),
    randomSeed: z.number().int(),
  })
  .strict();
export type MostParameters = z.output<typeof PARAMETERS>;

const CONCERNS: Record<string, WriteConcernSpec> = {
  NORMAL: { w: 0 },
  SAFE: { w: 1 },
  JOURNALED: { w: 1, j: true },
  'REPLICA_SAFE(2)': { w: 2 },
  'REPLICA_SAFE(3)': { w: 3 },
};
const SERIES = {
  plain: 'not capped, primary reads',
  capped: 'capped, primary reads',
  secondary: 'not capped, secondary reads',
} as const;

function configuration(name: string, variant: keyof typeof SERIES): MatrixConfiguration {
  const wc = Object.entries(CONCERNS[name])
    .map(([k, v]) => `${k}:${v}`)
    .join(',');
  const suffix = variant === 'plain' ? '' : variant === 'capped' ? ', capped' : ', secondary reads';
  return {
    label: `${name} (${wc})${suffix}`,
    writeConcern: CONCERNS[name],
    capped: variant === 'capped',
    readPreference: variant === 'secondary' ? 'secondary' : 'primary',
    group: name,
    series: SERIES[variant],
  };
}

/** Test Results 1/2 (write concern x capped) and 3 (REPLICA_SAFE(n), slaveOk reads); a standalone skips what it cannot run. */
const PRESET: MatrixConfiguration[] = [
  ...(['plain', 'capped'] as const).flatMap((variant) =>
    Object.keys(CONCERNS).map((name) => configuration(name, variant)),
  ),
  ...['NORMAL', 'SAFE', 'REPLICA_SAFE(2)', 'REPLICA_SAFE(3)'].map((name) =>
    configuration(name, 'secondary'),
  ),
];

const pct = (share: number | null) => (share === null ? null : share * 100);

/**
 * w:0 writes go through a client of their own, closed once they are done: a server that answers an
 * unacknowledged write anyway (FerretDB 1.x replies to OP_MSG with moreToCome set, which MongoDB never
 * does) leaves each reply on the connection, and the next command there (a read-back, the storage
 * figures, the next configuration's create) would read it as its own.
 */
async function withWriteClient<T>(
  ctx: RunContext,
  run: (writeClient: MongoClient | undefined) => Promise<T>,
): Promise<T> {
  if (ctx.config.writeConcern?.w !== 0) return run(undefined);
  const own = new MongoClient(ctx.uri, {
    ...clientTimeouts(ctx.serverSelectionTimeoutMS),
    ...ctx.clientOptions,
  });
  try {
    return await run(own);
  } finally {
    await own.close().catch(() => undefined);
  }
}

async function run(ctx: RunContext): Promise<RunOutcome> {
  const { config } = ctx;
  const params = ctx.parameters as MostParameters;
  const startedAt = new Date();
  let lastShown = 0;
  const m = await withWriteClient(ctx, (writeClient) =>
    runMost(
      ctx.client,
      ctx.db,
      COLLECTION,
      params,
      {
        writeConcern: driverWriteConcern(config.writeConcern),
        capped: config.capped === true,
        readPreference: config.readPreference,
        guard: ctx.guard,
        ...(writeClient ? { writeClient } : {}),
      },
      {
        signal: ctx.signal,
        onProgress: (p) => {
          const quarter = Math.floor((p.done / Math.max(1, p.total)) * 4);
          const key = (p.phase === 'write' ? 0 : 10) + quarter;
          if (quarter > 0 && key > lastShown) {
            lastShown = key;
            ctx.progress(`${p.phase === 'write' ? 'written' : 'read back'} ${p.done}/${p.total}`);
          }
        },
      },
    ),
  );
  // What the configuration cost on disk (capped or not), read before its collection goes.
  const storage = await readConfigurationStorage(ctx.client, `${ctx.db}.${COLLECTION}`);
  await dropQuietly(ctx.client, ctx.db, COLLECTION, ctx.guard);
  const result = mostResult(
    {
      config,
      target: ctx.target,
      ns: `${ctx.db}.${COLLECTION}`,
      startedAt,
      finishedAt: new Date(),
      matrix: ctx.matrixName,
    },
    params,
    m,
  );
  await writeResultFile(join(ctx.dir, RESULTS_FILE), annotateResult(withStorage(result, storage)));
  const failed =
    m.writeErrors > 0
      ? `${m.writeErrors} of ${m.writeBatches} insert batches failed, first: ${m.firstWriteError}`
      : undefined;
  return {
    status: m.interrupted ? 'interrupted' : failed ? 'failed' : 'ok',
    reason: m.interrupted ? 'interrupted' : failed,
    measures: {
      writeMiBps: m.writeMiBps,
      readMiBps: m.readMiBps,
      consistentPct: pct(m.consistentShare),
      missedReads: m.reads.misses,
      docs: m.docsWritten,
      ...storageMeasures(storage),
    },
    details: {
      ...{ docBytes: m.docBytes, writeSeconds: m.writeSeconds, readSeconds: m.readSeconds },
      ...{
        readsFound: m.reads.hits,
        readsMissed: m.reads.misses,
        readErrors: m.reads.errors,
        missedIdsSample: m.reads.missedSample,
      },
      cappedSizeBytes: m.cappedSizeBytes ?? null,
    },
    resultFile: `${ctx.relativeDir}/${RESULTS_FILE}`,
  };
}

export const most: Experiment = {
  name: 'most',
  collections: [COLLECTION],
  description:
    'MOST (OCI 2011, Test Results 1-3): 16 KiB documents in batches of 256 by 6 writers, read back N..1; write/read MiB/s and consistent reads by write concern, capped, read preference',
  parameters: PARAMETERS,
  sizing: {
    full: {
      docs: 1_048_576,
      docSize: 16_384,
      batchSize: 256,
      writers: 6,
      readers: 6,
      readStart: 'after-writes',
      randomSeed: SEED,
    },
    scaled: 'docs',
    // 16,384 documents of 16 KiB = 256 MiB per configuration.
    defaultScale: 1 / 64,
    scaleNote: '--scale 1 = 1,048,576 documents of 16 KiB (16 GiB), as the seed',
  },
  preset: PRESET,
  clientsNeeded: (p) => Number(p.writers) + Number(p.readers),
  run,
  files: { configuration: [RESULTS_FILE] },
  measures: [
    { key: 'writeMiBps', csv: 'write_mib_per_s', title: 'Write', unit: 'MiB/s' },
    { key: 'readMiBps', csv: 'read_mib_per_s', title: 'Read', unit: 'MiB/s' },
    { key: 'consistentPct', csv: 'consistent_reads_pct', title: 'Consistent reads', unit: '%' },
    { key: 'missedReads', csv: 'missed_reads', title: 'Missed reads', unit: 'count' },
    { key: 'docs', csv: 'docs_written', title: 'Documents written', unit: 'docs' },
    ...STORAGE_MEASURES,
  ],
  charts: [
    {
      file: 'write-mibps.png',
      title: 'Write throughput by configuration',
      yTitle: 'MiB/s written (2^20 bytes/s)',
      measures: ['writeMiBps'],
      scale: 'linear',
    },
    {
      file: 'read-mibps.png',
      title: 'Read-back throughput by configuration',
      yTitle: 'MiB/s read (documents found)',
      measures: ['readMiBps'],
      scale: 'linear',
    },
    {
      file: 'consistent-reads.png',
      title: 'Consistent reads by configuration',
      yTitle: 'reads that found their document (%)',
      measures: ['consistentPct'],
      scale: 'linear',
    },
  ],
  notes: [JOURNAL_NOTE, MAPPING_NOTE],
  summaryLines: [
    '- MiB/s = 2^20 bytes per second (the seed\'s "MBs"); read MiB/s counts only reads that found their document.',
  ],
};
