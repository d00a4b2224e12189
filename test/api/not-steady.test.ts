/**
 * The jest helpers on trials that trend: expectNoRegression throws a NotSteadyError (not a
 * RegressionError) when this run's trials rise through a step, and refuses to record a baseline from
 * such a run. Constructed results: the trend is the JVM warm-up the CRUD double showed (1,148 -> 8,805 ops/s).
 */
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  benchmarkWorkload,
  expectNoRegression,
  NotSteadyError,
  RegressionError,
  ResultDocument,
  WORKLOAD_TEST_DEFAULTS,
} from 'mongo-bench';
import { NULL_SERVER_NS, startNullServer } from '../../lib/calibrate/null-server';
import { resultDocument, trialsStep } from '../support/results';

const result = (values: number[]): ResultDocument => ({
  ...resultDocument('orders', [trialsStep(values)]),
  workload: { name: 'orders', ops: [] },
});

const WARMING = [1148, 2690, 4027, 5123, 8805];
const STEADY = [9010, 8950, 9100, 8890, 9040];

describe('NotSteadyError', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-not-steady-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a run whose trials trend against a steady baseline: NotSteadyError, not RegressionError', async () => {
    const baseline = join(dir, 'baseline.json');
    writeFileSync(baseline, JSON.stringify(result(STEADY)));
    const check = expectNoRegression(result(WARMING), baseline, { ci: false, update: false });
    await expect(check).rejects.toBeInstanceOf(NotSteadyError);
    await expect(check).rejects.not.toBeInstanceOf(RegressionError);
    await expect(check).rejects.toThrow(
      /^not steady: at 1 client, B's trials trend: \+\d+(\.\d)?% over 5 trials/,
    );
  });

  it('no baseline is recorded from a run that was not steady', async () => {
    const baseline = join(dir, 'new-baseline.json');
    await expect(
      expectNoRegression(result(WARMING), baseline, {
        ci: false,
        update: false,
        log: () => undefined,
      }),
    ).rejects.toThrow(/not recording the baseline .* the trials trend/);
    expect(existsSync(baseline)).toBe(false);
    // The error names the options to change, not just "warm up".
    await expect(
      expectNoRegression(result(WARMING), baseline, {
        ci: false,
        update: false,
        log: () => undefined,
      }),
    ).rejects.toThrow(
      /a longer fixed warmup \(.*e\.g\. warmup: 5\).*a higher warmupMax \(default 15 s\)/,
    );
    await expect(
      expectNoRegression(result(STEADY), baseline, {
        ci: false,
        update: false,
        log: () => undefined,
      }),
    ).resolves.toMatchObject({ status: 'baseline-written' });
  });

  it('benchmarkWorkload warms up with --warmup auto by default; a warm-up that hit its cap records no baseline (the null server)', async () => {
    expect(WORKLOAD_TEST_DEFAULTS).toMatchObject({ warmup: 'auto', warmupMax: 15 });
    const server = await startNullServer();
    try {
      // A 2 s cap: auto needs 10 level seconds, so every warm-up stops at its cap, not steady.
      const result = await benchmarkWorkload({
        uri: server.uri,
        ns: NULL_SERVER_NS,
        ops: [{ op: 'findOne', query: { _id: 1 } }],
        clients: [1],
        seconds: 1,
        trials: 2,
        warmupMax: 2,
      });
      expect(result.config).toMatchObject({ warmup: 'auto', warmupMax: 2 });
      // No warm-up was fixed: no 0 stands for the 2 s each step warmed up.
      expect(result.config).not.toHaveProperty('warmupSeconds');
      expect(result.steps[0].warmup).toEqual({ seconds: 2, steady: false });
      const baseline = join(dir, 'capped.json');
      await expect(
        expectNoRegression(result, baseline, { ci: false, update: false, log: () => undefined }),
      ).rejects.toThrow(/the warm-up reached its cap \(2 s\)/);
      expect(existsSync(baseline)).toBe(false);
    } finally {
      await server.stop();
    }
  });
});
