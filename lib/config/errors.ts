/** "maxClients" -> "max-clients" */
export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Where a problem lies: an option, and a path inside its value. */
export interface OptionPlace {
  /** The option as config files and the API spell it (`maxClients`), or an unknown key as written (`maxClient`). */
  option?: string;
  /** Where inside the option's value (`scenarios[1].rate`: [1, 'rate']). */
  path?: readonly (string | number)[];
}

/** One problem of a UsageError: its place as data, and what is wrong. */
export interface UsageProblem extends OptionPlace {
  /** What is wrong, without the place (with one, the whole line). */
  text: string;
  /** What joins the place and the text: ': ' (`option --rate: must be > 0`), or ' ' (`option --replay-rate needs --workload-file`). */
  joint?: string;
  /** The option as named for the source its value came from (set by UsageError.placed); the flag when absent. */
  named?: string;
}

/**
 * How an option is named for the source its value came from: a flag (`option --max-clients`, the
 * default), a config file's line (`config file run.yaml:3: maxClients`), an API key (`option
 * maxClients`); undefined leaves the flag's name.
 */
export type OptionNamer = (
  option: string,
  path?: readonly (string | number)[],
) => string | undefined;

/** Options whose flag is not their key in kebab case (`opCount` is `--ops`), as the option tables tell them. */
const FLAG_SPELLINGS = new Map<string, string>();
export function spellFlag(option: string, flag: string): void {
  FLAG_SPELLINGS.set(option, flag);
}
export const flagNamer = (option: string): string =>
  `option ${FLAG_SPELLINGS.get(option) ?? `--${kebab(option)}`}`;

/** `[1].rate` */
export function pathText(path: readonly (string | number)[] = []): string {
  return path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('');
}

/** One problem as a line of the message, its option named by `name` (the flag by default). */
export function renderProblem(problem: UsageProblem, name: OptionNamer = flagNamer): string {
  if (problem.option === undefined) return problem.text;
  return `${problem.named ?? name(problem.option, problem.path) ?? flagNamer(problem.option)}${pathText(problem.path)}${problem.joint ?? ': '}${problem.text}`;
}

/**
 * A message written before errors carried their place (`option --ns: expected ...`, one per line):
 * its place read back as data, once, here.
 */
function problemsOf(message: string): UsageProblem[] {
  return message.split('\n').map((line) => {
    const m = /^option --([a-z][a-z0-9-]*)((?:\[\d+\]|\.[\w$]+)*)(: | )(.*)$/s.exec(line);
    if (!m) return { text: line };
    const option = m[1].replace(/-([a-z])/g, (_x, c: string) => c.toUpperCase());
    const path = [...m[2].matchAll(/\[(\d+)\]|\.([\w$]+)/g)].map((p) =>
      p[1] !== undefined ? Number(p[1]) : p[2],
    );
    return {
      option,
      ...(path.length > 0 ? { path } : {}),
      text: m[4],
      ...(m[3] === ': ' ? {} : { joint: m[3] }),
    };
  });
}

/**
 * Bad input from the user: an option, a config key, a file. Exit code 2. Its problems carry their
 * place as data (`option`, `path`); the message names them as flags until the edge that knows where
 * the value came from names them for that source (`placed`).
 */
export class UsageError extends Error {
  readonly exitCode = 2;
  readonly problems: readonly UsageProblem[];
  /** `new UsageError('must be at least 1', { option: 'maxClients' })`, or several problems at once. */
  constructor(
    message: string | readonly UsageProblem[],
    place?: OptionPlace & Pick<UsageProblem, 'joint'>,
  ) {
    const problems =
      typeof message !== 'string'
        ? message
        : place
          ? [{ ...place, text: message }]
          : problemsOf(message);
    super(problems.map((p) => renderProblem(p)).join('\n'));
    this.name = 'UsageError';
    this.problems = problems;
  }

  /** The first problem's option (camelCase), if it names one. */
  get option(): string | undefined {
    return this.problems.find((p) => p.option !== undefined)?.option;
  }

  /** The first problem's path inside its option's value. */
  get path(): readonly (string | number)[] | undefined {
    return this.problems.find((p) => p.option !== undefined)?.path;
  }

  /** The same error with its options named for the source their values came from (itself when none is renamed). */
  placed(name: OptionNamer): UsageError {
    let renamed = false;
    const problems = this.problems.map((p) => {
      const named =
        p.option === undefined || p.named !== undefined ? undefined : name(p.option, p.path);
      if (named === undefined) return p;
      renamed = true;
      return { ...p, named };
    });
    if (!renamed) return this;
    const moved = new UsageError(problems);
    moved.stack = this.stack;
    return moved;
  }
}

/** A failure while doing the work (server unreachable, command failed). Exit code 1. */
export class RunError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'RunError';
    this.exitCode = exitCode;
  }
}

/**
 * Every exit code, its meaning and (for a code one command alone gives) that command: EXIT is its
 * codes, and `mongo-bench --help`'s "Exit codes:" is written from it.
 */
export const EXIT_CODES = {
  ok: { code: 0, meaning: 'success' },
  failed: {
    code: 1,
    meaning:
      'the run failed (server unreachable, a command failed, a step failed with --on-error stop)',
  },
  usage: { code: 2, meaning: 'bad input: an unknown or invalid option, config key or file' },
  notCompared: {
    code: 3,
    meaning:
      'nothing could be tested (compare: one run each, too few trials; history: no series long enough): neither a pass nor a failure',
    command: 'compare, history',
  },
  objectiveFailed: { code: 99, meaning: 'an objective (--slo) failed', command: 'run' },
  sigint: { code: 130, meaning: 'interrupted by Ctrl-C (SIGINT); partial results were written' },
  sigterm: { code: 143, meaning: 'terminated (SIGTERM); partial results were written' },
} as const satisfies Record<
  string,
  { code: number; meaning: string; command?: string; general?: false }
>;

export const EXIT = Object.fromEntries(
  Object.entries(EXIT_CODES).map(([name, row]) => [name, row.code]),
) as {
  readonly [K in keyof typeof EXIT_CODES]: (typeof EXIT_CODES)[K]['code'];
};

/** The general "Exit codes:" help: one line per code, `  99   run: an objective (--slo) failed`. */
export function exitCodesHelp(): string {
  const rows: readonly { code: number; meaning: string; command?: string; general?: false }[] =
    Object.values(EXIT_CODES);
  return [
    'Exit codes:',
    ...rows
      .filter((row) => row.general !== false)
      .map(
        (row) =>
          `  ${String(row.code).padEnd(5)}${row.command ? `${row.command}: ` : ''}${row.meaning}`,
      ),
  ].join('\n');
}

/**
 * When two outcomes each have their code, the one shown wins by this order (first wins): bad input, an
 * interrupt, a failure, a failed objective, nothing compared, success. A run that failed and also missed
 * an objective exits 1: the failure is the news.
 */
export const EXIT_PRECEDENCE: readonly number[] = [
  EXIT.usage,
  EXIT.sigint,
  EXIT.sigterm,
  EXIT.failed,
  EXIT.objectiveFailed,
  EXIT.notCompared,
  EXIT.ok,
];

/** The code that wins between two (by EXIT_PRECEDENCE; a code not listed ranks just after the interrupts). */
export function worstExit(a: number, b: number): number {
  const rank = (code: number) => {
    const i = EXIT_PRECEDENCE.indexOf(code);
    return i >= 0 ? i : EXIT_PRECEDENCE.indexOf(EXIT.failed) - 0.5;
  };
  return rank(a) <= rank(b) ? a : b;
}
