import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { UsageError } from '../config/errors';
import { ResultDocument, resultDocumentSchema, SUPPORTED_RESULT_SCHEMAS } from './document';
import { messageOf } from '../common/values';
import { withoutBom } from '../config/input-limits';

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path)
    out += typeof part === 'number' ? `[${part}]` : out ? `.${String(part)}` : String(part);
  return out || '(document)';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses and validates the text of a result file. `source` names the file in every error, so a
 * user comparing several files knows which one is bad.
 */
export function parseResult(text: string, source: string): ResultDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(withoutBom(text));
  } catch (err) {
    throw new UsageError(`${source}: not a JSON file (${messageOf(err).replace(/\s+/g, ' ')})`);
  }
  const supported = SUPPORTED_RESULT_SCHEMAS.map((s) => `"${s}"`).join(', ');
  if (!isPlainObject(raw) || typeof raw.schema !== 'string') {
    throw new UsageError(
      `${source}: not a mongo-bench result document (expected a JSON object with "schema": ${supported})`,
    );
  }
  if (!SUPPORTED_RESULT_SCHEMAS.includes(raw.schema)) {
    const hint = raw.schema.startsWith('mongo-bench/result@')
      ? 'it was probably written by a newer mongo-bench; upgrade to render it'
      : 'not a mongo-bench result document';
    throw new UsageError(
      `${source}: unsupported result schema "${raw.schema}" (${hint}); this version reads ${supported}`,
    );
  }
  const parsed = resultDocumentSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue: z.core.$ZodIssue) => `  ${formatPath(issue.path)}: ${issue.message}`);
    const more =
      parsed.error.issues.length > 5 ? [`  ... and ${parsed.error.issues.length - 5} more`] : [];
    throw new UsageError(
      [`${source}: not a valid ${raw.schema} document:`, ...problems, ...more].join('\n'),
    );
  }
  // A step copied in twice would be counted twice by compare and history. Steps of one client count
  // measured separately (`--clients 1,1,1`) differ in their measurements and stay.
  const seen = new Map<string, number>();
  parsed.data.steps.forEach((step, i) => {
    const key = JSON.stringify(step);
    const first = seen.get(key);
    if (first !== undefined)
      throw new UsageError(
        `${source}: steps[${i}] (${step.clients} client${step.clients === 1 ? '' : 's'}) is a copy of steps[${first}]: the step with ${step.clients} client${step.clients === 1 ? '' : 's'} is there twice`,
      );
    seen.set(key, i);
  });
  return parsed.data;
}

/** Reads a result file (results.json) and validates it; errors name the file. */
export async function loadResult(file: string): Promise<ResultDocument> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : messageOf(err);
    throw new UsageError(`${file}: cannot read result file (${why})`);
  }
  return parseResult(text, file);
}
