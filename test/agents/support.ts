/**
 * Agents as the user starts them: `mongo-bench agent` child processes (the CLI from the sources,
 * through tsx), their stderr kept so a test can act on "waiting for a run" or "step 1:". Every
 * process started here is in `started`, for the afterAll that makes sure none is left running.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'test', 'run', 'support', 'cli.ts');

export interface CliProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code (a signal's name when killed by one). */
  exited: Promise<number | string>;
  /** Resolves once the output matches. */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<void>;
}

export const started: ChildProcess[] = [];

export function startCli(args: string[]): CliProcess {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let text = '';
  const listeners: (() => void)[] = [];
  const onData = (c: Buffer) => {
    text += c.toString();
    listeners.forEach((l) => l());
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? String(signal))));
  const waitFor = (pattern: RegExp, timeoutMs = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern} in:\n${text}`)), timeoutMs);
      const check = () => {
        if (pattern.test(text)) {
          clearTimeout(timer);
          resolve();
        }
      };
      listeners.push(check);
      check();
    });
  return { child, output: () => text, exited, waitFor };
}

export function startAgent(controlUri: string, controlDb: string, name: string, extra: string[] = []): CliProcess {
  return startCli(['agent', '--control-uri', controlUri, '--control-db', controlDb, '--name', name, ...extra]);
}

/** Kills whatever a test left running, and says whether anything was. */
export function killLeftovers(): number {
  const alive = started.filter((c) => c.exitCode === null && c.signalCode === null);
  alive.forEach((c) => c.kill('SIGKILL'));
  return alive.length;
}
