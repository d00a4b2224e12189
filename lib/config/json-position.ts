/**
 * Where strict JSON (RFC 8259) first goes wrong, as a line and column: JSON.parse in Node 20 says
 * `Unexpected token ']'` and no place. Files read with JSON.parse (workload files) name the place as
 * config files do (`file:4:3: not valid JSON: ...`). A trailing comma is named as such: config files,
 * read as YAML, accept one; JSON.parse does not.
 */

export interface JsonSyntaxError {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  message: string;
}

class Stop extends Error {
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function shown(ch: string | undefined): string {
  return ch === undefined ? 'end of file' : `'${ch}'`;
}

/** The first syntax error of `text` as JSON, or undefined when it is valid JSON. */
export function findJsonError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const string = () => {
    const start = i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        const esc = text[i + 1];
        if (esc === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))
            throw new Stop(i, 'a \\u escape needs four hex digits');
          i += 6;
        } else if (esc !== undefined && '"\\/bfnrt'.includes(esc)) i += 2;
        else throw new Stop(i, `unknown escape \\${esc ?? ''} in a string`);
      } else if (text.charCodeAt(i) < 0x20)
        throw new Stop(i, 'a line break or control character inside a string (write \\n)');
      else i++;
    }
    if (i >= text.length) throw new Stop(start, 'a string that is never closed');
    i++;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') return object();
    if (ch === '[') return array();
    if (ch === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    NUMBER.lastIndex = i;
    if ((ch === '-' || (ch >= '0' && ch <= '9')) && NUMBER.test(text)) {
      i = NUMBER.lastIndex;
      return;
    }
    throw new Stop(
      i,
      ch === "'"
        ? 'a single-quoted string (JSON needs double quotes)'
        : `unexpected ${shown(ch)}: expected a value`,
    );
  };
  const list = (close: string, item: () => void) => {
    i++;
    ws();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      if (text[i] !== ',')
        throw new Stop(i, `unexpected ${shown(text[i])}: expected ',' or '${close}'`);
      const comma = i++;
      ws();
      if (text[i] === close)
        throw new Stop(comma, `a trailing comma before '${close}' (JSON allows none: remove it)`);
    }
  };
  const object = () =>
    list('}', () => {
      ws();
      if (text[i] !== '"')
        throw new Stop(i, `unexpected ${shown(text[i])}: expected a key in double quotes`);
      string();
      ws();
      if (text[i] !== ':')
        throw new Stop(i, `unexpected ${shown(text[i])}: expected ':' after the key`);
      i++;
      value();
    });
  const array = () => list(']', value);
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    value();
    ws();
    if (i < text.length) throw new Stop(i, `unexpected ${shown(text[i])} after the JSON value`);
    return undefined;
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    const before = text.slice(0, err.at).split('\n');
    return {
      line: before.length,
      column: before[before.length - 1].length + 1,
      message: err.message,
    };
  }
}
