/**
 * The result contract: the zod schema of every section of a result file, the types derived from
 * them, and reading (validated) and writing (atomic) result files. Imports nothing above it.
 */
export * from './latency';
export * from './agents';
export * from './server';
export * from './metadata';
export * from './slo';
export * from './steps';
export * from './events';
export * from './scenarios';
export * from './rate-probe';
export * from './document';
export { loadResult, parseResult } from './read';
export { writeResultFile } from './write';
