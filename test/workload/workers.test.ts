/** The pieces of a parallel step that need no server: merging, encoding, client slices, ticks, saturation. */
import { LatencyRecorder } from '../../lib/metrics/latency';
import { decodeMeasurement, encodeMeasurement } from '../../lib/metrics/measurement-codec';
import { StepMeasurement } from '../../lib/metrics/measurement';
import {
  mergeConcurrentMeasurements,
  mergeErrorTallies,
} from '../../lib/metrics/merge-measurements';
import { summarizeStep } from '../../lib/workload/engine/op-figures';
import {
  ClientLoad,
  isClientBound,
  mergeClientLoads,
  sweepAdvice,
  workersNeeded,
} from '../../lib/metrics/client-load';
import { formatStepTable } from '../../lib/metrics/format-step';
import { autoWorkers, splitClients, workersForStep } from '../../lib/workload/engine/parallel-step';
import { TickMerger } from '../../lib/workload/engine/worker-ticks';
import { TickEvent } from '../../lib/workload/engine/engine';
import { decodeStepWorkload, encodeStepWorkload } from '../../lib/workload/engine/worker-workload';
import { ObjectId } from 'mongodb';
import { unplannedWrites } from '../../lib/workload/engine/write-handles';

/** These tests bind ops on servers they start themselves, with no write plan. */
const TEST_WRITES = unplannedWrites('test/workload/workers.test.ts');

function recorder(values: number[]): LatencyRecorder {
  const r = new LatencyRecorder();
  for (const v of values) r.record(v);
  return r;
}

function measurement(part: Partial<StepMeasurement> & { readMicros: number[] }): StepMeasurement {
  const reads = recorder(part.readMicros);
  return {
    clients: 8,
    seconds: 3,
    elapsedSeconds: 3,
    interrupted: false,
    reads: part.readMicros.length,
    writes: 0,
    errors: 0,
    latency: {
      reads,
      writes: new LatencyRecorder(),
      byOp: new Map([['findOne', recorder(part.readMicros)]]),
    },
    perSecond: { reads: [0, 0, 0], writes: [0, 0, 0], errors: [0, 0, 0] },
    errorTallies: [],
    ...part,
  };
}

describe('merging the measurements of several workers', () => {
  // Worker A: 900 fast reads (100 µs); worker B: 100 slow ones (10 ms).
  const fast = measurement({
    readMicros: Array<number>(900).fill(100),
    perSecond: { reads: [300, 300, 300], writes: [0, 0, 0], errors: [0, 1, 0] },
    elapsedSeconds: 3.01,
  });
  const slow = measurement({
    readMicros: Array<number>(100).fill(10_000),
    perSecond: { reads: [40, 30, 30], writes: [0, 0, 0], errors: [2, 0, 0] },
    elapsedSeconds: 3.2,
  });

  it("takes percentiles from the merged histogram, not the average of the workers' percentiles", () => {
    const merged = mergeConcurrentMeasurements([fast, slow]);
    const p50s = [fast, slow].map((m) => m.latency.reads.summary().p50);
    const averagedP50 = (p50s[0] + p50s[1]) / 2; // 5,050 µs: what averaging would wrongly report
    const summary = merged.latency.reads.summary();
    expect(summary.count).toBe(1000);
    expect(summary.p50).toBe(100);
    expect(averagedP50).toBeGreaterThan(5000);
    expect(summary.p95).toBeGreaterThanOrEqual(9990);
    expect(summary.avg).toBe((900 * 100 + 100 * 10_000) / 1000);
    expect(merged.latency.byOp.get('findOne')?.count).toBe(1000);
  });

  it('adds counts and per-second buckets, keeps the longest elapsed time', () => {
    const merged = mergeConcurrentMeasurements([fast, slow]);
    expect(merged.reads).toBe(1000);
    expect(merged.perSecond.reads).toEqual([340, 330, 330]);
    expect(merged.perSecond.errors).toEqual([2, 1, 0]);
    expect(merged.elapsedSeconds).toBe(3.2);
    expect(merged.interrupted).toBe(false);
  });

  it('an interrupted worker with fewer buckets: the merge is as long as the longest, and interrupted', () => {
    const cut = measurement({
      readMicros: [200],
      interrupted: true,
      perSecond: { reads: [1], writes: [0], errors: [0] },
      elapsedSeconds: 0.5,
      lostServer: 'MongoNetworkError: gone',
    });
    const merged = mergeConcurrentMeasurements([fast, cut]);
    expect(merged.perSecond.reads).toEqual([301, 300, 300]);
    expect(merged.interrupted).toBe(true);
    expect(merged.lostServer).toBe('MongoNetworkError: gone');
  });

  it('adds error tallies by kind, keeping the first example, and folds past 20 kinds', () => {
    const a = [{ error: 'DuplicateKey (11000)', count: 2, example: 'E11000 a' }];
    const b = [
      { error: 'DuplicateKey (11000)', count: 3, example: 'E11000 b' },
      { error: 'MongoNetworkTimeoutError', count: 1, example: 't' },
    ];
    expect(mergeErrorTallies([a, b])).toEqual([
      { error: 'DuplicateKey (11000)', count: 5, example: 'E11000 a' },
      { error: 'MongoNetworkTimeoutError', count: 1, example: 't' },
    ]);
    const many = Array.from({ length: 25 }, (_, i) => ({
      error: `kind ${i}`,
      count: 1,
      example: '',
    }));
    const folded = mergeErrorTallies([many]);
    expect(folded).toHaveLength(21);
    expect(folded.reduce((s, t) => s + t.count, 0)).toBe(25);
  });

  it('a measurement survives the trip to the parent: histogram counts exact', () => {
    const back = decodeMeasurement(structuredClone(encodeMeasurement(slow)));
    expect(back.latency.reads.summary()).toEqual(slow.latency.reads.summary());
    expect(back.latency.byOp.get('findOne')?.summary()).toEqual(
      slow.latency.byOp.get('findOne')?.summary(),
    );
    expect(back.perSecond).toEqual(slow.perSecond);
  });
});

describe('client slices and worker counts', () => {
  it('splits clients into contiguous, even slices covering every client once', () => {
    expect(splitClients(10, 4)).toEqual([
      { first: 0, count: 2 },
      { first: 2, count: 3 },
      { first: 5, count: 2 },
      { first: 7, count: 3 },
    ]);
    expect(splitClients(3, 3)).toEqual([
      { first: 0, count: 1 },
      { first: 1, count: 1 },
      { first: 2, count: 1 },
    ]);
    expect(splitClients(1, 1)).toEqual([{ first: 0, count: 1 }]);
  });

  it('auto: one worker per core but one, never more than the clients, at least one', () => {
    expect(autoWorkers(64, 16)).toBe(15);
    expect(autoWorkers(4, 16)).toBe(4);
    expect(autoWorkers(64, 2)).toBe(1);
    expect(autoWorkers(8, 1)).toBe(1);
    expect(workersForStep(2, 8)).toBe(2);
    expect(workersForStep(16, 4)).toBe(4);
    expect(workersForStep(16, 'auto', 4)).toBe(3);
  });
});

describe('the workload crossing to a worker', () => {
  it('keeps BSON values (ObjectId, dates) and numbers as a workload file gives them', () => {
    const id = new ObjectId();
    const ops = [{ op: 'findOne', query: { _id: id, at: new Date(5), n: 3, f: 1.5 } }];
    const back = decodeStepWorkload(
      structuredClone(
        encodeStepWorkload({ ops, ns: 'a.b', writeConcern: { w: 1 }, writes: TEST_WRITES }),
      ),
    );
    const query = (back.ops[0] as { query: Record<string, unknown> }).query;
    expect(query._id).toBeInstanceOf(ObjectId);
    expect(String(query._id)).toBe(String(id));
    expect(query.at).toEqual(new Date(5));
    expect(query.n).toBe(3);
    expect(query.f).toBe(1.5);
    expect(back.writeConcern).toEqual({ w: 1 });
  });
});

describe('merging ticks', () => {
  const tick = (reads: number, measured: number): TickEvent => ({
    phase: 'measure',
    second: 0,
    reads,
    writes: 0,
    errors: 0,
    measured: { reads: measured, writes: 0, errors: 0 },
  });

  it('emits tick n once every running worker sent its n-th, with the sums', () => {
    const out: TickEvent[] = [];
    const merger = new TickMerger(2, (t) => out.push(t));
    merger.add(0, tick(10, 10));
    expect(out).toHaveLength(0);
    merger.add(1, tick(5, 5));
    expect(out).toEqual([tick(15, 15)]);
    merger.add(1, tick(7, 12));
    merger.finished(0);
    expect(out[1]).toEqual(tick(7, 22));
    merger.close();
  });

  it('does not wait for ever on a slow worker: what it sends late goes into the next tick', async () => {
    const out: TickEvent[] = [];
    const merger = new TickMerger(2, (t) => out.push(t));
    merger.add(0, tick(10, 10));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(out).toEqual([tick(10, 10)]);
    merger.add(1, tick(4, 4)); // worker 1's first tick, late
    merger.add(0, tick(10, 20));
    merger.add(1, tick(6, 10));
    expect(out).toHaveLength(2);
    expect(out[1].reads).toBe(20);
    expect(out[1].measured.reads).toBe(30);
    merger.close();
  });
});

describe('saturation', () => {
  const load = (elu: number[]): ClientLoad => ({
    workers: elu.length,
    eventLoopUtilization: elu,
    cpuPercent: 150,
    cores: 2,
  });

  it("a step is client-bound when any worker's loop was busier than 90%", () => {
    expect(isClientBound(load([0.5, 0.95]))).toBe(true);
    expect(isClientBound(load([0.9, 0.2]))).toBe(false);
  });

  it('several trials: per worker the busiest trial', () => {
    expect(mergeClientLoads([load([0.5, 0.2]), load([0.3, 0.95])])?.eventLoopUtilization).toEqual([
      0.5, 0.95,
    ]);
    expect(mergeClientLoads([])).toBeUndefined();
  });

  it('estimates the workers needed from the busiest loop, always more than it had', () => {
    expect(workersNeeded(load([1, 1]))).toBe(3); // 2 x 1.0 / 0.75 = 2.67
    expect(workersNeeded(load([0.95]))).toBe(2);
    expect(workersNeeded(load([1, 1, 1, 1, 1, 1]))).toBe(8);
  });

  it('summarizeStep records the load and the flag; the step table and the sweep advice say so', () => {
    const m = measurement({ readMicros: [100, 200], client: load([0.97]) });
    const step = summarizeStep([m]);
    expect(step.clientBound).toBe(true);
    expect(step.client?.eventLoopUtilization).toEqual([0.97]);
    expect(formatStepTable(step)).toContain(
      'CLIENT-BOUND: mongo-bench was the bottleneck here: these figures measure the load generator; use more workers or more machines',
    );
    expect(sweepAdvice([step])).toMatch(
      /bottleneck at 8 clients\. Estimate: about 2 worker threads \(--workers 2\) on 3 cores.*lower bound\. This machine has 2 cores/,
    );

    const calm = summarizeStep([measurement({ readMicros: [100], client: load([0.4]) })]);
    expect(calm.clientBound).toBe(false);
    expect(formatStepTable(calm)).not.toContain('CLIENT-BOUND');
    expect(sweepAdvice([calm])).toBeUndefined();
    // A measurement with no load recorded (an older engine) gets neither field.
    const old = summarizeStep([measurement({ readMicros: [100] })]);
    expect(old.clientBound).toBeUndefined();
    expect(old.client).toBeUndefined();
  });
});
