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
import { PERCENTILES } from './chart-data';
import { RATE_CHART_FILE } from './rate-chart';
import { SCENARIO_TIMELINE_FILE } from './scenario-report';
import { SERVER_CHART_FILES } from './server-charts';

export const SUMMARY_FILE = 'summary.md';
export const CSV_FILE = 'results.csv';
export const INDEX_FILE = 'index.html';

/**
 * Every PNG a report may draw, by name (test/report/chart-registry.test.ts keeps it in step with the chart
 * registry): what a run checks in its folder before it starts, when what it will draw is not known yet.
 */
export const REPORT_PNG_FILES: readonly string[] = [
  ...['avg', 'peak'].flatMap((kind) => ['read', 'write'].map((op) => `${kind}-${op}-ops.png`)),
  ...['reads', 'writes'].flatMap((kind) => [
    `latency-${kind}.png`,
    ...PERCENTILES.map((p) => `latency-${kind}-${p}.png`),
  ]),
  'timeline.png',
  SCENARIO_TIMELINE_FILE,
  RATE_CHART_FILE,
  ...Object.values(SERVER_CHART_FILES),
];

/** The names writeReport writes for these results; without results, every name it could write. */
export function reportFileNames(results?: readonly ResultDocument[]): string[] {
  const pngs = results ? pngCharts(results).map((chart) => chart.file) : REPORT_PNG_FILES;
  return [...pngs, SUMMARY_FILE, CSV_FILE, INDEX_FILE];
}

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
