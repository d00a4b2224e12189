/**
 * A StepMeasurement as plain, structured-cloneable data, for the trip from a worker thread to the
 * parent: histograms travel in HdrHistogram's own encoding (exact counts), the rest as is.
 */
import { EncodedLatency, LatencyRecorder } from './latency';
import { OpLatency, StepMeasurement } from './measurement';

export type EncodedMeasurement = Omit<StepMeasurement, 'latency'> & {
  latency: {
    reads: EncodedLatency;
    writes: EncodedLatency;
    byOp: [string, EncodedLatency][];
    byIndex?: Array<Omit<OpLatency, 'recorder'> & { recorder: EncodedLatency }>;
  };
};

export function encodeMeasurement(m: StepMeasurement): EncodedMeasurement {
  const { latency, ...rest } = m;
  return {
    ...rest,
    latency: {
      reads: latency.reads.encode(),
      writes: latency.writes.encode(),
      byOp: [...latency.byOp].map(([type, r]) => [type, r.encode()]),
      ...(latency.byIndex
        ? { byIndex: latency.byIndex.map((o) => ({ ...o, recorder: o.recorder.encode() })) }
        : {}),
    },
  };
}

export function decodeMeasurement(e: EncodedMeasurement): StepMeasurement {
  const { latency, ...rest } = e;
  return {
    ...rest,
    latency: {
      reads: LatencyRecorder.decode(latency.reads),
      writes: LatencyRecorder.decode(latency.writes),
      byOp: new Map(latency.byOp.map(([type, r]) => [type, LatencyRecorder.decode(r)])),
      ...(latency.byIndex
        ? {
            byIndex: latency.byIndex.map((o) => ({
              ...o,
              recorder: LatencyRecorder.decode(o.recorder),
            })),
          }
        : {}),
    },
  };
}
