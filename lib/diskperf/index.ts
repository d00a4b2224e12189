// mongo-bench diskperf: random 4 KB I/O with doubling threads (the mongoperf experiment).
export * from './result';
export {
  resolveDiskperfSettings,
  doublingThreads,
  DISKPERF_DEFAULTS,
  MAX_THREADS_LIMIT,
} from './options';
export type { RawDiskperfOptions } from './options';
export { runDiskperf, chooseEngine } from './sweep';
export type { DiskperfEvent, DiskperfOutcome, DiskperfRunOptions } from './sweep';
export { writeDiskperfReport, defaultDiskperfOutDir, DISKPERF_FILES } from './write';
export { renderDiskperfChart, diskperfChartConfig } from './chart';
export {
  table,
  tableRow,
  TABLE_HEADER,
  toCsv,
  toSummaryMarkdown,
  directIoNote,
  describeRun,
  engineBoundNote,
  filesystemNote,
} from './format';
