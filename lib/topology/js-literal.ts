/**
 * Writes plain data as a JavaScript literal a person would type: unquoted keys where JavaScript
 * allows them, one line when it fits, otherwise one entry per line.
 */
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const LINE_WIDTH = 100;

function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function scalar(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot write ${value} as a JavaScript literal`);
    return Object.is(value, -0) ? '0' : String(value);
  }
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  throw new Error(`cannot write a ${typeof value} as a JavaScript literal`);
}

/** The literal on one line, whatever its length. */
export function oneLine(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[${value.map(oneLine).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(
      ([, v]) => v !== undefined,
    );
    return entries.length === 0
      ? '{}'
      : `{ ${entries.map(([k, v]) => `${key(k)}: ${oneLine(v)}`).join(', ')} }`;
  }
  return scalar(value);
}

/**
 * `indent` is the indentation of the line the literal starts on; `column` is where on that line it
 * starts (after a key, say), for the width decision.
 */
export function jsLiteral(value: unknown, indent = 0, column = indent): string {
  const flat = oneLine(value);
  if (column + flat.length <= LINE_WIDTH || value === null || typeof value !== 'object')
    return flat;
  const pad = ' '.repeat(indent + 2);
  const close = ' '.repeat(indent);
  if (Array.isArray(value)) {
    return `[\n${value.map((v) => `${pad}${jsLiteral(v, indent + 2)},`).join('\n')}\n${close}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([, v]) => v !== undefined,
  );
  return `{\n${entries.map(([k, v]) => `${pad}${key(k)}: ${jsLiteral(v, indent + 2, indent + 2 + key(k).length + 2)},`).join('\n')}\n${close}}`;
}
