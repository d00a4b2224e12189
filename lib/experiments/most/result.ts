/**
 * A MOST configuration as a result document: each inserted document counts as a write (a 256-document
 * insertMany is 256 writes) while write latency is per insertMany; reads are findOne by _id, found or not.
 */
import { LatencyRecorder } from '../../metrics/latency';
import { StepMeasurement } from '../../metrics/measurement';
import { ResultDocument } from '../../result';
import { summarizeStep } from '../../workload/engine/op-figures';
import { errorTallies, ResultContext, resultBase } from '../result-document';
import { MostMeasurement, MostParams } from './run-most';

export function mostResult(
  ctx: ResultContext,
  params: MostParams,
  m: MostMeasurement,
): ResultDocument {
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
  const workload = {
    name: 'most',
    ops: [
      {
        op: 'insert',
        ns: ctx.ns,
        batch: params.batchSize,
        docs: `_id 1..${params.docs}`,
        writeConcern: ctx.config.writeConcern ?? null,
      },
      {
        op: 'findOne',
        ns: ctx.ns,
        query: { _id: `${params.docs}..1` },
        readPreference: ctx.config.readPreference ?? 'primary',
      },
    ],
    docs: params.docs,
    docSize: m.docBytes,
  };
  const config = {
    ...params,
    readsFound: m.reads.hits,
    readsMissed: m.reads.misses,
    writeSeconds: m.writeSeconds,
    readSeconds: m.readSeconds,
    cappedSizeBytes: m.cappedSizeBytes ?? null,
  };
  return {
    ...resultBase(ctx, workload, config, m.interrupted),
    steps: [summarizeStep([measurement])],
  };
}
