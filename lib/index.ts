// The library's public entry: plain functions over plain data.
export * from './metrics/result';
export { UsageError, RunError, EXIT } from './config/errors';
export { main } from './cli/main';
export * from './topology';
export * from './report';
export * from './diskperf';
