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
  sigint: 130,
  sigterm: 143,
} as const;
