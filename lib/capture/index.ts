// The capture area: a user's own workload from mongod/mongos logs (or the profiler) into a weighted workload file.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import {
  CaptureBuilder,
  CaptureOptions,
  CaptureOutcome,
  PLACEHOLDER_DOCUMENT,
  addLogFile,
} from './capture';
import { expandSources, fileLines } from './read-lines';

export { CaptureBuilder, PLACEHOLDER_DOCUMENT } from './capture';
export type {
  CapturedFrom,
  CaptureOptions,
  CaptureOutcome,
  CaptureSummary,
  ShapeSummary,
  SkipSummary,
  CapturedWorkload,
  QueryStatsReading,
  ShapeQueryStats,
  SlowmsReading,
  SourceRecord,
  GetMoreSummary,
} from './capture';
export { writeCapture, CAPTURE_FILES } from './write';
export { renderCaptureMarkdown, SLOWMS_ADVICE } from './render-md';
export { captureFromProfiler, servedFromProfile } from './profiler';
export { captureFromQueryStats, parseQueryStatsText } from './query-stats';
export type { QueryStatsSnapshot, QueryStatsCaptureOptions } from './query-stats';
export { readQueryStatsLive } from './query-stats-live';

export interface LogCaptureOptions extends CaptureOptions {
  /** The workload's name (default: "captured-<first source's name>"). */
  name?: string;
  /** The document (template) inserts write; default PLACEHOLDER_DOCUMENT. */
  insertDocument?: unknown;
  /** Called with the number of lines read so far (empty ones included), every 10,000 lines and at the end of each file (`done`). */
  onProgress?: (linesRead: number, file: string, done: boolean) => void;
}

/** Reads the logs (files, .gz, directories) into a weighted workload and its summary; writes nothing. */
export async function captureFromLogs(
  sources: string[],
  options: LogCaptureOptions = {},
): Promise<CaptureOutcome> {
  const files = await expandSources(sources);
  const builder = new CaptureBuilder({ sampled: options.sampled, keepFailed: options.keepFailed });
  for (const file of files) {
    const digest = createHash('sha256');
    const before = builder.linesRead;
    await addLogFile(builder, fileLines(file, digest), (n) => {
      if (n % 10_000 === 0) options.onProgress?.(n, file, false);
    });
    options.onProgress?.(builder.linesRead, file, true);
    // Base names only: workload.json travels, and a full path can name a host or a customer.
    builder.sources.push({
      name: basename(file),
      lines: builder.linesRead - before,
      sha256: digest.digest('hex'),
    });
  }
  const name =
    options.name ??
    `captured-${basename(sources[0])
      .replace(/(\.gz)?$/, '')
      .replace(/\.[^.]+$/, '')}`;
  return builder.finish(
    name,
    options.insertDocument ?? PLACEHOLDER_DOCUMENT,
    options.insertDocument ? 'docs-like' : 'placeholder',
    files,
  );
}
