/** Small checks and conversions of plain values that many modules share. */

/** A non-null, non-array object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A plain {...} object from any realm (structuredClone and node:vm have their own Object), not a BSON value or Date. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  return (
    proto === null ||
    (Object.getPrototypeOf(proto) === null && proto.constructor?.name === 'Object')
  );
}

/** The object without its undefined fields. */
export function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** An error's message; anything else thrown, as text. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** An error thrown because a run or a start was cut short (its name is AbortError). */
export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** A moment as a file name: ISO time to the second, with dashes for colons (2024-05-01T12-00-00Z). */
export function fileTimestamp(now: Date): string {
  return now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
}

/** A value as JSON for a message (String() where JSON cannot say it). */
export function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A count with its noun, singular for exactly one: "1 client", "4 clients"; a list reads "1, 2, 4 clients" ("1 client" alone). */
export function counted(
  count: number | readonly number[],
  noun: string,
  plural = `${noun}s`,
): string {
  const list = typeof count === 'number' ? [count] : count;
  return `${list.join(', ')} ${list.length === 1 && list[0] === 1 ? noun : plural}`;
}
