/**
 * One declaration per option: a command's options as one table (key -> flag, help, schema, default,
 * command-line parser), from which commander's options, the zod shape (flags, config files and the API
 * validate against the same), the type (z.infer), the defaults (shown in --help, applied by the
 * resolution) and the config-file keys are all derived. Adding an option is adding one row.
 *
 * The key is the option's name as config files and the API spell it (camelCase); the flag is
 * commander's spelling ('--batch-size <n>', '--no-load', '--dry-run').
 */
import { Command, Option } from 'commander';
import { z } from 'zod';
import { kebab, spellFlag, UsageError } from './errors';

export interface OptionRow<S extends z.ZodType = z.ZodType, D = unknown> {
  /** commander's spelling; absent for a key only config files and the API take (e.g. `scenarios`). */
  flag?: string;
  /**
   * What it does. A string gets ` (default: X)` appended when the row has a default; a function is
   * given X (the shown default) and places it itself.
   */
  help: string | ((shownDefault: string) => string);
  /** The value's schema; every option is optional (the table's shape makes it so). */
  schema: S;
  /** The value the resolution applies when none is given (and --help shows). */
  default?: D;
  /** How --help shows the default when not as the value itself (0.5 -> "50%"). */
  shownDefault?: string;
  /** The command-line text -> value (commander's argParser); given the flag's name, for its errors. */
  arg?: (flag: string) => (value: string, previous: never) => unknown;
  /** The flag may be given several times (its parser gathers the values); any other given twice is refused. */
  repeatable?: boolean;
}

/** A row, its default typed as written (so RUN_DEFAULTS.maxErrorRate is a number, not the schema's union). */
export function option<S extends z.ZodType, const D extends z.output<S> | undefined = undefined>(
  row: OptionRow<S, D>,
): OptionRow<S, D> {
  return row;
}

export type OptionTable = Record<string, OptionRow<z.ZodType, unknown>>;

/** The zod shape of a table: every option optional. */
export type TableShape<T extends OptionTable> = { [K in keyof T]: z.ZodOptional<T[K]['schema']> };

/** The values a table takes (flags, config file, API), as parsed: z.infer of its shape. */
export type TableValues<T extends OptionTable> = z.output<z.ZodObject<TableShape<T>>>;

type DefaultedKeys<T extends OptionTable> = {
  [K in keyof T]: T[K]['default'] extends undefined ? never : K;
}[keyof T];

/** The defaults of a table: only the rows that have one. */
export type TableDefaults<T extends OptionTable> = {
  readonly [K in DefaultedKeys<T>]: Exclude<T[K]['default'], undefined>;
};

export function tableShape<T extends OptionTable>(table: T): TableShape<T> {
  return Object.fromEntries(
    Object.entries(table).map(([key, row]) => [key, row.schema.optional()]),
  ) as TableShape<T>;
}

export function tableDefaults<T extends OptionTable>(table: T): TableDefaults<T> {
  return Object.fromEntries(
    Object.entries(table).flatMap(([key, row]) =>
      row.default === undefined ? [] : [[key, row.default]],
    ),
  ) as TableDefaults<T>;
}

/** '--batch-size <n>' -> '--batch-size'; '-o, --out <dir>' -> '--out'; '--no-load' stays. */
export function flagName(flag: string): string {
  const words = flag.split(/[ ,|]+/);
  return words.find((word) => word.startsWith('--')) ?? words[0];
}

/** The help text of a row, its default placed. */
export function helpOf(row: OptionRow<z.ZodType, unknown>): string {
  const shown = row.shownDefault ?? (row.default === undefined ? undefined : String(row.default));
  if (typeof row.help === 'function') return row.help(shown ?? '');
  return shown === undefined ? row.help : `${row.help} (default: ${shown})`;
}

/** commander's Option for a row (no default value: only what was typed reaches the resolution, which applies the defaults). */
export function commanderOption(
  row: OptionRow<z.ZodType, unknown> & { flag: string },
  key?: string,
): Option {
  const made = new Option(row.flag, helpOf(row));
  // commander names a value after its flag (--ops -> ops); a row whose key differs (opCount) keeps its key.
  if (key !== undefined && !row.flag.includes('--no-') && made.attributeName() !== key)
    made.attributeName = () => key;
  return row.arg
    ? made.argParser(row.arg(flagName(row.flag)) as (value: string, previous: unknown) => unknown)
    : made;
}

/** Adds the table's options (those with a flag) to a command, in the table's order or the order of `keys`. */
export function addOptions<T extends OptionTable>(
  command: Command,
  table: T,
  keys: readonly (keyof T & string)[] = Object.keys(table),
): Command {
  for (const key of keys) {
    const row = table[key];
    if (row.flag === undefined) continue;
    const made = commanderOption({ ...row, flag: row.flag }, key);
    command.addOption(made);
    // A variadic flag (`--query-stats [files...]`) is announced once per value it takes.
    if (row.repeatable !== true && !made.variadic) refuseRepeats(command, made);
  }
  return command;
}

/**
 * Refuses a flag given twice (`--seconds 2 --seconds 1`): commander would keep the last silently,
 * and which one the user meant is a guess. commander emits `option:NAME` once per occurrence.
 */
function refuseRepeats(command: Command, made: Option): void {
  const values: unknown[] = [];
  command.on(`option:${made.name()}`, (value: unknown) => {
    values.push(value);
    if (values.length < 2) return;
    const shown = values.every((v) => typeof v === 'string')
      ? ` (${values.map((v) => JSON.stringify(v)).join(', then ')})`
      : '';
    throw new UsageError(`option ${flagName(made.flags)}: given twice${shown}; give it once`);
  });
}

/** Tells the errors each row whose flag is not its key in kebab case (`opCount` is `--ops`), so they name it as typed. */
export function spellFlags(table: OptionTable): void {
  for (const [key, row] of Object.entries(table)) {
    const flag = row.flag === undefined ? undefined : flagName(row.flag);
    if (flag !== undefined && !flag.startsWith('--no-') && flag !== `--${kebab(key)}`)
      spellFlag(key, flag);
  }
}
