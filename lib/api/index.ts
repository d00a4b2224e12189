// The public API: plain async functions over plain data. docs/api.md shows each in use.
export { benchmark, benchmarkOptions, readBenchmarkConfig } from './benchmark';
export type { BenchmarkInput, BenchmarkControl } from './benchmark';
export { run } from './run';
export type { RunControl, RunFlags, RunOutcome, RunEvent } from './run';
export { planTopology, renderScripts, writeScripts, applyTopology } from './topology';
export type { ApplyTopologyOptions } from './topology';
export { readResult, writeResult, renderReport, compare } from './results';
export type { ResultSource, CompareRunOptions } from './results';
export {
  benchmarkWorkload,
  expectNoRegression,
  RegressionError,
  NotComparedError,
  NotSteadyError,
  WORKLOAD_TEST_DEFAULTS,
} from './workload-test';
export type {
  WorkloadBenchmarkInput,
  NoRegressionOptions,
  NoRegressionOutcome,
} from './workload-test';
export { compareRuns, compareRunsOptions } from './compare-runs';
export type { CompareRunsOptions, CompareRunsOutcome } from './compare-runs';
