// `mongo-bench/internals`: the library's building blocks (engine, launcher, report parts, statistics)
// for power users, with no compatibility promise: names here may change in any release. The public,
// stable entry is lib/index.ts ('mongo-bench'), which docs/api.md documents.
// The result contract (lib/result).
export { RESULT_SCHEMA, resultDocumentSchema } from './result';
export type {
  ResultDocument,
  StepResult,
  LatencySummary,
  PerSecondSample,
  TrialStats,
  StepDataVsCache,
  ServerProduct,
  ServerProcessFacts,
  LoadMachine,
  SloVerdict,
  SloSection,
  ClientLoad,
} from './result';
export type { ScenarioResult, ScenarioStep, ScenarioEvent } from './result';
export { UsageError, RunError, EXIT } from './config/errors';
export { main } from './cli/main';
export * from './topology';
export * from './workload';
export { loadData } from './prepare/loader';
export { runBenchmark, RESULTS_FILE } from './run/benchmark';
export { compileRunWorkload } from './run/options/run-workload';
export type { BenchmarkHooks } from './run/benchmark';
export type { BenchmarkEvent } from './run/events';
// The server measured: its uri, client options, withClient, describe and release (lib/server).
export { uriTarget, openTarget } from './server/target';
export type { Target, TargetSource, TargetOrigin } from './server/target';
export * from './report';
// The launcher's ProcessSpec is the subset of the topology's that it needs: exported as LaunchSpec.
export {
  resolveBinaries,
  requireMongod,
  requireMongos,
  launchProcesses,
  isLoopbackAddress,
  PortsInUseError,
  effectiveArgs,
  formatCommandLine,
  redactArgs,
  startEmbedded,
  mongodVersion,
  NO_MONGOD_HELP,
  clusterKeyFile,
  ensureKeyFile,
} from './launcher';
export type {
  ResolvedBinaries,
  BinarySource,
  ResolveBinariesInput,
  LaunchOptions,
  LaunchedGroup,
  LaunchedProcess,
  StoppedProcess,
  ExitInfo,
  LaunchSpec,
  ProcessKind,
  EmbeddedOptions,
  EmbeddedServer,
} from './launcher';
export * from './security';
export * from './matrix';
export { addTopologyOptions } from './cli/topology-options';
export * from './diskperf';
export {
  runPresplitImport,
  writePresplitImportReport,
  loadPresplitImportResult,
} from './experiments/presplit-import';

// The curated API (docs/api.md): run, benchmark, plan/render/apply a topology, report, compare, and
// the helpers of a performance test against a committed baseline.
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
  benchmarkWorkload,
  expectNoRegression,
  RegressionError,
  NotComparedError,
  NotSteadyError,
  WORKLOAD_TEST_DEFAULTS,
  compareRuns,
  compareRunsOptions,
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
export * from './compare';
// Performance over time (docs/history.md): the results store, change points, objectives.
export * from './store';
export * from './history';
export * from './slo';
export * from './capture';
