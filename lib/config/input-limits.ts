/**
 * Limits on what an input file (workload, config, matrix, result) may hold, checked as it is read so
 * that a hostile or broken file is refused naming the file (exit 2) instead of overflowing the stack
 * or expanding without end later: nesting depth, YAML aliases, a UTF-8 byte-order mark.
 */

/**
 * The deepest nesting of objects and arrays a file may hold. MongoDB refuses documents nested more
 * than 100 levels (BSON's limit); a workload's ops, op and filter add a few levels around them.
 */
export const MAX_NESTING = 128;

/** The most YAML alias expansions a file may use (the yaml library's own guard against alias bombs). */
export const MAX_YAML_ALIASES = 100;

/** The text without the UTF-8 byte-order mark some editors put first (JSON.parse refuses it). */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Where a parsed value nests deeper than `limit` objects and arrays: the path to the first level
 * past it (`ops[0].doc.a.a...`, shortened), or undefined. Walked without recursion so that the check
 * itself cannot overflow the stack.
 */
export function tooDeep(value: unknown, limit = MAX_NESTING): string | undefined {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: '' }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.value === null || typeof item.value !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > limit) return item.path.length > 60 ? `${item.path.slice(0, 57)}...` : item.path;
    const entries = Array.isArray(item.value)
      ? item.value.map((v, i) => [`[${i}]`, v] as const)
      : Object.entries(item.value as Record<string, unknown>).map(
          ([k, v]) => [`${item.path ? '.' : ''}${k}`, v] as const,
        );
    for (const [step, child] of entries)
      stack.push({ value: child, depth, path: `${item.path}${step}` });
  }
  return undefined;
}

/** The sentence a file nested too deep is refused with. */
export function tooDeepText(path: string): string {
  return `nested more than ${MAX_NESTING} levels deep (at ${path || 'the top'}); MongoDB documents nest at most 100`;
}

/** The yaml library's error when a file expands more aliases than allowed, in words; else undefined. */
export function yamlAliasProblem(err: unknown): string | undefined {
  return err instanceof Error && /alias count/i.test(err.message)
    ? `too many YAML alias expansions (more than ${MAX_YAML_ALIASES}; an alias bomb?)`
    : undefined;
}
