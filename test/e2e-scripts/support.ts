/**
 * Running generated setup scripts as a user does: `mongo-bench scripts` into an empty folder, then
 * the README's commands in its order (bash for .sh, real mongosh for .js), with the stand-ins as
 * MONGOD/MONGOS, then the README's stop command; and finding any process left behind.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Command } from 'commander';
import type { CliContext } from '../../lib/cli/context';
import { registerScripts } from '../../lib/cli/scripts';
import { runMongosh } from '../support/mongosh';

/**
 * `mongo-bench scripts <args>`: the CLI's own scripts command (registerScripts), parsed by
 * commander as main() does. (Only that command is loaded, so unrelated CLI modules cannot break it.)
 */
export async function generateScripts(
  args: string[],
): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  const ctx: CliContext & { stdout: string; stderr: string } = {
    stdout: '',
    stderr: '',
    exitCode: 0,
    out(text: string) {
      ctx.stdout += `${text}\n`;
    },
    err(text: string) {
      ctx.stderr += `${text}\n`;
    },
  };
  const program = new Command('mongo-bench').exitOverride();
  registerScripts(program, ctx);
  try {
    await program.parseAsync(['node', 'mongo-bench', 'scripts', ...args]);
  } catch (e) {
    return { ok: false, stdout: ctx.stdout, stderr: `${ctx.stderr}${(e as Error).message}` };
  }
  return { ok: ctx.exitCode === 0, stdout: ctx.stdout, stderr: ctx.stderr };
}

export interface StepOutcome {
  command: string;
  code: number | null;
  timedOut: boolean;
  output: string;
  ms: number;
}

/** The commands of "## Run, in this order" (first backticked command of each numbered item) and the stop command. */
export function readmeCommands(readme: string): { run: string[]; stop: string } {
  const section = /## Run, in this order[^\n]*\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  const run = section
    .split('\n')
    .filter((line) => /^\d+\.\s/.test(line))
    .map((line) => /`([^`]+)`/.exec(line)?.[1])
    .filter((c): c is string => c !== undefined);
  const stop = /Stop everything with `([^`]+)`/.exec(readme)?.[1];
  if (run.length === 0 || !stop)
    throw new Error(`README has no "Run, in this order" commands or no stop command:\n${readme}`);
  return { run, stop };
}

/** One README command, run in `cwd`: `bash X.sh ...` or `mongosh --nodb X.js`. */
export async function runReadmeCommand(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<StepOutcome> {
  const started = Date.now();
  const words = command.split(/\s+/);
  if (words[0] === 'mongosh') {
    const file = words[words.length - 1];
    const flags = words.slice(1, -1);
    const saved = { ...process.env };
    Object.assign(process.env, env); // runMongosh passes process.env to mongosh
    try {
      // runMongosh puts its first argument last on the command line: `--nodb` is a flag, not a URI.
      const uriOrFlag = flags.includes('--nodb') ? '--nodb' : '';
      const result = await runMongosh(uriOrFlag, {
        file: path.join(cwd, file),
        timeoutMs,
        args: flags.filter((f) => f !== '--nodb'),
      });
      return {
        command,
        code: result.code,
        timedOut: result.timedOut,
        output: `${result.stdout}${result.stderr}`,
        ms: Date.now() - started,
      };
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  }
  if (words[0] !== 'bash') throw new Error(`README command neither bash nor mongosh: ${command}`);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', words.slice(1), {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // The script's own process group: bash and what it waits on (a --fork parent that hangs).
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ command, code, timedOut, output, ms: Date.now() - started });
    });
  });
}
