/**
 * `--config FILE`: the options of `mongo-bench run` in a JSON or YAML file, one key per flag
 * (camelCase or the flag's own kebab-case spelling). Errors name the file, the line and the key:
 * `run.yaml:4: clients[1]: each client count must be at least 1`, `run.yaml:2: unknown key
 * "maxClient" (did you mean "maxClients"?)`. Flags given on the command line override the file.
 * Checks made later, on the merged options, are re-aimed at the file's line with `placeInFile`.
 */
import * as fs from 'node:fs';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { UsageError, UsageProblem } from './errors';
import { closest, kebab } from './validate';
import {
  MAX_NESTING,
  MAX_YAML_ALIASES,
  tooDeep,
  tooDeepText,
  yamlAliasProblem,
} from './input-limits';

export interface ConfigFileResult<T> {
  /** The validated values, keys in camelCase. */
  values: T;
  file: string;
  /** Where each key was written (camelCase key -> the key as written and its 1-based line), for later errors. */
  places: Record<string, { key: string; line?: number }>;
  /** The 1-based line of a path in the file, keys as written (`['scenarios', 1, 'events', 0, 'at']`): its deepest part the file has. */
  lineAt?: (path: readonly (string | number)[]) => number | undefined;
}

/** "max-clients" -> "maxClients" */
export function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * Reads and validates a config file against `shape` (the flags' zod shape). `keys` lists every
 * key the file may hold (for "did you mean"); `notInFile` lists flags that make no sense there.
 */
export function readConfigFile<S extends z.ZodRawShape>(
  file: string,
  shape: S,
  notInFile: Record<string, string> = {},
): ConfigFileResult<z.output<z.ZodObject<S>>> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `option --config: cannot read ${file} (${code === 'ENOENT' ? 'no such file' : (code ?? String(err))})`,
    );
  }
  return parseConfigText(text, file, shape, notInFile);
}

export function parseConfigText<S extends z.ZodRawShape>(
  text: string,
  file: string,
  shape: S,
  notInFile: Record<string, string> = {},
): ConfigFileResult<z.output<z.ZodObject<S>>> {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const pos = lines.linePos(first.pos[0]);
    const where = `${pos.line}:${pos.col}`;
    // The parser recurses per level: a file nested thousands deep overflows it.
    const why = /call stack/i.test(first.message)
      ? `nested too deep (more than ${MAX_NESTING} levels is refused)`
      : first.message.split('\n')[0];
    throw new UsageError(
      `config file ${file}:${where}: not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${why}`,
    );
  }
  const lineNumber = (path: readonly (string | number)[]): number | undefined => {
    const node = nodeAt(doc, path);
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    return range ? lines.linePos(range[0]).line : undefined;
  };
  const lineOf = (path: readonly (string | number)[]): string => {
    const line = lineNumber(path);
    return line !== undefined ? `:${line}` : '';
  };
  if (doc.contents === null) return { values: {} as z.output<z.ZodObject<S>>, file, places: {} };
  if (!isMap(doc.contents))
    throw new UsageError(
      `config file ${file}: expected an object of options (key: value), not a ${Array.isArray(doc.toJS()) ? 'list' : 'single value'}`,
    );

  // Keys: accept the flag's spelling (max-clients) and camelCase (maxClients).
  const known = Object.keys(shape);
  let values: Record<string, unknown>;
  try {
    values = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as Record<string, unknown>;
  } catch (err) {
    const problem = yamlAliasProblem(err);
    if (problem === undefined) throw err;
    throw new UsageError(`config file ${file}: ${problem}`);
  }
  const deep = tooDeep(values);
  if (deep !== undefined) throw new UsageError(`config file ${file}: ${tooDeepText(deep)}`);
  const raw: Record<string, unknown> = {};
  const sourceKey: Record<string, string> = {};
  const problems: UsageProblem[] = [];
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const name = camel(key);
    const at = `${file}${lineOf([key])}`;
    if (notInFile[name] !== undefined) {
      problems.push({
        option: name,
        named: `config file ${at}: "${key}"`,
        joint: ' ',
        text: notInFile[name],
      });
      continue;
    }
    if (!known.includes(name)) {
      const suggestion = closest(name, known);
      problems.push({
        option: key,
        named: `config file ${at}`,
        text: `unknown key "${key}"${suggestion ? ` (did you mean "${key.includes('-') ? kebab(suggestion) : suggestion}"?)` : ''}`,
      });
      continue;
    }
    if (name in raw) {
      problems.push({
        option: name,
        named: `config file ${at}: "${key}"`,
        joint: ' ',
        text: `given twice (as "${sourceKey[name]}" too)`,
      });
      continue;
    }
    raw[name] = values[key];
    sourceKey[name] = key;
  }
  if (problems.length > 0) throw new UsageError(problems);

  const result = z.object(shape).strict().safeParse(raw);
  const places = Object.fromEntries(
    Object.entries(sourceKey).map(([name, key]) => [name, { key, line: lineNumber([key]) }]),
  );
  // A later error deep in a value (scenarios[1].events[0].at) is sent to that line, not the key's.
  const lineAt = (path: readonly (string | number)[]): number | undefined => {
    for (let n = path.length; n > 0; n--) {
      const range = (
        doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined
      )?.range;
      if (range) return lines.linePos(range[0]).line;
    }
    return undefined;
  };
  if (result.success) return { values: result.data, file, places, lineAt };
  throw new UsageError(
    result.error.issues.map((issue): UsageProblem => {
      const [head, ...rest] = issue.path as (string | number)[];
      if (head === undefined) return { text: `config file ${file}${lineOf([])}: ${issue.message}` };
      const original = sourceKey[String(head)] ?? String(head);
      return {
        option: String(head),
        path: rest,
        named: `config file ${file}${lineOf([original, ...rest])}: ${original}`,
        text: issue.message,
      };
    }),
  );
}

function nodeAt(doc: Document, path: readonly (string | number)[]): unknown {
  if (path.length === 0) return doc.contents;
  // The value's node, or (for a missing value) the key's.
  return doc.getIn(path, true) ?? doc.getIn(path.slice(0, 1), true);
}

/**
 * For withOptionPlaces (error-place.ts): `config file run.yaml:3: writeConcern` for a key the file
 * gave, undefined for one it did not (that error names the flag, or the API key, as it was). `path`:
 * the part of the value the message names (`[1, 'events', 0, 'at']`), whose own line is given.
 */
export function placeInFile(
  read: Pick<ConfigFileResult<unknown>, 'file' | 'places' | 'lineAt'>,
  key: string,
  path: readonly (string | number)[] = [],
): string | undefined {
  const place = read.places[key];
  if (!place) return undefined;
  // The line of the part the message names (`path`, below the key), else the key's own.
  const line = (path.length > 0 ? read.lineAt?.([place.key, ...path]) : undefined) ?? place.line;
  return `config file ${read.file}${line !== undefined ? `:${line}` : ''}: ${place.key}`;
}
