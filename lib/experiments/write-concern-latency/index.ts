/**
 * Server Density (2013): single inserts of {a: 1, b: 'hat'} one at a time per write concern, run in
 * rounds keeping the last, so the database's creation stays out of the figures.
 */
import { annotateResult } from '../../metrics/warnings';
import { join } from 'node:path';
import { BSON, ObjectId } from 'mongodb';
import { z } from 'zod';
import { LatencyRecorder } from '../../metrics/latency';
import { StepMeasurement } from '../../metrics/measurement';
import { ResultDocument, writeResultFile } from '../../result';
import { summarizeStep } from '../../workload/engine/op-figures';
import { RESULTS_FILE } from '../../run/benchmark';
import { driverWriteConcern, dropOwn, dropQuietly } from '../configuration';
import {
  readConfigurationStorage,
  STORAGE_MEASURES,
  storageMeasures,
  withStorage,
} from '../storage-measures';
import { Experiment, RunContext, RunOutcome } from '../experiment';
import { positiveInt } from '../parameters';
import { errorTallies, ResultContext, resultBase } from '../result-document';
import { JOURNAL_NOTE, MAPPING_NOTE } from '../write-concern-notes';
import {
  runWriteConcernLatency,
  WriteConcernLatencyMeasurement,
  WriteConcernLatencyParams,
} from './run-latency';

export * from './run-latency';

const COLLECTION = 'insertTest';

const PARAMETERS = z
  .object({ inserts: positiveInt('inserts'), rounds: positiveInt('rounds') })
  .strict();
type LatencyParameters = z.output<typeof PARAMETERS>;

export function latencyResult(
  ctx: ResultContext,
  params: WriteConcernLatencyParams,
  m: WriteConcernLatencyMeasurement,
): ResultDocument {
  const measurement: StepMeasurement = {
    clients: 1,
    seconds: Math.max(1, Math.ceil(m.elapsedSeconds)),
    elapsedSeconds: m.elapsedSeconds,
    interrupted: m.interrupted,
    reads: 0,
    writes: m.samplesMs.length,
    errors: m.errors,
    latency: {
      reads: new LatencyRecorder(),
      writes: m.recorder,
      byOp: new Map([['insert', m.recorder]]),
    },
    perSecond: {
      reads: m.perSecond.map(() => 0),
      writes: m.perSecond,
      errors: m.perSecond.map(() => 0),
    },
    errorTallies: errorTallies(m.errors, m.firstError),
  };
  const workload = {
    name: 'write-concern-latency',
    ops: [
      {
        op: 'insert',
        ns: ctx.ns,
        doc: { a: 1, b: 'hat' },
        writeConcern: ctx.config.writeConcern ?? null,
      },
    ],
    docs: m.samplesMs.length,
    docSize: BSON.calculateObjectSize({ _id: new ObjectId(), a: 1, b: 'hat' }),
  };
  const config = {
    ...params,
    keptRound: params.rounds,
    discardedRoundAvgMs: m.discardedAvgMs,
    exactMs: m.stats,
  };
  return {
    ...resultBase(ctx, workload, config, m.interrupted),
    steps: [summarizeStep([measurement])],
  };
}

async function run(ctx: RunContext): Promise<RunOutcome> {
  const params = ctx.parameters as LatencyParameters;
  const startedAt = new Date();
  // Each write concern starts from a missing collection; the first (discarded) round creates it, as in the seed.
  await dropOwn(ctx.client, ctx.db, COLLECTION, ctx.guard);
  const m = await runWriteConcernLatency(
    ctx.client,
    ctx.db,
    COLLECTION,
    params,
    driverWriteConcern(ctx.config.writeConcern),
    { signal: ctx.signal },
  );
  // What the configuration's inserts cost on disk; the collection is dropped before the next one.
  const storage = await readConfigurationStorage(ctx.client, `${ctx.db}.${COLLECTION}`);
  const result = latencyResult(
    {
      config: ctx.config,
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
  const s = m.stats;
  const failed =
    m.errors > 0
      ? `${m.errors} of ${params.inserts} inserts failed, first: ${m.firstError}`
      : undefined;
  return {
    status: m.interrupted ? 'interrupted' : failed ? 'failed' : 'ok',
    reason: m.interrupted ? 'interrupted' : failed,
    measures:
      s.count > 0
        ? {
            ...{ avgMs: s.avg, minMs: s.min, maxMs: s.max, p50Ms: s.p50, p99Ms: s.p99 },
            inserts: s.count,
            ...storageMeasures(storage),
          }
        : { inserts: 0, ...storageMeasures(storage) },
    details: { discardedRoundAvgMs: m.discardedAvgMs, elapsedSeconds: m.elapsedSeconds },
    resultFile: `${ctx.relativeDir}/${RESULTS_FILE}`,
  };
}

export const writeConcernLatency: Experiment = {
  name: 'write-concern-latency',
  collections: [COLLECTION],
  description:
    'Server Density (2013): 200 single inserts of {a: 1, b: "hat"} per write concern w:0, w:1, j:true, w:2, w:3; avg/min/max/p50/p99 ms',
  parameters: PARAMETERS,
  sizing: {
    full: { inserts: 200, rounds: 2 },
    scaled: 'inserts',
    defaultScale: 1,
    scaleNote:
      '--scale 1 = 200 inserts per write concern, run twice keeping the second, as the seed',
  },
  preset: [
    ...[0, 1].map((w) => ({ label: `w:${w}`, writeConcern: { w } })),
    { label: 'j:true', writeConcern: { w: 1, j: true } },
    ...[2, 3].map((w) => ({ label: `w:${w}`, writeConcern: { w } })),
  ],
  run,
  files: { configuration: [RESULTS_FILE] },
  measures: [
    { key: 'avgMs', csv: 'avg_ms', title: 'Average', unit: 'ms' },
    { key: 'minMs', csv: 'min_ms', title: 'Min', unit: 'ms' },
    { key: 'maxMs', csv: 'max_ms', title: 'Max', unit: 'ms' },
    { key: 'p50Ms', csv: 'p50_ms', title: 'p50', unit: 'ms' },
    { key: 'p99Ms', csv: 'p99_ms', title: 'p99', unit: 'ms' },
    { key: 'inserts', csv: 'inserts_kept', title: 'Inserts kept', unit: 'count' },
    ...STORAGE_MEASURES,
  ],
  charts: [
    {
      file: 'insert-latency.png',
      title: 'Single-insert latency by write concern',
      yTitle: 'ms per insert (log scale)',
      measures: ['minMs', 'p50Ms', 'avgMs', 'p99Ms', 'maxMs'],
      scale: 'log',
    },
  ],
  notes: [JOURNAL_NOTE, MAPPING_NOTE],
  // The last configuration's collection is kept until the matrix ends.
  cleanUp: (client, db, guard) => dropQuietly(client, db, COLLECTION, guard),
};
