/**
 * SoftLayer (2012): the engine's 6:1 query:update sweep (the same as `mongo-bench run --workload 6to1`),
 * clients doubling 1..maxClients, on data smaller or larger than the server's RAM. Each configuration
 * writes its result document and the four SoftLayer charts into its folder; the row holds the best figures.
 */
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { z } from 'zod';
import { RunError, UsageError } from '../../config/errors';
import { ResultDocument, loadResult } from '../../result';
import { reportFileNames, writeReport } from '../../report/write-report';
import { runBenchmark, RESULTS_FILE } from '../../run/benchmark';
import { presetOps } from '../../workload/language/presets';
import { clientCountsUpTo } from '../../workload/language/sweep';
import { dropQuietly } from '../configuration';
import { Experiment, Prepared, RunContext, RunOutcome } from '../experiment';
import { BSON_LIMIT, docSize, positiveInt, SEED } from '../parameters';
import { docsForRatio, MIB, readServerMemory } from './server-memory';

/** finish's folder: the configurations' charts drawn together. */
const COMPARISON_DIR = 'comparison';

export { docsForRatio, readServerMemory } from './server-memory';

const COLLECTION = 'softlayer';

const PARAMETERS = z
  .object({
    docs: positiveInt('docs'),
    docSize: docSize(BSON_LIMIT, 'docSize must be at most 16 MiB (the BSON limit)'),
    batchSize: positiveInt('batchSize'),
    maxClients: positiveInt('maxClients'),
    seconds: positiveInt('seconds'),
    warmup: z.number().int('warmup must be an integer').min(0, 'warmup must be >= 0'),
    /** Size the data as this many times the server's RAM (replaces docs). */
    datasetRatio: z.number().positive('datasetRatio must be > 0').optional(),
    randomSeed: z.number().int(),
  })
  .strict();
type SoftlayerParameters = z.output<typeof PARAMETERS>;

/** The server's RAM, asked once when a configuration sizes its data by it. */
async function prepare(
  client: MongoClient,
  parameters: Array<Record<string, unknown>>,
): Promise<Prepared> {
  if (!parameters.some((p) => p.datasetRatio !== undefined)) return {};
  const memory = await readServerMemory(client);
  if (memory.memSizeMB === undefined) {
    throw new UsageError(
      `option --dataset-ratio: cannot size the data by the server's RAM: the server does not report it (${memory.source}); give --docs N instead`,
    );
  }
  return {
    shared: { memSizeMB: memory.memSizeMB },
    progress: [`server RAM: ${memory.memSizeMB} MiB (${memory.source})`],
    notes: [
      `Data sizes are ratios of the server's RAM: ${memory.memSizeMB} MiB (${memory.source}).`,
    ],
  };
}

async function run(ctx: RunContext): Promise<RunOutcome<ResultDocument>> {
  const params = ctx.parameters as SoftlayerParameters;
  const memSizeMB = ctx.shared.memSizeMB as number | undefined;
  const ns = `${ctx.db}.${COLLECTION}`;
  const docs =
    params.datasetRatio !== undefined && memSizeMB !== undefined
      ? docsForRatio(params.datasetRatio, memSizeMB, params.docSize)
      : params.docs;
  let result: ResultDocument | undefined;
  let failure: string | undefined;
  try {
    result = await runBenchmark(
      {
        ...{
          uri: ctx.uri,
          ns,
          workload: { name: '6to1', ops: presetOps('6to1', { ns, docs, docSize: params.docSize }) },
        },
        ...{
          clients: clientCountsUpTo(params.maxClients),
          seconds: params.seconds,
          warmupSeconds: params.warmup,
          trials: 1,
        },
        ...{
          load: true,
          docs,
          docSize: params.docSize,
          batchSize: params.batchSize,
          randomSeed: params.randomSeed,
        },
        ...{
          writeConcern: ctx.config.writeConcern as Record<string, unknown> | undefined,
          label: ctx.config.label,
          outDir: ctx.dir,
        },
        ...{
          serverSelectionTimeoutMS: ctx.serverSelectionTimeoutMS,
          testDouble: ctx.testDouble,
          drop: ctx.guard.consent,
        },
      },
      {
        signal: ctx.signal,
        onEvent: (e) => {
          if (e.type === 'load-done')
            ctx.progress(
              `loaded ${e.docs} documents of ${params.docSize} bytes in ${e.seconds.toFixed(1)} s`,
            );
          if (e.type === 'step-done')
            ctx.progress(
              `clients ${e.step.clients}: ${Math.round(e.step.opsPerSec.reads)} reads/s, ${Math.round(e.step.opsPerSec.writes)} writes/s (peak ${e.step.peakOpsPerSec.reads} / ${e.step.peakOpsPerSec.writes})`,
            );
        },
      },
    );
  } catch (err) {
    if (!(err instanceof RunError)) throw err;
    failure = err.message;
    // The engine wrote the steps that finished before the failure.
    result = await loadResult(join(ctx.dir, RESULTS_FILE)).catch(() => undefined);
  }
  await dropQuietly(ctx.client, ctx.db, COLLECTION, ctx.guard);
  const steps = result?.steps.filter((s) => s.status !== 'failed') ?? [];
  const best = <K extends 'opsPerSec' | 'peakOpsPerSec'>(key: K, kind: 'reads' | 'writes') =>
    steps.length ? Math.max(...steps.map((s) => s[key][kind])) : null;
  const bestStep = steps.reduce<(typeof steps)[number] | undefined>(
    (b, s) => (!b || s.opsPerSec.reads > b.opsPerSec.reads ? s : b),
    undefined,
  );
  // The four SoftLayer charts (and the latency and timeline charts) of this configuration.
  if (result && result.steps.length > 0) await writeReport([result], ctx.dir);
  const interrupted = result !== undefined && !result.complete && !failure;
  return {
    status: failure ? 'failed' : interrupted ? 'interrupted' : 'ok',
    reason: failure ?? (interrupted ? result?.incompleteReason : undefined),
    measures: {
      avgReads: best('opsPerSec', 'reads'),
      peakReads: best('peakOpsPerSec', 'reads'),
      avgWrites: best('opsPerSec', 'writes'),
      peakWrites: best('peakOpsPerSec', 'writes'),
      bestClients: bestStep?.clients ?? null,
      dataMiB: (docs * params.docSize) / MIB,
    },
    details: {
      docs,
      docSize: params.docSize,
      datasetRatio: params.datasetRatio ?? null,
      memSizeMB: memSizeMB ?? null,
      clients: clientCountsUpTo(params.maxClients),
    },
    ...(result ? { resultFile: `${ctx.relativeDir}/${RESULTS_FILE}` } : {}),
    ...(result && result.steps.length > 0 ? { kept: result } : {}),
  };
}

export const softlayer: Experiment<ResultDocument> = {
  name: 'softlayer',
  collections: [COLLECTION],
  description:
    'SoftLayer (2012): the 6:1 query:update sweep, clients 1..32, 512 KiB documents, the four throughput charts',
  parameters: PARAMETERS,
  sizing: {
    // The seed's Small server: 8 GiB of 512 KiB documents, clients 1..32; six 10 s steps per configuration here.
    full: {
      docs: 16_384,
      docSize: 512 * 1024,
      batchSize: 16,
      maxClients: 32,
      seconds: 10,
      warmup: 2,
      randomSeed: SEED,
    },
    scaled: 'docs',
    // 256 documents of 512 KiB = 128 MiB.
    defaultScale: 1 / 64,
    scaleNote: "--scale 1 = 16,384 documents of 512 KiB (8 GiB), the seed's Small data set",
  },
  // `--dataset-ratio 0.5,2` turns it into one configuration per ratio (smaller and larger than RAM).
  preset: [{ label: '6:1 sweep', writeConcern: { w: 1 } }],
  prepare,
  run,
  // Each configuration's sweep and its report; finish's report of them all in comparison/.
  files: {
    configuration: [RESULTS_FILE, ...reportFileNames()],
    finish: reportFileNames().map((name) => `${COMPARISON_DIR}/${name}`),
  },
  measures: [
    { key: 'avgReads', csv: 'best_avg_reads_per_s', title: 'Best avg reads', unit: 'ops/s' },
    { key: 'peakReads', csv: 'best_peak_reads_per_s', title: 'Best peak reads', unit: 'ops/s' },
    { key: 'avgWrites', csv: 'best_avg_writes_per_s', title: 'Best avg writes', unit: 'ops/s' },
    { key: 'peakWrites', csv: 'best_peak_writes_per_s', title: 'Best peak writes', unit: 'ops/s' },
    {
      key: 'bestClients',
      csv: 'clients_at_best_avg_reads',
      title: 'Clients at best avg reads',
      unit: 'count',
    },
    { key: 'dataMiB', csv: 'data_mib', title: 'Data set', unit: 'MiB' },
  ],
  charts: [
    {
      file: 'best-avg-reads.png',
      title: 'Best average read operations per second',
      yTitle: 'reads/sec (best client count)',
      measures: ['avgReads'],
      scale: 'linear',
    },
    {
      file: 'best-peak-reads.png',
      title: 'Best peak read operations per second',
      yTitle: 'reads/sec (best second)',
      measures: ['peakReads'],
      scale: 'linear',
    },
    {
      file: 'best-avg-writes.png',
      title: 'Best average write operations per second',
      yTitle: 'writes/sec (best client count)',
      measures: ['avgWrites'],
      scale: 'linear',
    },
    {
      file: 'best-peak-writes.png',
      title: 'Best peak write operations per second',
      yTitle: 'writes/sec (best second)',
      measures: ['peakWrites'],
      scale: 'linear',
    },
  ],
  /** The four SoftLayer charts with one line per configuration. */
  async finish(results, outDir) {
    if (results.length < 2) return undefined;
    await writeReport(results, join(outDir, COMPARISON_DIR));
    return 'comparison/: the SoftLayer charts with one line per configuration.';
  },
};
