/**
 * index-cost: what secondary indexes cost. The same inserts (a fixed count, one document per insert, the
 * same documents by the seed) into a collection with 0, 1 and 3 secondary indexes besides `_id`, each
 * created by the workload's own set-up (drop, create, createIndexes: entries of the run's write plan,
 * checked by the data guard before anything is written). The row shows the inserts per second beside what
 * the collection then holds on disk per document and in its indexes per document (steps[].storage, read
 * once the measured window has closed).
 */
import { BSON } from 'mongodb';
import { join } from 'node:path';
import { z } from 'zod';
import { RunError } from '../../config/errors';
import { loadResult, ResultDocument, StepResult } from '../../result';
import { RESULTS_FILE, runBenchmark } from '../../run/benchmark';
import type { SetupStep } from '../../workload/language/setup-spec';
import { dropQuietly } from '../configuration';
import { Experiment, MatrixConfiguration, RunContext, RunOutcome } from '../experiment';
import { BSON_LIMIT, docSize, positiveInt, SEED } from '../parameters';
import { STORAGE_MEASURES, storageMeasures } from '../storage-measures';

const COLLECTION = 'indexCost';

/** The indexed fields, in the order the indexes are added: a number, a 16-character string, a small number. */
export const INDEX_COST_FIELDS = ['a', 'b', 'c'] as const;

const PARAMETERS = z
  .object({
    docs: positiveInt('docs'),
    docSize: docSize(BSON_LIMIT, 'docSize must be at most 16 MiB (the BSON limit)'),
    writers: positiveInt('writers'),
    indexes: z
      .number({ error: 'indexes: expected a number' })
      .int('indexes must be an integer')
      .min(0, 'indexes must be at least 0')
      .max(INDEX_COST_FIELDS.length, `indexes must be at most ${INDEX_COST_FIELDS.length}`),
    randomSeed: z.number().int(),
  })
  .strict();
type IndexCostParameters = z.output<typeof PARAMETERS>;

/** The inserted document's template: the indexed fields, then padding up to about docSize bytes. */
export function indexCostDocument(size: number): Record<string, unknown> {
  const base = BSON.calculateObjectSize({
    _id: BSON.ObjectId.createFromTime(0),
    a: 2_000_000_000,
    b: 'x'.repeat(16),
    c: 999,
    pad: '',
  });
  return {
    a: { '#RAND_INT': [0, 2_000_000_000] },
    b: { '#RAND_STRING': [16] },
    c: { '#RAND_INT': [0, 1000] },
    pad: { '#RAND_STRING': [Math.max(1, size - base)] },
  };
}

/** The set-up: the collection dropped (through the guard) and created, then its secondary indexes. */
export function indexCostSetup(db: string, indexes: number): SetupStep[] {
  const fields = INDEX_COST_FIELDS.slice(0, indexes);
  return [
    { kind: 'command', db, command: { drop: COLLECTION } },
    { kind: 'command', db, command: { create: COLLECTION } },
    ...(fields.length > 0
      ? [
          {
            kind: 'command' as const,
            db,
            command: {
              createIndexes: COLLECTION,
              indexes: fields.map((f) => ({ key: { [f]: 1 }, name: `${f}_1` })),
            },
          },
        ]
      : []),
  ];
}

function configuration(indexes: number): MatrixConfiguration {
  const fields = INDEX_COST_FIELDS.slice(0, indexes);
  return {
    label: `${indexes} secondary index${indexes === 1 ? '' : 'es'}`,
    description: fields.length ? `_id and ${fields.map((f) => `${f}_1`).join(', ')}` : '_id only',
    writeConcern: { w: 1 },
    parameters: { indexes },
  };
}

async function runInserts(
  ctx: RunContext,
  params: IndexCostParameters,
): Promise<{ result?: ResultDocument; failure?: string }> {
  const ns = `${ctx.db}.${COLLECTION}`;
  try {
    const result = await runBenchmark(
      {
        ...{
          uri: ctx.uri,
          ns,
          workload: {
            name: 'index-cost',
            ops: [{ op: 'insert', ns, doc: indexCostDocument(params.docSize) }],
          },
          setup: { steps: indexCostSetup(ctx.db, params.indexes) },
        },
        // The same count of inserts for every configuration: the step ends after `docs` of them.
        ...{ clients: [params.writers], ops: params.docs, seconds: 1, warmupSeconds: 0, trials: 1 },
        ...{ load: false, docs: params.docs, docSize: params.docSize, batchSize: 1 },
        ...{ randomSeed: params.randomSeed, label: ctx.config.label, outDir: ctx.dir },
        ...{
          writeConcern: ctx.config.writeConcern as Record<string, unknown> | undefined,
          serverSelectionTimeoutMS: ctx.serverSelectionTimeoutMS,
          testDouble: ctx.testDouble,
          drop: ctx.guard.consent,
          allowSetupWrites: ctx.guard.consent,
        },
      },
      { signal: ctx.signal },
    );
    return { result };
  } catch (err) {
    if (!(err instanceof RunError)) throw err;
    const result = await loadResult(join(ctx.dir, RESULTS_FILE)).catch(() => undefined);
    return { result, failure: err.message };
  }
}

async function run(ctx: RunContext): Promise<RunOutcome> {
  const params = ctx.parameters as IndexCostParameters;
  ctx.progress(`${params.docs} inserts with ${params.indexes} secondary index(es)`);
  const { result, failure } = await runInserts(ctx, params);
  await dropQuietly(ctx.client, ctx.db, COLLECTION, ctx.guard);
  const step: StepResult | undefined = result?.steps.find((s) => s.status !== 'failed');
  const interrupted = result !== undefined && !result.complete && !failure;
  const storage = step?.storage;
  return {
    status: failure ? 'failed' : interrupted ? 'interrupted' : step ? 'ok' : 'failed',
    reason:
      failure ?? (interrupted ? result?.incompleteReason : step ? undefined : 'no step finished'),
    measures: {
      insertsPerSec: step ? step.opsPerSec.writes : null,
      docs: storage?.documents ?? null,
      ...storageMeasures(storage),
    },
    details: {
      indexes: params.indexes,
      indexNames: storage?.indexes ? Object.keys(storage.indexes) : null,
      indexBytes: storage?.indexes ?? null,
      storageMissing: storage?.missing ?? null,
      storageReadAt: storage?.readAt ?? null,
    },
    ...(result ? { resultFile: `${ctx.relativeDir}/${RESULTS_FILE}` } : {}),
  };
}

export const indexCost: Experiment = {
  name: 'index-cost',
  collections: [COLLECTION],
  description:
    'index cost: the same single-document inserts with 0, 1 and 3 secondary indexes; inserts/s beside bytes on disk and index bytes per document',
  parameters: PARAMETERS,
  sizing: {
    full: { docs: 100_000, docSize: 1024, writers: 4, indexes: 0, randomSeed: SEED },
    scaled: 'docs',
    // 10,000 inserts of 1 KiB per configuration.
    defaultScale: 1 / 10,
    scaleNote: '--scale 1 = 100,000 inserts of 1 KiB per configuration',
  },
  preset: [0, 1, 3].map(configuration),
  clientsNeeded: (p) => Number(p.writers),
  run,
  files: { configuration: [RESULTS_FILE] },
  measures: [
    { key: 'insertsPerSec', csv: 'inserts_per_s', title: 'Inserts', unit: 'ops/s' },
    { key: 'docs', csv: 'documents', title: 'Documents', unit: 'docs' },
    ...STORAGE_MEASURES,
  ],
  charts: [
    {
      file: 'inserts-per-s.png',
      title: 'Inserts per second by number of secondary indexes',
      yTitle: 'inserts/s (w:1, one document each)',
      measures: ['insertsPerSec'],
      scale: 'linear',
    },
    {
      file: 'bytes-per-document.png',
      title: 'Bytes per document: on disk and in the indexes',
      yTitle: 'bytes per document',
      measures: ['bytesPerDocument', 'indexBytesPerDocument'],
      scale: 'linear',
    },
  ],
  notes: [
    "Every configuration inserts the same documents (the same seed), one per insert, w:1; indexes are created before the first insert, by the workload's set-up.",
    "On WiredTiger the on-disk figures are as of the last checkpoint (storage.syncPeriodSecs, 60 s by default): a short run may show an earlier checkpoint's size; index bytes per document include the _id index.",
  ],
};
