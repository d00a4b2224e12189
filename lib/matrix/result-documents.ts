/**
 * A configuration's measurement as a normal result document (mongo-bench/result@1), one step, so
 * `mongo-bench report` can render or compare it. MOST counts each inserted document as a write (a
 * 256-document insertMany is 256 writes) while write latency is per insertMany; reads are findOne by _id,
 * found or not.
 */
import { BSON, ObjectId } from 'mongodb';
import { LatencyRecorder } from '../metrics/latency';
import { StepMeasurement } from '../metrics/measurement';
import { RESULT_SCHEMA, ResultDocument } from '../metrics/result';
import { summarizeStep } from '../metrics/step-result';
import { toolInfo } from '../version';
import { MostMeasurement, MostParams } from '../experiments/most';
import { WriteConcernLatencyMeasurement, WriteConcernLatencyParams } from '../experiments/write-concern-latency';
import { MatrixConfiguration } from './types';

export interface ResultContext {
  config: MatrixConfiguration;
  target: ResultDocument['target'];
  ns: string;
  startedAt: Date;
  finishedAt: Date;
  matrix: string;
}

function errorTallies(count: number, example: string | undefined): StepMeasurement['errorTallies'] {
  return count > 0 ? [{ error: 'write failed', count, example: example ?? '' }] : [];
}

function base(ctx: ResultContext, workload: ResultDocument['workload'], config: Record<string, unknown>, complete: boolean, reason?: string): Omit<ResultDocument, 'steps'> {
  const doc: Omit<ResultDocument, 'steps'> = {
    schema: RESULT_SCHEMA,
    tool: toolInfo(),
    label: ctx.config.label,
    complete,
    startedAt: ctx.startedAt.toISOString(),
    finishedAt: ctx.finishedAt.toISOString(),
    target: ctx.target,
    workload,
    config: { matrix: ctx.matrix, writeConcern: ctx.config.writeConcern ?? null, capped: ctx.config.capped ?? false, readPreference: ctx.config.readPreference ?? 'primary', ns: ctx.ns, ...config },
  };
  if (reason) doc.incompleteReason = reason;
  return doc;
}

export function mostResult(ctx: ResultContext, params: MostParams, m: MostMeasurement): ResultDocument {
  const byOp = new Map<string, LatencyRecorder>([
    ['insertMany', m.latency.insertMany],
    ['findOne', m.latency.findOne],
  ]);
  const measurement: StepMeasurement = {
    clients: params.writers + params.readers,
    seconds: Math.max(1, Math.ceil(m.elapsedSeconds)),
    elapsedSeconds: m.elapsedSeconds,
    interrupted: m.interrupted,
    reads: m.reads.hits + m.reads.misses,
    writes: m.docsWritten,
    errors: m.writeErrors + m.reads.errors,
    latency: { reads: m.latency.findOne, writes: m.latency.insertMany, byOp },
    perSecond: m.perSecond,
    errorTallies: errorTallies(m.writeErrors, m.firstWriteError),
  };
  const step = summarizeStep([measurement]);
  const workload = {
    name: 'most',
    ops: [
      { op: 'insert', ns: ctx.ns, batch: params.batchSize, docs: `_id 1..${params.docs}`, writeConcern: ctx.config.writeConcern ?? null },
      { op: 'findOne', ns: ctx.ns, query: { _id: `${params.docs}..1` }, readPreference: ctx.config.readPreference ?? 'primary' },
    ],
    docs: params.docs,
    docSize: m.docBytes,
  };
  const config = { ...params, readsFound: m.reads.hits, readsMissed: m.reads.misses, writeSeconds: m.writeSeconds, readSeconds: m.readSeconds, cappedSizeBytes: m.cappedSizeBytes ?? null };
  return { ...base(ctx, workload, config, !m.interrupted, m.interrupted ? 'interrupted' : undefined), steps: [step] };
}

export function latencyResult(ctx: ResultContext, params: WriteConcernLatencyParams, m: WriteConcernLatencyMeasurement): ResultDocument {
  const measurement: StepMeasurement = {
    clients: 1,
    seconds: Math.max(1, Math.ceil(m.elapsedSeconds)),
    elapsedSeconds: m.elapsedSeconds,
    interrupted: m.interrupted,
    reads: 0,
    writes: m.samplesMs.length,
    errors: m.errors,
    latency: { reads: new LatencyRecorder(), writes: m.recorder, byOp: new Map([['insert', m.recorder]]) },
    perSecond: { reads: m.perSecond.map(() => 0), writes: m.perSecond, errors: m.perSecond.map(() => 0) },
    errorTallies: errorTallies(m.errors, m.firstError),
  };
  const step = summarizeStep([measurement]);
  const workload = { name: 'write-concern-latency', ops: [{ op: 'insert', ns: ctx.ns, doc: { a: 1, b: 'hat' }, writeConcern: ctx.config.writeConcern ?? null }], docs: m.samplesMs.length, docSize: BSON.calculateObjectSize({ _id: new ObjectId(), a: 1, b: 'hat' }) };
  const config = { ...params, keptRound: params.rounds, discardedRoundAvgMs: m.discardedAvgMs, exactMs: m.stats };
  return { ...base(ctx, workload, config, !m.interrupted, m.interrupted ? 'interrupted' : undefined), steps: [step] };
}
