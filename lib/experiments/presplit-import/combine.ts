/**
 * Several one-way results of the same import (the matrix runs one way per configuration) as one
 * result, so the report draws the ways side by side: per-shard charts sharing a y-axis top, and the
 * total chart with a line per way. Pure.
 */
import { PresplitImportResult } from './result';

/** Why the results cannot be drawn together, or undefined when they can. */
export function whyNotCombinable(results: readonly PresplitImportResult[]): string | undefined {
  if (results.length < 2) return 'fewer than two ways measured';
  const ways = results.flatMap((r) => r.ways.map((w) => w.way));
  if (new Set(ways).size !== ways.length)
    return `a way was measured more than once (${ways.join(', ')})`;
  const sameImport = (r: PresplitImportResult) => JSON.stringify({ ...r.settings, ways: [] });
  if (results.some((r) => sameImport(r) !== sameImport(results[0])))
    return 'the ways imported with different settings';
  const shards = (r: PresplitImportResult) => r.target.shards.map((s) => s.id).join(',');
  if (results.some((r) => shards(r) !== shards(results[0])))
    return 'the cluster had different shards from one way to the next';
  return undefined;
}

export function combineWayResults(results: readonly PresplitImportResult[]): PresplitImportResult {
  const why = whyNotCombinable(results);
  if (why) throw new Error(`cannot combine presplit-import results: ${why}`);
  const [first] = results;
  const reasons = results
    .filter((r) => r.incompleteReason)
    .map((r) => r.incompleteReason as string);
  return {
    ...first,
    finishedAt: results[results.length - 1].finishedAt,
    complete: results.every((r) => r.complete),
    ...(reasons.length > 0 ? { incompleteReason: reasons.join('; ') } : {}),
    settings: { ...first.settings, ways: results.flatMap((r) => r.settings.ways) },
    ways: results.flatMap((r) => r.ways),
    warnings: results.flatMap((r) => r.warnings),
  };
}
