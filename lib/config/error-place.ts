/**
 * Option errors are written once, naming the command-line flag (`option --write-concern: ...`).
 * When the value came from somewhere else (a config file's line, an API key), these helpers
 * re-aim the message at that place, so the user is sent to what they actually wrote.
 */
import { UsageError } from './errors';
import { camel } from './config-file';
import { closest } from './validate';

/** `option --write-concern` (or a path in it, `option --scenarios[1].rate`) at the start of a line of the message: the flag's camelCase key. */
const FLAG_AT_START = /^option --([a-z][a-z0-9-]*)(?=[:\s[.])/;
/** The path in the option a message names after the flag: `[1].events[0].at`. */
const PATH_AFTER = /^(?:\[\d+\]|\.[A-Za-z_$][\w$]*)*/;

/** `[1].events[0].at` -> [1, 'events', 0, 'at'] */
function pathParts(text: string): Array<string | number> {
  return [...text.matchAll(/\[(\d+)\]|\.([A-Za-z_$][\w$]*)/g)].map((m) => (m[1] !== undefined ? Number(m[1]) : m[2]));
}

/**
 * Runs `fn`; a UsageError whose lines start with `option --<flag>` is rethrown with each such
 * prefix replaced by `place(key, path)` (key in camelCase; path: the part of its value the message
 * names, `[1, 'events', 0, 'at']`) where that returns a place, kept otherwise.
 */
export function withOptionPlaces<T>(fn: () => T, place: (key: string, path: ReadonlyArray<string | number>) => string | undefined): T {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    let changed = false;
    const lines = err.message.split('\n').map((line) => {
      const m = FLAG_AT_START.exec(line);
      const where = m ? place(camel(m[1]), pathParts(PATH_AFTER.exec(line.slice(m[0].length))?.[0] ?? '')) : undefined;
      if (!m || where === undefined) return line;
      changed = true;
      return `${where}${line.slice(m[0].length)}`;
    });
    if (!changed) throw err;
    const moved = new UsageError(lines.join('\n'));
    moved.stack = err.stack;
    throw moved;
  }
}

/** An API input's keys against the known ones: `option maxClient: unknown key (did you mean "maxClients"?)`. */
export function checkApiKeys(input: object, known: readonly string[]): void {
  const problems = Object.keys(input)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const suggestion = closest(key, known);
      return `option ${key}: unknown key${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`;
    });
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
}
