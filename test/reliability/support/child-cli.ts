/**
 * `mongo-bench <args>` as a child process from the TypeScript sources (test/run/support/cli.ts),
 * as a user runs it: signals reach it alone, and its own handlers must stop what it started.
 * `onStderr` sees stderr as it accumulates, to act at the right moment (send a signal in a phase).
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'test', 'run', 'support', 'cli.ts');

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
}

export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; onStderr?: (stderr: string, child: ChildProcess) => void; onSpawn?: (child: ChildProcess) => void; guardMs?: number } = {}): Promise<Finished> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', CLI, ...args], { cwd: ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  options.onSpawn?.(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    options.onStderr?.(stderr, child);
  });
  // A CLI that hangs fails the test instead of timing it out.
  const guard = setTimeout(() => {
    stderr += '\n[test] the CLI did not finish in time: sent SIGKILL\n';
    child.kill('SIGKILL');
  }, options.guardMs ?? 40_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr, pid: child.pid ?? -1 });
    }),
  );
}
