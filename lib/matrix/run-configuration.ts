/**
 * Runs one configuration of a matrix with its experiment's measurement loop and returns its row and
 * result document. The runner decides before this whether the configuration can run at all.
 */
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { RunError } from '../config/errors';
import { ResultDocument } from '../metrics/result';
import { writeResultFile } from '../metrics/result-file';
import { loadResult } from '../report/load-result';
import { writeReport } from '../report/write-report';
import { runMost } from '../experiments/most';
import { runWriteConcernLatency } from '../experiments/write-concern-latency';
import { runBenchmark, RESULTS_FILE } from '../workload/benchmark';
import { presetOps } from '../workload/presets';
import { clientCountsUpTo } from '../workload/sweep';
import { LatencyParameters, MostParameters, SoftlayerParameters } from './parameters';
import { MatrixRunOptions, PlannedConfiguration } from './plan';
import { latencyResult, mostResult } from './result-documents';
import { driverWriteConcern } from './settings';
import { runPresplitConfiguration } from './presplit-import';
import { PresplitImportResult } from '../experiments/presplit-import/result';
import { MatrixRow } from './types';

const MIB = 1024 * 1024;

export const COLLECTIONS = { most: 'most', latency: 'insertTest', softlayer: 'softlayer' } as const;

export interface ConfigurationContext {
  client: MongoClient;
  options: MatrixRunOptions;
  target: ResultDocument['target'];
  planned: PlannedConfiguration;
  /** The server's RAM (MiB), for softlayer's dataset ratio. */
  memSizeMB?: number;
  signal?: AbortSignal;
  progress: (text: string) => void;
}

export interface ConfigurationOutcome {
  status: MatrixRow['status'];
  reason?: string;
  measures: MatrixRow['measures'];
  details: Record<string, unknown>;
  result?: ResultDocument;
  /** Where the configuration's result is, relative to the matrix folder (default: <dir>/results.json). */
  resultFile?: string;
  /** presplit-import: the way's result, drawn with the other ways at the end. */
  presplitResult?: PresplitImportResult;
}

function pct(share: number | null): number | null {
  return share === null ? null : share * 100;
}

async function runMostConfiguration(ctx: ConfigurationContext): Promise<ConfigurationOutcome> {
  const { config } = ctx.planned;
  const params = ctx.planned.parameters as MostParameters;
  const startedAt = new Date();
  let lastShown = 0;
  const m = await runMost(
    ctx.client,
    ctx.options.db,
    COLLECTIONS.most,
    params,
    { writeConcern: driverWriteConcern(config.writeConcern), capped: config.capped === true, readPreference: config.readPreference },
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
  );
  await ctx.client.db(ctx.options.db).collection(COLLECTIONS.most).drop().catch(() => undefined);
  const result = mostResult({ config, target: ctx.target, ns: `${ctx.options.db}.${COLLECTIONS.most}`, startedAt, finishedAt: new Date(), matrix: ctx.options.definition.name }, params, m);
  const failed = m.writeErrors > 0 ? `${m.writeErrors} of ${m.writeBatches} insert batches failed, first: ${m.firstWriteError}` : undefined;
  return {
    status: m.interrupted ? 'interrupted' : failed ? 'failed' : 'ok',
    reason: m.interrupted ? 'interrupted' : failed,
    measures: { writeMiBps: m.writeMiBps, readMiBps: m.readMiBps, consistentPct: pct(m.consistentShare), missedReads: m.reads.misses, docs: m.docsWritten },
    details: {
      docBytes: m.docBytes,
      writeSeconds: m.writeSeconds,
      readSeconds: m.readSeconds,
      readsFound: m.reads.hits,
      readsMissed: m.reads.misses,
      readErrors: m.reads.errors,
      missedIdsSample: m.reads.missedSample,
      cappedSizeBytes: m.cappedSizeBytes ?? null,
    },
    result,
  };
}

async function runLatencyConfiguration(ctx: ConfigurationContext): Promise<ConfigurationOutcome> {
  const { config } = ctx.planned;
  const params = ctx.planned.parameters as LatencyParameters;
  const startedAt = new Date();
  // Each write concern starts from a missing collection; the first (discarded) round creates it, as in the seed.
  await ctx.client.db(ctx.options.db).collection(COLLECTIONS.latency).drop().catch(() => undefined);
  const m = await runWriteConcernLatency(ctx.client, ctx.options.db, COLLECTIONS.latency, params, driverWriteConcern(config.writeConcern), { signal: ctx.signal });
  const result = latencyResult({ config, target: ctx.target, ns: `${ctx.options.db}.${COLLECTIONS.latency}`, startedAt, finishedAt: new Date(), matrix: ctx.options.definition.name }, params, m);
  const s = m.stats;
  const failed = m.errors > 0 ? `${m.errors} of ${params.inserts} inserts failed, first: ${m.firstError}` : undefined;
  return {
    status: m.interrupted ? 'interrupted' : failed ? 'failed' : 'ok',
    reason: m.interrupted ? 'interrupted' : failed,
    measures: s.count > 0 ? { avgMs: s.avg, minMs: s.min, maxMs: s.max, p50Ms: s.p50, p99Ms: s.p99, inserts: s.count } : { inserts: 0 },
    details: { discardedRoundAvgMs: m.discardedAvgMs, elapsedSeconds: m.elapsedSeconds },
    result,
  };
}

/** Documents for a dataset of `ratio` x RAM. */
export function docsForRatio(ratio: number, memSizeMB: number, docSize: number): number {
  return Math.max(1, Math.ceil((ratio * memSizeMB * MIB) / docSize));
}

async function runSoftlayerConfiguration(ctx: ConfigurationContext): Promise<ConfigurationOutcome> {
  const { config } = ctx.planned;
  const params = ctx.planned.parameters as SoftlayerParameters;
  const ns = `${ctx.options.db}.${COLLECTIONS.softlayer}`;
  // The runner has checked that the RAM is known whenever a ratio is given.
  const docs = params.datasetRatio !== undefined && ctx.memSizeMB !== undefined ? docsForRatio(params.datasetRatio, ctx.memSizeMB, params.docSize) : params.docs;
  const dir = join(ctx.options.outDir, ctx.planned.dir);
  let result: ResultDocument | undefined;
  let failure: string | undefined;
  try {
    result = await runBenchmark(
      {
        uri: ctx.options.uri,
        workload: { name: '6to1', ops: presetOps('6to1', { ns, docs, docSize: params.docSize }) },
        ns,
        clients: clientCountsUpTo(params.maxClients),
        seconds: params.seconds,
        warmupSeconds: params.warmup,
        trials: 1,
        load: true,
        docs,
        docSize: params.docSize,
        batchSize: params.batchSize,
        writeConcern: config.writeConcern as Record<string, unknown> | undefined,
        label: config.label,
        outDir: dir,
        randomSeed: params.randomSeed,
        serverSelectionTimeoutMS: ctx.options.serverSelectionTimeoutMS,
        testDouble: ctx.options.testDouble,
      },
      {
        signal: ctx.signal,
        onEvent: (e) => {
          if (e.type === 'load-done') ctx.progress(`loaded ${e.docs} documents of ${params.docSize} bytes in ${e.seconds.toFixed(1)} s`);
          if (e.type === 'step-done') ctx.progress(`clients ${e.step.clients}: ${Math.round(e.step.opsPerSec.reads)} reads/s, ${Math.round(e.step.opsPerSec.writes)} writes/s (peak ${e.step.peakOpsPerSec.reads} / ${e.step.peakOpsPerSec.writes})`);
        },
      },
    );
  } catch (err) {
    if (!(err instanceof RunError)) throw err;
    failure = err.message;
    // The engine wrote the steps that finished before the failure.
    result = await loadResult(join(dir, RESULTS_FILE)).catch(() => undefined);
  }
  await ctx.client.db(ctx.options.db).collection(COLLECTIONS.softlayer).drop().catch(() => undefined);
  const steps = result?.steps.filter((s) => s.status !== 'failed') ?? [];
  const best = <K extends 'opsPerSec' | 'peakOpsPerSec'>(key: K, kind: 'reads' | 'writes') => (steps.length ? Math.max(...steps.map((s) => s[key][kind])) : null);
  const bestStep = steps.reduce<(typeof steps)[number] | undefined>((b, s) => (!b || s.opsPerSec.reads > b.opsPerSec.reads ? s : b), undefined);
  if (result && result.steps.length > 0) {
    // The four SoftLayer charts (and the latency and timeline charts) of this configuration.
    await writeReport([result], dir);
  }
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
    details: { docs, docSize: params.docSize, datasetRatio: params.datasetRatio ?? null, memSizeMB: ctx.memSizeMB ?? null, clients: clientCountsUpTo(params.maxClients) },
    result,
  };
}

async function runPresplitImportConfiguration(ctx: ConfigurationContext): Promise<ConfigurationOutcome> {
  const { result, ...outcome } = await runPresplitConfiguration({
    uri: ctx.options.uri,
    db: ctx.options.db,
    parameters: ctx.planned.parameters,
    config: ctx.planned.config,
    dir: join(ctx.options.outDir, ctx.planned.dir),
    relativeDir: ctx.planned.dir,
    serverSelectionTimeoutMS: ctx.options.serverSelectionTimeoutMS,
    testDouble: ctx.target.testDouble === true,
    signal: ctx.signal,
    progress: ctx.progress,
  });
  return { ...outcome, presplitResult: result };
}

/** Runs the configuration; most and write-concern-latency results are written here, softlayer's and presplit-import's by their experiments. */
export async function runConfiguration(ctx: ConfigurationContext): Promise<ConfigurationOutcome> {
  const experiment = ctx.options.definition.experiment;
  if (experiment === 'presplit-import') return runPresplitImportConfiguration(ctx);
  const outcome =
    experiment === 'most' ? await runMostConfiguration(ctx) : experiment === 'write-concern-latency' ? await runLatencyConfiguration(ctx) : await runSoftlayerConfiguration(ctx);
  if (outcome.result && experiment !== 'softlayer') await writeResultFile(join(ctx.options.outDir, ctx.planned.dir, RESULTS_FILE), outcome.result);
  return outcome;
}
