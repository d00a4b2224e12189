import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { DiskperfResult } from './result';
import { toCsv, toSummaryMarkdown } from './format';
import { renderDiskperfChart } from './chart';
import { fileTimestamp } from '../common/values';

export const DISKPERF_FILES = {
  json: 'diskperf.json',
  csv: 'diskperf.csv',
  summary: 'summary.md',
  chart: 'diskperf.png',
} as const;

/** What writeDiskperfReport writes, by name. */
export const DISKPERF_FILE_NAMES: readonly string[] = Object.values(DISKPERF_FILES);

/** reports/<timestamp>-diskperf, the timestamp in UTC and safe in file names. */
export function defaultDiskperfOutDir(now = new Date()): string {
  return join('reports', `${fileTimestamp(now)}-diskperf`);
}

/** Writes diskperf.json, diskperf.csv, summary.md and diskperf.png into `dir`; returns their paths. */
export async function writeDiskperfReport(result: DiskperfResult, dir: string): Promise<string[]> {
  await fsp.mkdir(dir, { recursive: true });
  const files: Array<[string, string | Buffer]> = [
    [DISKPERF_FILES.json, JSON.stringify(result, null, 2) + '\n'],
    [DISKPERF_FILES.csv, toCsv(result)],
    [DISKPERF_FILES.summary, toSummaryMarkdown(result, DISKPERF_FILES.chart)],
    [DISKPERF_FILES.chart, await renderDiskperfChart(result)],
  ];
  const written: string[] = [];
  for (const [name, content] of files) {
    const path = join(dir, name);
    await fsp.writeFile(path, content);
    written.push(path);
  }
  return written;
}
