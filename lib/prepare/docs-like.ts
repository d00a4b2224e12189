/**
 * `run --docs-like`: the loader writes documents shaped like the user's (issue 26) instead of its
 * built-in shape. The documents come from a template inferred from a `$sample` of a real collection
 * (lib/capture/docs-like: field types, sizes and ranges; no sampled value is ever loaded or written).
 * Where the template comes from, in the order the value is tried:
 * - `mongodb://HOST/db.coll`: sample that collection on that server (as `capture --docs-like` does);
 * - a capture folder, or the docs-like.json in it: the template `capture --docs-like` saved there, so a
 *   replay elsewhere needs no access to the sampled server;
 * - `db.coll`: sample that collection on the run's own target, before the loader writes anything.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { withoutBom } from '../config/input-limits';
import { join } from 'node:path';
import type { MongoClient } from 'mongodb';
import { UsageError } from '../config/errors';
import {
  DOCS_LIKE_FILE,
  parseDocsLike,
  sampleCollection,
  sampleDocsLike,
} from '../capture/docs-like';
import { parseNamespace } from '../workload/language/op-spec';
import { parseTypedEjson } from '../workload/language/typed-ejson';
import { messageOf } from '../common/values';

export type DocsLikeSpec =
  | { kind: 'uri'; value: string }
  | { kind: 'file'; path: string; source: string; template: Record<string, unknown> }
  | { kind: 'namespace'; db: string; coll: string };

export interface DocumentTemplate {
  /** Where the documents are modelled on, for the progress line and the result. */
  source: string;
  /** The template with its values typed as a workload file holds them ({"$date": ...} is a Date). */
  template: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function readTemplateFile(path: string): DocsLikeSpec {
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutBom(readFileSync(path, 'utf8')));
  } catch (err) {
    throw new UsageError(`option --docs-like: cannot read ${path}: ${messageOf(err)}`);
  }
  if (!isObject(parsed) || !isObject(parsed.template)) {
    throw new UsageError(
      `option --docs-like: ${path} has no "template" object (capture --docs-like writes ${DOCS_LIKE_FILE})`,
    );
  }
  return {
    kind: 'file',
    path,
    source: typeof parsed.source === 'string' ? parsed.source : path,
    template: parsed.template,
  };
}

/** Checks the option's value at once (before connecting), reading a template file now. */
export function parseDocsLikeOption(value: string): DocsLikeSpec {
  const v = value.trim();
  if (/^mongodb(\+srv)?:\/\//.test(v)) {
    parseDocsLike(v); // throws the named error
    return { kind: 'uri', value: v };
  }
  if (existsSync(v)) {
    if (!statSync(v).isDirectory()) return readTemplateFile(v);
    const inside = join(v, DOCS_LIKE_FILE);
    if (!existsSync(inside))
      throw new UsageError(
        `option --docs-like: ${v} holds no ${DOCS_LIKE_FILE} (capture writes it when given --docs-like)`,
      );
    return readTemplateFile(inside);
  }
  const ns = parseNamespace(v, false);
  if (ns && !v.includes('/') && !v.endsWith('.json'))
    return { kind: 'namespace', db: ns.db, coll: ns.coll };
  throw new UsageError(
    `option --docs-like: expected a capture folder (or its ${DOCS_LIKE_FILE}), a namespace database.collection on the target, or mongodb://HOST/database.collection; "${value}" is none of these (no such file)`,
  );
}

/** The template the loader uses; samples now for the `uri` and `namespace` forms. */
export async function resolveDocsLike(
  spec: DocsLikeSpec,
  target: MongoClient,
  sampleSize?: number,
): Promise<DocumentTemplate> {
  const sampled =
    spec.kind === 'file'
      ? { source: spec.source, template: spec.template }
      : spec.kind === 'uri'
        ? await sampleDocsLike(spec.value, sampleSize)
        : await sampleCollection(
            target,
            spec.db,
            spec.coll,
            `${spec.db}.${spec.coll} on the target`,
            sampleSize,
          );
  // Typed as a workload file's templates are ({"$date": ...} constants become dates).
  return { source: sampled.source, template: parseTypedEjson(JSON.stringify(sampled.template)) };
}
