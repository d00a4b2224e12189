import { z } from 'zod';
import { kebab, UsageError, UsageProblem } from './errors';

export { kebab };

/** How a config path is shown to the user: `--max-clients` for flags, `sweep.clients[0]` for files. */
export type PathStyle = 'flag' | 'config';

export function describePath(path: ReadonlyArray<PropertyKey>, style: PathStyle): string {
  if (style === 'flag' && path.length > 0) return `option --${kebab(String(path[0]))}`;
  let out = '';
  for (const part of path) {
    out += typeof part === 'number' ? `[${part}]` : out ? `.${String(part)}` : String(part);
  }
  return out ? `config ${out}` : 'config';
}

/** Levenshtein distance, for "did you mean" suggestions on unknown keys. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function problemOf(
  issue: z.core.$ZodIssue,
  style: PathStyle,
  known: readonly string[] = [],
): UsageProblem {
  // A flag's problem names its option (as data: the edge names it for its source); the path inside the value is left to the message.
  if (style === 'flag' && issue.code !== 'unrecognized_keys' && issue.path.length > 0)
    return { option: String(issue.path[0]), text: issue.message };
  return { text: formatIssue(issue, style, known) };
}

function formatIssue(
  issue: z.core.$ZodIssue,
  style: PathStyle,
  known: readonly string[] = [],
): string {
  if (issue.code === 'unrecognized_keys') {
    const where = describePath(issue.path, 'config');
    const spell = (key: string) => (style === 'flag' ? `--${kebab(key)}` : key);
    return issue.keys
      .map((key) => {
        // Only top-level keys are suggested from: the known keys are the schema's own.
        const suggestion = issue.path.length === 0 ? closest(key, known) : undefined;
        return `${where === 'config' ? '' : `${where}: `}unknown ${style === 'flag' ? 'option' : 'key'} "${spell(key)}"${suggestion ? ` (did you mean "${spell(suggestion)}"?)` : ''}`;
      })
      .join('; ');
  }
  return `${describePath(issue.path, style)}: ${issue.message}`;
}

/**
 * Validates raw options against a schema and returns the typed result, or throws a UsageError whose
 * message names every bad option or config path.
 */
export function parseOptions<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  style: PathStyle = 'flag',
): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const known = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  throw new UsageError(result.error.issues.map((issue) => problemOf(issue, style, known)));
}

export const positiveInt = (what: string) =>
  z.number().int(`${what} must be an integer`).min(1, `${what} must be at least 1`);

/** The most trials a step may run: 1,000 trials of the default 10 s already take 3 hours per client count. */
export const MAX_TRIALS = 1000;

/** A trial count: 1 to MAX_TRIALS. */
export const trialCount = (what: string) =>
  positiveInt(what).max(MAX_TRIALS, `${what} must be at most ${MAX_TRIALS}`);

/** Parses an integer flag value strictly ("12", not "12abc" or "1.5"), naming the flag on error. */
export function intArg(flag: string) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim()))
      throw new UsageError(`option ${flag}: expected an integer, got "${value}"`);
    return Number(value);
  };
}

/** A percentage written as --slo writes one ("50%", "0%", "12.5%"), as a fraction (0.5, 0, 0.125). */
export function parsePercent(flag: string, value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(value);
  if (!m)
    throw new UsageError(`option ${flag}: expected a percentage such as 50% or 0%, got "${value}"`);
  const n = Number(m[1]);
  if (n > 100) throw new UsageError(`option ${flag}: a percentage is at most 100%, got "${value}"`);
  return n / 100;
}

export function percentArg(flag: string) {
  return (value: string): number => parsePercent(flag, value);
}

export function numberArg(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n))
      throw new UsageError(`option ${flag}: expected a number, got "${value}"`);
    return n;
  };
}

/** "1,2,4" -> [1, 2, 4] */
export function intListArg(flag: string) {
  return (value: string): number[] =>
    value.split(',').map((part) => {
      if (!/^\s*-?\d+\s*$/.test(part))
        throw new UsageError(
          `option ${flag}: expected a comma-separated list of integers, got "${value}"`,
        );
      return Number(part);
    });
}

/** "2,1,0.5" -> [2, 1, 0.5] */
export function numberListArg(flag: string) {
  const one = numberArg(flag);
  return (value: string): number[] => value.split(',').map((part) => one(part));
}

/** A zod error for an enum that lists the valid values and suggests the closest one to what was given. */
export function oneOfError(values: readonly string[]) {
  return (issue: { input?: unknown }): string => {
    const suggestion = typeof issue.input === 'string' ? closest(issue.input, values) : undefined;
    return `must be one of ${values.join(', ')}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`;
  };
}
