/** Results from code: read them, render a report, compare two. Paths or documents, as you have them. */
import { ResultDocument, writeResultFile, loadResult } from '../result';
import { writeReport } from '../report/write-report';
import { compareResults, Comparison, CompareOptions, writeComparison } from '../compare';

export type ResultSource = string | ResultDocument;

async function resolve(source: ResultSource): Promise<{ doc: ResultDocument; file?: string }> {
  return typeof source === 'string'
    ? { doc: await loadResult(source), file: source }
    : { doc: source };
}

/** Reads and validates a results.json (errors name the file and the field). */
export function readResult(file: string): Promise<ResultDocument> {
  return loadResult(file);
}

/** Writes a result document as results.json does (atomically, the folder created). */
export function writeResult(file: string, result: ResultDocument): Promise<void> {
  return writeResultFile(file, result);
}

/** PNG charts, summary.md, results.csv and index.html for one result, or overlaid for several. */
export async function renderReport(
  results: ResultSource | ResultSource[],
  outDir: string,
): Promise<{ files: string[] }> {
  const list = Array.isArray(results) ? results : [results];
  const docs = await Promise.all(list.map(async (r) => (await resolve(r)).doc));
  return writeReport(docs, outDir);
}

export interface CompareRunOptions extends CompareOptions {
  /** Also write compare.md, compare.json, compare-ratios.png and index.html (the interactive page) there. */
  out?: string;
}

/** One side of a comparison: the results of several runs of one configuration, or one. */
async function resolveSide(
  side: ResultSource | ResultSource[],
): Promise<{ docs: ResultDocument[]; file?: string }> {
  const resolved = await Promise.all((Array.isArray(side) ? side : [side]).map(resolve));
  const files = resolved.map((r) => r.file).filter((f): f is string => f !== undefined);
  return {
    docs: resolved.map((r) => r.doc),
    ...(files.length > 0 ? { file: files.join(',') } : {}),
  };
}

/**
 * B against A per client count (A the baseline): ratios and verdicts. Each side is one result or
 * several runs of one configuration (every trial of every result is a replicate, as the CLI's
 * `a1.json,a2.json`). `comparison.outcome` is the CI gate: 'regression', 'no regression', or 'not
 * compared' (too few trials to test: no pass). Throws a UsageError for a test double against MongoDB.
 */
export async function compare(
  a: ResultSource | ResultSource[],
  b: ResultSource | ResultSource[],
  options: CompareRunOptions = {},
): Promise<Comparison> {
  const [ra, rb] = await Promise.all([resolveSide(a), resolveSide(b)]);
  const { out, ...compareOptions } = options;
  const comparison = compareResults(ra.docs, rb.docs, compareOptions, { a: ra.file, b: rb.file });
  // The page overlays the first result of each side; the verdicts cover every result given.
  if (out !== undefined) await writeComparison(comparison, out, [ra.docs[0], rb.docs[0]]);
  return comparison;
}
