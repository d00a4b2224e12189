// The library's public entry: plain functions over plain data.
export * from './metrics/result';
export { UsageError, RunError, EXIT } from './config/errors';
export { main } from './cli/main';
export * from './topology';
export * from './workload';
export * from './report';
export * from './launcher';
export * from './security';
export * from './matrix';
export * from './diskperf';
export { runPresplitImport, writePresplitImportReport, loadPresplitImportResult } from './experiments/presplit-import';
