/** Bad input from the user: an option, a config key, a file. Exit code 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
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

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  /** compare: no client count could be tested (e.g. one run each): neither a pass nor a failure. */
  notCompared: 3,
  /** run: an objective (--slo) failed. */
  objectiveFailed: 99,
  sigint: 130,
  sigterm: 143,
} as const;

/**
 * When two outcomes each have their code, the one shown wins by this order (first wins): bad input, an
 * interrupt, a failure, a failed objective, nothing compared, success. A run that failed and also missed
 * an objective exits 1: the failure is the news.
 */
export const EXIT_PRECEDENCE: readonly number[] = [EXIT.usage, EXIT.sigint, EXIT.sigterm, EXIT.failed, EXIT.objectiveFailed, EXIT.notCompared, EXIT.ok];

/** The code that wins between two (by EXIT_PRECEDENCE; a code not listed ranks just after the interrupts). */
export function worstExit(a: number, b: number): number {
  const rank = (code: number) => {
    const i = EXIT_PRECEDENCE.indexOf(code);
    return i >= 0 ? i : EXIT_PRECEDENCE.indexOf(EXIT.failed) - 0.5;
  };
  return rank(a) <= rank(b) ? a : b;
}
