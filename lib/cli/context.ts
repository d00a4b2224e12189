import type { Command } from 'commander';
/** What a command needs from its surroundings; tests pass their own to capture output. */
export interface CliContext {
  out(text: string): void;
  err(text: string): void;
  /** Set by a command's action; main() returns it. */
  exitCode: number;
}

export function processContext(): CliContext {
  return {
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    exitCode: 0,
  };
}

/** The words typed after the program name (for command-log.txt); commander keeps them untyped. */
export function rawArgs(command: Command): string[] {
  const raw = (command.parent as unknown as { rawArgs?: string[] } | null)?.rawArgs;
  return Array.isArray(raw) ? raw.slice(2) : [];
}
