/**
 * Option errors carry their option as data (UsageError's problems) and are named as flags
 * (`option --write-concern: ...`) until they reach the edge that knows where the value came from (a
 * config file's line, an API key): these helpers name them for that place.
 */
import { OptionNamer, UsageError } from './errors';
import { closest } from './validate';

/** Runs `fn`; a UsageError it throws is rethrown with its options named by `name` (where that gives a name). */
export function withOptionPlaces<T>(fn: () => T, name: OptionNamer): T {
  try {
    return fn();
  } catch (err) {
    throw err instanceof UsageError ? err.placed(name) : err;
  }
}

/** An API option's name: `option maxClients`. */
export const apiNamer: OptionNamer = (option) => `option ${option}`;

/** An API input's keys against the known ones: `option maxClient: unknown key (did you mean "maxClients"?)`. */
export function checkApiKeys(input: object, known: readonly string[]): void {
  const problems = Object.keys(input)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const suggestion = closest(key, known);
      return {
        option: key,
        named: apiNamer(key),
        text: `unknown key${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
      };
    });
  if (problems.length > 0) throw new UsageError(problems);
}
