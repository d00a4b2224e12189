/**
 * `mongo-bench <args>` as a child process, as a user runs it: the CLI from the TypeScript sources
 * (test/support/cli-entry.ts through tsx, or as compiled by compiled-cli.ts under jest; as
 * bin/mongo-bench.js runs the build), so signals reach it alone and its own handlers must stop what it started. Every child started here is kept, for the
 * afterAll that makes sure none is left running (killStartedClis).
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI_JS_ENV } from './compiled-cli';

export const ROOT = path.resolve(__dirname, '../..');
/** The CLI entry the child runs. */
export const CLI_ENTRY = path.join(ROOT, 'test', 'support', 'cli-entry.ts');

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  /** Sees stderr as it accumulates, to act at the right moment (send a signal in a phase). */
  onStderr?: (stderr: string, child: ChildProcess) => void;
  /** Sees stdout as it accumulates. */
  onStdout?: (stdout: string, child: ChildProcess) => void;
  onSpawn?: (child: ChildProcess) => void;
  /**
   * A CLI still running after guardMs gets guardSignal, so a hang (e.g. waiting on children it
   * failed to stop) fails the test rather than timing it out. None by default for startCli (agents
   * wait for work until stopped); runCli's default is 40 s.
   */
  guardMs?: number;
  /**
   * SIGKILL (the default): nothing of the CLI's runs after the guard. SIGTERM: the CLI may stop what
   * it started (SIGKILL follows 5 s later).
   */
  guardSignal?: 'SIGKILL' | 'SIGTERM';
}

export interface CliProcess {
  child: ChildProcess;
  /** stdout and stderr together, in the order they came. */
  output: () => string;
  /** Resolves with the exit code (a signal's name when killed by one). */
  exited: Promise<number | string>;
  /** Resolves once the streams are closed, with everything the child wrote. */
  finished: Promise<Finished>;
  /** Resolves once the output matches. */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<void>;
}

const started: ChildProcess[] = [];

export function startCli(args: string[], options: CliOptions = {}): CliProcess {
  // Under jest, the same entry compiled once per run (compiled-cli.ts): a second less of CPU per start.
  const compiled = process.env[CLI_JS_ENV];
  const entry = compiled ? [compiled] : ['--require', 'tsx/cjs', CLI_ENTRY];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  options.onSpawn?.(child);
  let stdout = '';
  let stderr = '';
  let text = '';
  const listeners: (() => void)[] = [];
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
    text += c.toString();
    options.onStdout?.(stdout, child);
    listeners.forEach((l) => l());
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    text += c.toString();
    options.onStderr?.(stderr, child);
    listeners.forEach((l) => l());
  });
  const guard =
    options.guardMs === undefined
      ? undefined
      : setTimeout(() => {
          const signal = options.guardSignal ?? 'SIGKILL';
          stderr += `\n[test] the CLI did not finish within ${options.guardMs! / 1000} s: sent ${signal}\n`;
          child.kill(signal);
          if (signal !== 'SIGKILL') setTimeout(() => child.kill('SIGKILL'), 5000).unref();
        }, options.guardMs);
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? String(signal))),
  );
  const finished = new Promise<Finished>((resolve) =>
    child.on('close', (code, signal) => {
      if (guard) clearTimeout(guard);
      resolve({ code, signal, stdout, stderr, pid: child.pid ?? -1 });
    }),
  );
  const waitFor = (pattern: RegExp, timeoutMs = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${pattern} in:\n${text}`)),
        timeoutMs,
      );
      const check = () => {
        if (pattern.test(text)) {
          clearTimeout(timer);
          resolve();
        }
      };
      listeners.push(check);
      check();
    });
  return { child, output: () => text, exited, finished, waitFor };
}

/** Runs the CLI to its end (guarded: 40 s unless guardMs says otherwise). */
export function runCli(args: string[], options: CliOptions = {}): Promise<Finished> {
  return startCli(args, { ...options, guardMs: options.guardMs ?? 40_000 }).finished;
}

/** `mongo-bench agent`, waiting for a run on the control database. */
export function startAgent(
  controlUri: string,
  controlDb: string,
  name: string,
  extra: string[] = [],
): CliProcess {
  return startCli([
    'agent',
    '--control-uri',
    controlUri,
    '--control-db',
    controlDb,
    '--name',
    name,
    ...extra,
  ]);
}

/** Kills (SIGKILL) every CLI child still running, and says how many there were. */
export function killStartedClis(): number {
  const alive = started.filter((c) => c.exitCode === null && c.signalCode === null);
  alive.forEach((c) => c.kill('SIGKILL'));
  return alive.length;
}

/** The lines of the run's command-log.txt. */
export function commandLog(out: string): string[] {
  return fs.readFileSync(path.join(out, 'command-log.txt'), 'utf8').trim().split('\n');
}
