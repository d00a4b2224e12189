// The package's public entry, 'mongo-bench': what docs/api.md documents, and nothing else. Every name
// here is a contract; test/architecture/public-face.test.ts pins the list, so a new name is added here,
// to docs/api.md and to that list in one change. Building blocks without a promise:
// 'mongo-bench/internals' (lib/internals.ts).

// Run, benchmark, topology, results, compare, the jest helpers (lib/api).
export {
  benchmark,
  benchmarkOptions,
  readBenchmarkConfig,
  run,
  planTopology,
  renderScripts,
  writeScripts,
  applyTopology,
  readResult,
  writeResult,
  renderReport,
  compare,
  compareRuns,
  compareRunsOptions,
  benchmarkWorkload,
  expectNoRegression,
  RegressionError,
  NotComparedError,
  NotSteadyError,
  WORKLOAD_TEST_DEFAULTS,
} from './api';
export type {
  BenchmarkInput,
  BenchmarkControl,
  RunControl,
  RunFlags,
  RunOutcome,
  RunEvent,
  ApplyTopologyOptions,
  ResultSource,
  CompareRunOptions,
  WorkloadBenchmarkInput,
  NoRegressionOptions,
  NoRegressionOutcome,
  CompareRunsOptions,
  CompareRunsOutcome,
} from './api';
export type { BenchmarkEvent } from './run/events';

// The result contract (lib/result): the schema id, the zod schema and the types derived from it.
export { RESULT_SCHEMA, resultDocumentSchema } from './result';
export type {
  ResultDocument,
  StepResult,
  LatencySummary,
  PerSecondSample,
  TrialStats,
  StepDataVsCache,
  StepStorage,
  ShardStorage,
  StepOplog,
  ServerProduct,
  ServerProcessFacts,
  LoadMachine,
  SloVerdict,
  SloSection,
  ClientLoad,
  ScenarioResult,
  ScenarioStep,
  ScenarioEvent,
} from './result';

// Errors and exit codes.
export { UsageError, RunError, EXIT } from './config/errors';

// The server measured, given by URI and client options (credentials, TLS).
export { uriTarget } from './server/target';
export type { Target, TargetSource, TargetOrigin } from './server/target';

// A topology plan's shape, the op spec and the comparison's shape, as the functions above take and return them.
export type { SetupPlan, TopologyInput, GeneratedFile, StepOutcome } from './topology';
export type { OpSpec, OpType, Namespace } from './workload';
export type { Comparison, CompareOptions, StepComparison, Verdict } from './compare';
export { renderComparisonText } from './compare';

// Performance over time (docs/history.md): the results store and change points.
export { openStore } from './store';
export type { ResultStore, StoredResult } from './store';
export { buildHistory, eDivisive } from './history';
export type { HistoryDocument, HistoryOptions, ChangePoint, EDivisiveOptions } from './history';

// Workloads from what an application did (docs/capture.md).
export { captureFromLogs, writeCapture } from './capture';
export type { LogCaptureOptions, CaptureOutcome, CapturedWorkload } from './capture';
