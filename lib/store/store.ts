/**
 * A results store: every result document a team keeps, read back as the history of a label. Two
 * kinds behind one shape: a folder of result files (the default; copying a results.json into it
 * imports it) and a MongoDB collection a team shares. Credentials are never stored: a result's
 * target URI is redacted before it is kept, and the store's own URI is only ever shown redacted.
 */
import type { ResultDocument } from '../result';

/** The environment variable naming the store when neither --store nor the config file does. */
export const STORE_ENV = 'MONGO_BENCH_STORE';

export interface StoredResult {
  result: ResultDocument;
  /** Where it was read from: a file path, or the collection and the document's _id. */
  source: string;
}

/** A file or document that is not a readable result@1 document, and why (results of other tools are skipped quietly). */
export interface SkippedEntry {
  source: string;
  why: string;
}

export interface StoreFilter {
  /** Only results with this label. */
  label?: string;
  /** Only results of this workload (its name). */
  workload?: string;
}

export interface PutOutcome {
  /** The file path or document _id. */
  id: string;
  /** False when the same result was already there (a store keeps one copy). */
  created: boolean;
}

export interface ResultStore {
  /** What to show the user: the folder, or the redacted URI with the database and collection. */
  readonly description: string;
  put(result: ResultDocument): Promise<PutOutcome>;
  /** The results that match, oldest first (by startedAt); one copy of each run. */
  list(filter?: StoreFilter): Promise<{ results: StoredResult[]; skipped: SkippedEntry[] }>;
  close(): Promise<void>;
}

/** The store spec in force: the flag or config value, else MONGO_BENCH_STORE; undefined when none. */
export function resolveStoreSpec(
  given: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const spec = given ?? env[STORE_ENV];
  return spec !== undefined && spec.trim() !== '' ? spec.trim() : undefined;
}

export function isMongoStoreSpec(spec: string): boolean {
  return /^mongodb(\+srv)?:\/\//i.test(spec);
}

/** One run, however many copies: the same label started at the same instant by the same tool. */
export function runKey(result: ResultDocument): string {
  return `${result.label}\u0000${result.startedAt}\u0000${result.target.uri}`;
}

/** Oldest first; one copy of each run (the first one seen). */
export function orderAndDeduplicate(results: StoredResult[]): StoredResult[] {
  const seen = new Set<string>();
  const unique = results.filter((r) => {
    const key = runKey(r.result);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.sort(
    (a, b) =>
      Date.parse(a.result.startedAt) - Date.parse(b.result.startedAt) ||
      a.source.localeCompare(b.source),
  );
}

export function matchesFilter(result: ResultDocument, filter: StoreFilter | undefined): boolean {
  if (filter?.label !== undefined && result.label !== filter.label) return false;
  if (filter?.workload !== undefined && result.workload.name !== filter.workload) return false;
  return true;
}
