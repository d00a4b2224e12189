/** The report's single entry point: result documents in, PNG charts + summary.md + results.csv + index.html out. */
import { mkdir } from 'node:fs/promises';
import { writeFileAtomically } from '../common/atomic-write';
import { join } from 'node:path';
import { ResultDocument } from '../result';
import { RunError, UsageError } from '../config/errors';
import { renderIndexHtml } from './index-html';
import { renderChart } from './render-chart';
import { renderResultsCsv } from './results-csv';
import { renderSummaryMarkdown } from './summary-md';
import { pngCharts } from './chart-registry';
import { messageOf } from '../common/values';

export const SUMMARY_FILE = 'summary.md';
export const CSV_FILE = 'results.csv';
export const INDEX_FILE = 'index.html';

/**
 * Renders the report for one result (its charts) or several (comparison charts, one series per result)
 * into outDir. Called by `report`, and by `run` after every step so an interrupted run still has a report.
 * Returns the paths written (PNGs first, then summary.md, results.csv, index.html).
 */
export async function writeReport(
  results: ResultDocument[],
  outDir: string,
): Promise<{ files: string[] }> {
  if (results.length === 0) throw new UsageError('no result to report on');
  try {
    await mkdir(outDir, { recursive: true });
  } catch (err) {
    throw new RunError(`cannot create report folder ${outDir}: ${messageOf(err)}`);
  }
  // Every PNG chart of the registry, in its order.
  const charts = pngCharts(results);
  // Chart.js draws synchronously; the PNG encodes run on libuv's pool, so let them overlap.
  const pngs = await Promise.all(
    charts.map(async (spec) => ({ file: join(outDir, spec.file), png: await renderChart(spec) })),
  );
  const texts: Array<[string, string]> = [
    [SUMMARY_FILE, renderSummaryMarkdown(results, charts)],
    [CSV_FILE, renderResultsCsv(results)],
    [INDEX_FILE, renderIndexHtml(results, charts)],
  ];
  try {
    for (const { file, png } of pngs) await writeFileAtomically(file, png);
    for (const [name, text] of texts) await writeFileAtomically(join(outDir, name), text);
  } catch (err) {
    throw new RunError(`cannot write report to ${outDir}: ${messageOf(err)}`);
  }
  return { files: [...pngs.map((p) => p.file), ...texts.map(([name]) => join(outDir, name))] };
}
