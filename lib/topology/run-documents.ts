/**
 * The fields of the documents `mongo-bench run` loads, read off the loader's own document factory
 * so the two cannot drift. A shard key that is not among them is missing from every document, and
 * a missing shard key counts as null: every document would go to the one chunk holding null.
 */
import { documentFactory } from '../workload/language/documents';

export const RUN_DOCUMENT_FIELDS: readonly string[] = Object.keys(documentFactory(1, 0, 1).make(0));

/** True when `field` is one of the top-level fields of run's documents (a dotted path never is). */
export function isRunDocumentField(field: string): boolean {
  return RUN_DOCUMENT_FIELDS.includes(field);
}
