// The presplit-import experiment (issue 8): a sharded bulk import three ways, per shard over time.
export { runPresplitImport } from './experiment';
export type { PresplitImportEvent } from './experiment';
export { resolvePresplitImportOptions, WAYS } from './options';
export { WAY_DEFINITIONS, wayScriptsArgs, waySetupSteps } from './ways';
export { CounterSampler, insertCounterSource, driverShardConnector } from './counter-sources';
export { readChunkDistribution } from './chunks';
export { listShards, parseShardHost, shardConnectionString } from '../../server-stats/shards';
export { ratesFromReadings, counterTotal, clientRates, spreadOf } from './rates';
export type { CounterReading } from './rates';
export { PRESPLIT_IMPORT_SCHEMA } from './result';
export type { PresplitImportResult, WayResult } from './result';
export { writePresplitImportReport, loadPresplitImportResult } from './write-report';
export { buildExperimentCharts } from './chart-data';
export { wayMeasures } from './measures';
export { combineWayResults, whyNotCombinable } from './combine';
