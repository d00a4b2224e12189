/**
 * lib/metrics/warnings.ts on constructed steps: each code fires on what it names and stays quiet on a
 * clean step; annotateResult keeps the codes other parts of the run add; old results (no warnings) read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatStepTable } from '../../lib/metrics/format-step';
import {
  annotateResult,
  computeStepWarnings,
  percentileCell,
  warningLines,
} from '../../lib/metrics/warnings';
import { LatencySummary, ResultDocument, resultDocumentSchema, StepResult } from '../../lib/result';
import { resultStep } from '../support/results';

const lat = (count: number, p: number = 200): LatencySummary => ({
  avg: p,
  p50: p,
  p95: p,
  p99: p,
  p999: p,
  max: p,
  count,
});
const steadySeconds = (n: number, perSecond: number) =>
  Array.from({ length: n }, (_, t) => ({
    t,
    reads: Math.round(perSecond * (t % 2 === 0 ? 0.99 : 1.01)),
    writes: 0,
    errors: 0,
  }));

/** A healthy closed-model step: 20 s at ~5,000 reads/s. */
function cleanStep(fields: Partial<StepResult> = {}): StepResult {
  return resultStep({
    clients: 4,
    seconds: 20,
    ops: { reads: 100_000, writes: 0, errors: 0 },
    opsPerSec: { total: 5000, reads: 5000, writes: 0 },
    latencyMicros: { reads: lat(100_000), writes: lat(0) },
    perSecond: steadySeconds(20, 5000),
    ...fields,
  });
}

const codes = (step: StepResult, ops?: unknown[]) =>
  computeStepWarnings(step, ops ? { ops } : {}).warnings.map((w) => w.code);

describe('step warnings', () => {
  it('a clean, steady step of many samples has none, and its steadiness is recorded', () => {
    const { warnings, steadiness } = computeStepWarnings(cleanStep());
    expect(warnings).toEqual([]);
    expect(steadiness).toMatchObject({
      series: 'opsPerSec',
      perSecond: [{ n: 20, testable: true, trending: false }],
    });
    expect(steadiness?.note).toBeUndefined();
  });

  it('errors: above 1% of the ops, with the count and the first server message', () => {
    const step = cleanStep({
      ops: { reads: 0, writes: 0, errors: 8228 },
      errorSamples: [
        {
          error: 'FailedToParse (9)',
          count: 8228,
          example:
            'Unknown modifier: $sett. Expected a valid update modifier or pipeline-style update specified as an array',
        },
      ],
      perSecond: steadySeconds(20, 0),
    });
    const w = computeStepWarnings(step).warnings.find((x) => x.code === 'errors')!;
    expect(w.message).toBe(
      '8,228 of 8,228 ops failed (100%); first error: FailedToParse (9): Unknown modifier: $sett. Expected a valid update modifier or pipeline-style update specified as an array',
    );
    expect(w).toMatchObject({ count: 8228, share: 1 });
    expect(codes(cleanStep({ ops: { reads: 1000, writes: 0, errors: 10 } }))).not.toContain(
      'errors',
    ); // 0.99%
    expect(codes(cleanStep({ ops: { reads: 1000, writes: 0, errors: 11 } }))).toContain('errors');
  });

  it('few-samples: p99 from under 100, p99.9 from under 1,000, a step under 100 ops; displays print the sample count', () => {
    const step = cleanStep({
      ops: { reads: 11, writes: 2, errors: 0 },
      latencyMicros: { reads: lat(11), writes: lat(2) },
      perSecond: steadySeconds(10, 1),
    });
    const w = computeStepWarnings(step).warnings.find((x) => x.code === 'few-samples')!;
    expect(w.message).toBe(
      'too few samples: the step measured 13 ops (fewer than 100): reads p99 and p99.9 from 11 samples; writes p99 and p99.9 from 2 samples',
    );
    const mid = cleanStep({
      latencyMicros: { reads: lat(500), writes: lat(0) },
      ops: { reads: 500, writes: 0, errors: 0 },
    });
    expect(computeStepWarnings(mid).warnings.find((x) => x.code === 'few-samples')?.message).toBe(
      'too few samples: reads p99.9 from 500 samples',
    );
    expect(percentileCell(lat(12, 3000), 'p99', String)).toBe('12 samples');
    expect(percentileCell(lat(12, 3000), 'p50', String)).toBe('3000');
    expect(percentileCell(lat(100, 3000), 'p99', String)).toBe('3000');
    const table = formatStepTable({ ...step, warnings: computeStepWarnings(step).warnings });
    expect(table).toContain('11 samples');
    expect(table).toContain('warning [few-samples]: too few samples');
  });

  it('mix-not-held: a fixed cycle off by more than one pass per client; weighted picks by a binomial test', () => {
    const ops = [...Array(6).fill({ op: 'findOne', ns: 'a.b' }), { op: 'update', ns: 'a.b' }];
    const held = cleanStep({
      ops: { reads: 6000, writes: 1000, errors: 0 },
      latencyByOpMicros: { findOne: lat(6000), update: lat(1000) },
    });
    expect(codes(held, ops)).not.toContain('mix-not-held');
    // 4 clients: the writes may be 4 short of 1/7, not 1,000.
    const off = cleanStep({
      ops: { reads: 7000, writes: 0, errors: 0 },
      latencyByOpMicros: { findOne: lat(7000), update: lat(0) },
    });
    expect(codes(off, ops)).toContain('mix-not-held');
    // Within one pass per client: 12 ops at 4 clients, 0 writes (expected 1.7 +- 4) is not off by the rule.
    const small = cleanStep({
      ops: { reads: 12, writes: 0, errors: 0 },
      latencyByOpMicros: { findOne: lat(12), update: lat(0) },
    });
    expect(codes(small, ops)).not.toContain('mix-not-held');

    const weighted = [
      { op: 'findOne', weight: 9 },
      { op: 'insert', weight: 1 },
    ];
    expect(codes(cleanStep({ opCounts: [9030, 970] }), weighted)).not.toContain('mix-not-held');
    expect(codes(cleanStep({ opCounts: [8500, 1500] }), weighted)).toContain('mix-not-held');
  });

  it('not-steady: a closed step whose ops/s rises; an open step whose mean latency rises; trials in time order; n < 5 recorded', () => {
    const rising = Array.from({ length: 10 }, (_, t) => ({
      t,
      reads: 1000 + 200 * t,
      writes: 0,
      errors: 0,
    }));
    const w = computeStepWarnings(cleanStep({ perSecond: rising })).warnings.find(
      (x) => x.code === 'not-steady',
    )!;
    expect(w.message).toMatch(
      /^not in steady state: ops\/s moved \+\d+(\.\d)?% over 10 s \(Mann-Kendall p = /,
    );

    const arrival = {
      target: { kind: 'constant' as const, opsPerSecond: 1000 },
      lateAfterMs: 5,
      dropAfterMs: 500,
      scheduled: 10_000,
      dropped: 0,
      late: 0,
    };
    const slower = Array.from({ length: 10 }, (_, t) => ({
      t,
      reads: 1000,
      writes: 0,
      errors: 0,
      latencyAvgMicros: 300 + 100 * t,
    }));
    const open = computeStepWarnings(cleanStep({ arrival, perSecond: slower }));
    expect(open.steadiness?.series).toBe('latencyAvgMicros');
    expect(open.warnings.find((x) => x.code === 'not-steady')?.message).toMatch(
      /mean latency moved \+/,
    );
    // The open model's ops/s is set by its schedule: a flat latency is steady whatever the counts do.
    const flat = Array.from({ length: 10 }, (_, t) => ({
      t,
      reads: 500 + 100 * t,
      writes: 0,
      errors: 0,
      latencyAvgMicros: 300,
    }));
    expect(codes(cleanStep({ arrival, perSecond: flat }))).not.toContain('not-steady');

    // The JVM double's five trials: 1,148 ... 8,805 ops/s, each steady within itself.
    const means = [1148, 2690, 4027, 5123, 8805];
    const perSecond = means.flatMap((m, i) =>
      steadySeconds(5, m).map((s) => ({ ...s, trial: i + 1 })),
    );
    const trials = computeStepWarnings(
      cleanStep({
        trials: 5,
        perSecond,
        trialStats: { opsPerSec: { mean: 0, median: 0, stdev: 0, values: means } },
      }),
    );
    expect(trials.steadiness?.trials?.trending).toBe(true);
    expect(trials.warnings.find((x) => x.code === 'not-steady')?.message).toMatch(
      /the trials' ops\/s moved \+\d+/,
    );

    const short = computeStepWarnings(cleanStep({ perSecond: steadySeconds(3, 5000) }));
    expect(short.steadiness).toMatchObject({
      note: 'steadiness not testable (n < 5)',
      perSecond: [{ n: 3, testable: false }],
    });
    expect(short.warnings.map((x) => x.code)).not.toContain('not-steady');
  });

  it("timer-late: the open model's timers started ops late by a large share of their latency", () => {
    const arrival = {
      target: { kind: 'constant' as const, opsPerSecond: 100 },
      lateAfterMs: 5,
      dropAfterMs: 500,
      scheduled: 2000,
      dropped: 0,
      late: 0,
    };
    // 2,000 ops of 1.2 ms mean latency, 1,900 of which waited on a timer that woke them 0.8 ms late.
    const late = cleanStep({
      ops: { reads: 2000, writes: 0, errors: 0 },
      latencyMicros: { reads: lat(2000, 1200), writes: lat(0) },
      arrival: { ...arrival, timerWaits: 1900, timerLateMicrosAvg: 800 },
    });
    const warning = computeStepWarnings(late).warnings.find((w) => w.code === 'timer-late');
    expect(warning).toMatchObject({ timerWaits: 1900, timerLateMicrosAvg: 800 });
    expect(warning?.message).toMatch(
      /started 1,900 ops \(95%\) 0\.8 ms after their due time on average.*66\.7% of the mean latency \(1\.2 ms\)/,
    );
    // The same lateness under a 20 ms latency is noise; few waits (a saturated server: ops were already due) too.
    expect(
      codes(cleanStep({ ...late, latencyMicros: { reads: lat(2000, 20_000), writes: lat(0) } })),
    ).not.toContain('timer-late');
    expect(
      codes(
        cleanStep({ ...late, arrival: { ...arrival, timerWaits: 100, timerLateMicrosAvg: 800 } }),
      ),
    ).not.toContain('timer-late');
    // Older results have no timer figures: no warning.
    expect(codes(cleanStep({ ...late, arrival }))).not.toContain('timer-late');
    // Timers name the remedy; exact arrivals still late (a busy loop or machine) say so, with the p99.
    expect(warning?.message).toContain('--arrivals exact starts them within microseconds');
    const waitLateMicros = { ...lat(1900, 800), p99: 2500 };
    const exact = computeStepWarnings(
      cleanStep({
        ...late,
        arrival: {
          ...arrival,
          timerWaits: 1900,
          timerLateMicrosAvg: 800,
          waitLateMicros,
          arrivals: 'exact',
        },
      }),
    ).warnings.find((w) => w.code === 'timer-late');
    expect(exact?.message).toMatch(
      /waits started 1,900 ops \(95%\) 0\.8 ms after their due time on average, 2\.5 ms at p99/,
    );
    expect(exact?.message).toContain('too busy to start them on time');
    // Exact arrivals on time (a few µs late) are no share of the latency: no warning.
    expect(
      codes(
        cleanStep({
          ...late,
          arrival: { ...arrival, timerWaits: 1900, timerLateMicrosAvg: 6, arrivals: 'exact' },
        }),
      ),
    ).not.toContain('timer-late');
  });

  it('client-bound, probe-client-bound, nothing-scheduled, nothing-measured', () => {
    expect(codes(cleanStep({ clientBound: true }))).toEqual(['client-bound']);
    const arrival = {
      target: { kind: 'constant' as const, opsPerSecond: 1000 },
      lateAfterMs: 5,
      dropAfterMs: 500,
      scheduled: 0,
      dropped: 0,
      late: 0,
    };
    expect(codes(resultStep({ clients: 1, arrival }))).toEqual(['nothing-scheduled']);
    expect(codes(resultStep({ clients: 1 }))).toEqual(['nothing-measured']);
    expect(codes(resultStep({ clients: 1, status: 'failed', error: 'x' }))).toEqual([]);
    const probe = computeStepWarnings(cleanStep(), {
      probeClientBound: { clients: 1 },
    }).warnings.map((w) => w.code);
    expect(probe).toEqual(['probe-client-bound']);
  });
});

describe('annotateResult', () => {
  it('is idempotent, keeps codes it does not own, and its output still validates', () => {
    const result = {
      schema: 'mongo-bench/result@1',
      steps: [
        cleanStep({
          ops: { reads: 50, writes: 0, errors: 0 },
          latencyMicros: { reads: lat(50), writes: lat(0) },
          warnings: [{ code: 'server-counts', message: "the servers' counts differ" }],
        }),
      ],
    } as unknown as ResultDocument;
    annotateResult(result);
    const once = JSON.stringify(result);
    annotateResult(result);
    expect(JSON.stringify(result)).toBe(once);
    expect(result.steps[0].warnings!.map((w) => w.code)).toEqual(['few-samples', 'server-counts']);
    expect(warningLines(result)[0]).toMatch(/^WARNING clients 4 \[few-samples\]: too few samples/);
    expect(() => resultDocumentSchema.shape.steps.parse(result.steps)).not.toThrow();
  });
});

describe('results written before warnings were kept', () => {
  it.each(['result-complete.json', 'result-incomplete.json'])(
    '%s reads as it is (no warnings), and annotates into a valid result',
    (name) => {
      const raw = JSON.parse(
        readFileSync(join(__dirname, '..', 'fixtures', name), 'utf8'),
      ) as unknown;
      const old = resultDocumentSchema.parse(raw);
      expect(old.steps.every((s) => s.warnings === undefined && s.steadiness === undefined)).toBe(
        true,
      );
      const annotated = annotateResult(structuredClone(old));
      expect(() => resultDocumentSchema.parse(annotated)).not.toThrow();
      expect(
        annotated.steps.every(
          (s) => s.steadiness !== undefined || s.ops.reads + s.ops.writes + s.ops.errors === 0,
        ),
      ).toBe(true);
    },
  );
});
