/** Writes a presplit-import result and its report (JSON, summary.md, PNG charts) into a folder; reads a result back. */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../config/errors';
import { renderChart } from '../../report/render-chart';
import { buildExperimentCharts, perShardChartFile, TOTAL_CHART_FILE } from './chart-data';
import { WAYS } from './options';
import { PRESPLIT_IMPORT_SCHEMA, PresplitImportResult } from './result';
import { renderPresplitImportSummary } from './summary-md';
import { fileTimestamp, messageOf } from '../../common/values';

export const PRESPLIT_IMPORT_FILES = {
  json: 'presplit-import.json',
  summary: 'summary.md',
} as const;

/** Every file writePresplitImportReport may write: the result, summary.md, a per-shard chart per way, the total. */
export function presplitImportReportFiles(): string[] {
  return [
    PRESPLIT_IMPORT_FILES.json,
    PRESPLIT_IMPORT_FILES.summary,
    ...WAYS.map((way) => perShardChartFile(way)),
    TOTAL_CHART_FILE,
  ];
}

/** reports/<UTC timestamp>-presplit-import */
export function defaultPresplitImportOutDir(now = new Date()): string {
  return join('reports', `${fileTimestamp(now)}-presplit-import`);
}

/** Writes presplit-import.json first (so a chart failure cannot lose the figures), then the charts and summary.md. */
export async function writePresplitImportReport(
  result: PresplitImportResult,
  dir: string,
): Promise<string[]> {
  await fsp.mkdir(dir, { recursive: true });
  const written: string[] = [];
  const write = async (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    await fsp.writeFile(path, content);
    written.push(path);
  };
  await write(PRESPLIT_IMPORT_FILES.json, JSON.stringify(result, null, 2) + '\n');
  const charts = buildExperimentCharts(result);
  for (const chart of charts) await write(chart.file, await renderChart(chart));
  await write(
    PRESPLIT_IMPORT_FILES.summary,
    renderPresplitImportSummary(
      result,
      charts.map((c) => c.file),
    ),
  );
  return written;
}

/** Reads a result file for re-rendering; refuses other schemas by name. */
export async function loadPresplitImportResult(path: string): Promise<PresplitImportResult> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await fsp.readFile(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`${path}: cannot read a presplit-import result: ${messageOf(err)}`);
  }
  const schema = (parsed as { schema?: unknown } | null)?.schema;
  if (schema !== PRESPLIT_IMPORT_SCHEMA) {
    throw new UsageError(
      `${path}: schema is ${JSON.stringify(schema)}, expected "${PRESPLIT_IMPORT_SCHEMA}"`,
    );
  }
  return parsed as PresplitImportResult;
}
