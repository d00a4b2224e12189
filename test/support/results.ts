/**
 * Hand-made result steps for the tests that need a result's figures without a run: every field the
 * schema requires is there, and the test gives the figures it is about (the rest stay zero/empty).
 */
import { LatencySummary, ResultDocument, StepResult } from '../../lib/result';

const NO_LATENCY: LatencySummary = { avg: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, count: 0 };

export function resultStep({
  clients,
  ...fields
}: Partial<StepResult> & Pick<StepResult, 'clients'>): StepResult {
  return {
    clients,
    seconds: 1,
    trials: 1,
    ops: { reads: 0, writes: 0, errors: 0 },
    opsPerSec: { total: 0, reads: 0, writes: 0 },
    peakOpsPerSec: { total: 0, reads: 0, writes: 0 },
    latencyMicros: { reads: NO_LATENCY, writes: NO_LATENCY },
    perSecond: [],
    benchRun: {},
    ...fields,
  };
}

/** A whole result document around hand-made steps (a standalone MongoDB 7.0.14 target unless `testDouble`). */
export function resultDocument(
  label: string,
  steps: StepResult[],
  testDouble = false,
): ResultDocument {
  return {
    schema: 'mongo-bench/result@1',
    tool: { name: 'mongo-bench', version: 'test' },
    label,
    complete: true,
    startedAt: '2026-01-01T00:00:00Z',
    target: {
      uri: 'mongodb://127.0.0.1:27017',
      serverVersion: '7.0.14',
      topology: 'standalone',
      ...(testDouble ? { testDouble: true } : {}),
    },
    workload: { name: '6to1', ops: [], docs: 1000, docSize: 1024 },
    config: {},
    steps,
  };
}

/** A step of trials whose ops/s are `values` (trialStats), optionally with its per-second samples. */
export function trialsStep(
  values: number[],
  perSecond: StepResult['perSecond'] = [],
  clients = 1,
): StepResult {
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  return resultStep({
    clients,
    trials: values.length,
    opsPerSec: { total: mean, reads: mean, writes: 0 },
    trialStats: { opsPerSec: { mean, median: mean, stdev: 0, values } },
    perSecond,
  });
}
