/**
 * For the tests that run `mongo-bench run` / `matrix` as a child process with launched (stand-in)
 * servers: the CLI from the TypeScript sources, the command log it writes, and the scan for
 * processes it left behind.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pidsWithCommandLine } from '../launcher/helpers';

export const ROOT = path.resolve(__dirname, '../..');
/** The CLI entry the child runs (as bin/mongo-bench.js runs the build). */
const CLI = path.join(ROOT, 'test', 'run', 'support', 'cli.ts');
export const FAKE_BIN = path.join(ROOT, 'test', 'support', 'fake-bin');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `mongo-bench <args>` as a child process; `onOutput` sees stderr as it comes (to send a signal at
 * the right moment). A CLI still running after guardMs gets SIGTERM (SIGKILL 5 s later), so a hang
 * (e.g. waiting on children it failed to stop) fails the test rather than timing it out.
 */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv, onOutput?: (stderr: string, child: ChildProcess) => void, guardMs = 40_000): Promise<Finished> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    onOutput?.(stderr, child);
  });
  const guard = setTimeout(() => {
    stderr += `\n[test] the CLI did not finish within ${guardMs / 1000} s: sent SIGTERM\n`;
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  }, guardMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** Every process whose command line names this run's data folder (the stand-ins, or anything else started), other than ourselves. */
export function leftovers(dataDir: string): number[] {
  return pidsWithCommandLine(dataDir).filter((pid) => pid !== process.pid);
}

/** The lines of the run's command-log.txt. */
export function commandLog(out: string): string[] {
  return fs.readFileSync(path.join(out, 'command-log.txt'), 'utf8').trim().split('\n');
}
