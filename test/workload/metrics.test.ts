import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LatencyRecorder } from '../../lib/metrics/latency';
import { StepMeasurement } from '../../lib/metrics/measurement';
import { summarizeStep } from '../../lib/workload/engine/op-figures';
import { mean, median, stdev, trialStats } from '../../lib/metrics/trial-stats';
import { redactUri } from '../../lib/security/redact';
import { writeResultFile, RESULT_SCHEMA, ResultDocument } from '../../lib/result';
import { formatStepTable } from '../../lib/metrics/format-step';
import { clientCountsUpTo } from '../../lib/workload/language/sweep';

function recorder(values: number[]): LatencyRecorder {
  const r = new LatencyRecorder();
  for (const v of values) r.record(v);
  return r;
}

function measurement(
  reads: number[],
  writes: number[],
  perSecond: { reads: number[]; writes: number[]; errors: number[] },
  elapsedSeconds: number,
): StepMeasurement {
  return {
    clients: 4,
    seconds: perSecond.reads.length,
    elapsedSeconds,
    interrupted: false,
    reads: reads.length,
    writes: writes.length,
    errors: perSecond.errors.reduce((s, e) => s + e, 0),
    latency: {
      reads: recorder(reads),
      writes: recorder(writes),
      byOp: new Map([
        ['findOne', recorder(reads)],
        ['update', recorder(writes)],
      ]),
    },
    perSecond,
    errorTallies: [
      {
        error: 'DuplicateKey (11000)',
        count: perSecond.errors.reduce((s, e) => s + e, 0),
        example: 'E11000 duplicate key',
      },
    ],
  };
}

describe('latency recorder', () => {
  it('summarizes percentiles (3 significant digits), exact average and max', () => {
    const values = Array.from({ length: 1000 }, (_, i) => i + 1); // 1..1000 µs
    const s = recorder(values).summary();
    expect(s.count).toBe(1000);
    expect(s.avg).toBe(500.5);
    expect(s.p50).toBe(500);
    expect(s.p95).toBe(950);
    expect(s.p99).toBe(990);
    expect(s.p999).toBe(999);
    expect(s.max).toBe(1000);
  });

  it('never reports a percentile above the max, and clamps huge values', () => {
    const s = recorder([10_361, 10_362, 5]).summary();
    expect(s.p999).toBeLessThanOrEqual(s.max);
    const big = recorder([1e13]).summary();
    expect(big.max).toBeGreaterThan(3.5e9);
  });

  it('refuses a latency <= 0 (a timing bug, never clamped into the sum) and keeps the exact min through encoding and merging', () => {
    const r = new LatencyRecorder();
    expect(() => r.record(0)).toThrow(RangeError);
    expect(() => r.record(-20)).toThrow(/positive number of microseconds, got -20/);
    expect(() => r.record(NaN)).toThrow(RangeError);
    expect(r.count).toBe(0);
    expect(r.sum).toBe(0);
    expect(r.min).toBeUndefined();
    expect(r.summary().min).toBeUndefined();
    r.record(0.4);
    r.record(250);
    expect(r.min).toBe(0.4);
    expect(r.summary()).toMatchObject({ min: 0.4, max: 250, count: 2, avg: 125.2 });
    const decoded = LatencyRecorder.decode(r.encode());
    expect(decoded.min).toBe(0.4);
    const other = recorder([0.1]);
    decoded.add(other);
    expect(decoded.summary().min).toBe(0.1);
    // A recorder encoded without a min (as before it was kept) decodes without one.
    const { minMicros: _drop, ...old } = recorder([5]).encode();
    expect(LatencyRecorder.decode(old).min).toBeUndefined();
  });

  it('keeps a fixed footprint however many values it records', () => {
    const r = new LatencyRecorder();
    const before = r.histogram.estimatedFootprintInBytes;
    for (let i = 0; i < 200_000; i++) r.record(((i * 7919) % 5_000_000) + 1);
    expect(r.histogram.estimatedFootprintInBytes).toBe(before);
  });
});

describe('trial statistics', () => {
  it('mean, median and sample stdev', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(stdev([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(2.138, 3);
    expect(stdev([7])).toBe(0);
    expect(trialStats([100, 110, 90])).toEqual({
      mean: 100,
      median: 100,
      stdev: 10,
      values: [100, 110, 90],
    });
  });
});

describe('summarizeStep', () => {
  const t1 = measurement(
    [100, 200, 300, 400, 500, 600],
    [1000],
    { reads: [4, 2], writes: [0, 1], errors: [0, 2] },
    2,
  );
  const t2 = measurement(
    [100, 100, 100],
    [2000, 3000],
    { reads: [1, 2], writes: [1, 1], errors: [0, 0] },
    2,
  );

  it('merges trials: sums counts, divides by elapsed time, takes the peak second, merges histograms', () => {
    const step = summarizeStep([t1, t2]);
    expect(step.trials).toBe(2);
    expect(step.ops).toEqual({ reads: 9, writes: 3, errors: 2 });
    expect(step.opsPerSec).toEqual({ total: 3, reads: 2.3, writes: 0.8 });
    expect(step.peakOpsPerSec).toEqual({ total: 4, reads: 4, writes: 1 });
    expect(step.latencyMicros.reads.count).toBe(9);
    expect(step.latencyMicros.writes.max).toBe(3000);
    expect(step.latencyByOpMicros?.update.count).toBe(3);
    expect(step.perSecond).toEqual([
      { t: 0, reads: 4, writes: 0, errors: 0, trial: 1 },
      { t: 1, reads: 2, writes: 1, errors: 2, trial: 1 },
      { t: 0, reads: 1, writes: 1, errors: 0, trial: 2 },
      { t: 1, reads: 2, writes: 1, errors: 0, trial: 2 },
    ]);
    expect(step.trialStats?.opsPerSec.values).toEqual([3.5, 2.5]);
    expect(step.trialStats?.opsPerSec.mean).toBe(3);
    expect(step.errorSamples).toEqual([
      { error: 'DuplicateKey (11000)', count: 2, example: 'E11000 duplicate key' },
    ]);
  });

  it("fills benchRun's own fields", () => {
    const step = summarizeStep([t1]);
    expect(step.benchRun).toMatchObject({
      totalOps: 7,
      'totalOps/s': 3.5,
      errCount: 2,
      findOne: 3,
      update: 0.5,
      findOnes: 6,
      updates: 1,
      insert: 0,
      query: 0,
    });
    expect(step.benchRun.findOneLatencyAverageMicros).toBe(350);
    expect(step.benchRun.updateLatencyAverageMicros).toBe(1000);
    expect(step.benchRun.insertLatencyAverageMicros).toBeUndefined();
    expect(step.perSecond[0].trial).toBeUndefined();
    expect(step.trialStats).toBeUndefined();
  });

  it('formats a table with reads, writes, total and the errors', () => {
    const text = formatStepTable(summarizeStep([t1]));
    expect(text).toMatch(/^clients 4: 2 s x 1 trial\n/);
    expect(text).toMatch(/^reads\s+6\s+3\.0\s+4\s+350\s/m);
    expect(text).toMatch(/^writes\s+1\s+0\.5\s+1\s+1,000\s/m);
    // The first kind carries the server's own message.
    expect(text).toContain('errors: 2 (DuplicateKey (11000) x2: E11000 duplicate key)');
    // A p99 from 6 samples is printed as its sample count, not as a number.
    expect(text).toMatch(/^reads\s.*\s6 samples\s+6 samples\s/m);
  });
});

describe('sweep client counts', () => {
  it('doubles from 1 and ends at the maximum', () => {
    expect(clientCountsUpTo(64)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(clientCountsUpTo(48)).toEqual([1, 2, 4, 8, 16, 32, 48]);
    expect(clientCountsUpTo(1)).toEqual([1]);
  });
});

describe('redactUri', () => {
  it.each([
    [
      'mongodb://user:secret@host:27017/db?authSource=admin',
      'mongodb://user:****@host:27017/db?authSource=admin',
    ],
    ['mongodb+srv://u:p%40ss@cluster.example.net/', 'mongodb+srv://u:****@cluster.example.net/'],
    ['mongodb://onlyuser@h1,h2/?replicaSet=rs', 'mongodb://onlyuser@h1,h2/?replicaSet=rs'],
    [
      'mongodb://h/?tlsCertificateKeyFilePassword=x&w=1',
      'mongodb://h/?tlsCertificateKeyFilePassword=****&w=1',
    ],
    ['mongodb://127.0.0.1:27017', 'mongodb://127.0.0.1:27017'],
  ])('%s -> %s', (uri, expected) => {
    expect(redactUri(uri)).toBe(expected);
  });
});

describe('writeResultFile', () => {
  it('writes atomically: the complete document, no temp file left behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-result-'));
    try {
      const doc: ResultDocument = {
        schema: RESULT_SCHEMA,
        tool: { name: 'mongo-bench', version: '0' },
        label: 'x',
        complete: false,
        startedAt: new Date(0).toISOString(),
        target: { uri: 'mongodb://h', topology: 'standalone' },
        workload: { name: 'w', ops: [] },
        config: {},
        steps: [],
      };
      const path = join(dir, 'nested', 'results.json');
      await writeResultFile(path, doc);
      await writeResultFile(path, { ...doc, complete: true });
      expect(JSON.parse(readFileSync(path, 'utf8')).complete).toBe(true);
      expect(readdirSync(join(dir, 'nested'))).toEqual(['results.json']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
