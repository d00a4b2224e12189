/**
 * Writes a comparison to a folder: compare.md, compare.json (the plain data) and the ratio chart;
 * given the two results too, the interactive compare page (index.html, page.ts).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RunError } from '../config/errors';
import { writeFileAtomically } from '../common/atomic-write';
import { renderComparisonChart } from './chart';
import { Comparison } from './compare';
import { ResultDocument } from '../result';
import { COMPARE_PAGE, renderComparePage } from './page';
import { COMPARE_JSON, COMPARE_MD, COMPARE_PNG, renderComparisonMarkdown } from './render-text';
import { messageOf } from '../common/values';

/** What writeComparison writes, by name (the page only when given both results, as compare always does). */
export const COMPARISON_FILES: readonly string[] = [
  COMPARE_MD,
  COMPARE_JSON,
  COMPARE_PNG,
  COMPARE_PAGE,
];

export async function writeComparison(
  comparison: Comparison,
  outDir: string,
  results?: readonly [ResultDocument, ResultDocument],
): Promise<{ files: string[] }> {
  const png = await renderComparisonChart(comparison);
  const files: Array<[string, string | Buffer]> = [
    [COMPARE_MD, renderComparisonMarkdown(comparison)],
    [COMPARE_JSON, `${JSON.stringify(comparison, null, 2)}\n`],
    [COMPARE_PNG, png],
    ...(results
      ? [[COMPARE_PAGE, renderComparePage(comparison, results)] as [string, string]]
      : []),
  ];
  try {
    await mkdir(outDir, { recursive: true });
    for (const [name, data] of files) await writeFileAtomically(join(outDir, name), data);
  } catch (err) {
    throw new RunError(`cannot write the comparison to ${outDir}: ${messageOf(err)}`);
  }
  return { files: files.map(([name]) => join(outDir, name)) };
}
