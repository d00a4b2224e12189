/**
 * Hand-made result steps for the tests that need a result's figures without a run: every field the
 * schema requires is there, and the test gives the figures it is about (the rest stay zero/empty).
 */
import { LatencySummary, StepResult } from '../../lib/result';

const NO_LATENCY: LatencySummary = { avg: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, count: 0 };

export function resultStep({ clients, ...fields }: Partial<StepResult> & Pick<StepResult, 'clients'>): StepResult {
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
