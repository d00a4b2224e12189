/**
 * Running the CLI in-process for tests: a CliContext that records what a command prints, main()
 * through it, and the check that a function rejects bad input with a UsageError.
 */
import { CliContext } from '../../lib/cli/context';
import { main } from '../../lib/cli/main';
import { UsageError } from '../../lib/config/errors';

export interface CapturedContext extends CliContext {
  stdout: string;
  stderr: string;
}

export interface CaptureOptions {
  /**
   * How each out()/err() call is recorded: 'as-given' (the default), 'terminal' (a newline added
   * where the text has none, as processContext does), or 'always' (a newline after every call).
   */
  newline?: 'as-given' | 'terminal' | 'always';
  /** Called after each err() with everything written there so far (to act on progress lines). */
  onErr?: (stderr: string) => void;
}

export function captureContext(options: CaptureOptions = {}): CapturedContext {
  const record = (text: string): string => {
    if (options.newline === 'always') return `${text}\n`;
    if (options.newline === 'terminal' && !text.endsWith('\n')) return `${text}\n`;
    return text;
  };
  const ctx: CapturedContext = {
    stdout: '',
    stderr: '',
    exitCode: 0,
    out(text: string) {
      ctx.stdout += record(text);
    },
    err(text: string) {
      ctx.stderr += record(text);
      options.onErr?.(ctx.stderr);
    },
  };
  return ctx;
}

export interface CliOutcome {
  /** main()'s exit code. */
  code: number;
  stdout: string;
  stderr: string;
  ctx: CapturedContext;
}

/** `mongo-bench <args...>` in this process, its output captured. */
export async function runCli(args: string[], options: CaptureOptions = {}): Promise<CliOutcome> {
  const ctx = captureContext(options);
  const code = await main(['node', 'mongo-bench', ...args], ctx);
  return { code, stdout: ctx.stdout, stderr: ctx.stderr, ctx };
}

/** The message of the UsageError fn throws; fails the test when it throws something else or nothing. */
export function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}
