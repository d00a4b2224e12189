/** The matrix's combined report: summary.md, results.csv and one grouped bar chart per chart definition. */
import { mkdir } from 'node:fs/promises';
import { writeFileAtomically } from '../common/atomic-write';
import { join } from 'node:path';
import { barChartSpec, renderBarChart } from './bar-chart';
import { MatrixDocument } from './matrix-document';
import { findExperiment } from '../experiments/registry';
import { renderMatrixCsv, renderMatrixMarkdown } from './table';

export const MATRIX_SUMMARY_FILE = 'summary.md';
export const MATRIX_CSV_FILE = 'results.csv';

/** Returns the files written; charts with no measured bar are left out. */
export async function writeMatrixReport(doc: MatrixDocument, outDir: string): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const specs = (findExperiment(doc.experiment)?.charts ?? [])
    .map((def) => barChartSpec(doc, def))
    .filter((s) => s.datasets.some((d) => d.values.some((v) => v !== null)));
  const written: string[] = [];
  for (const spec of specs) {
    const path = join(outDir, spec.file);
    await writeFileAtomically(path, await renderBarChart(spec));
    written.push(path);
  }
  const summary = join(outDir, MATRIX_SUMMARY_FILE);
  await writeFileAtomically(summary, renderMatrixMarkdown(doc, specs));
  const csv = join(outDir, MATRIX_CSV_FILE);
  await writeFileAtomically(csv, renderMatrixCsv(doc));
  return [...written, summary, csv];
}
