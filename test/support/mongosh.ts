/**
 * Runs the real mongosh CLI (the `mongosh` dev dependency) against a URI, non-interactively and
 * without touching the user's home: a temporary HOME (logs, history, update metadata land there
 * and are removed), `--norc`, `--quiet`, telemetry forced off, and a bounded run time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { mongoshScript } from './servers';

export interface MongoshOptions {
  /** JavaScript for `--eval`. */
  eval?: string;
  /** A script file to run (passed as mongosh's positional file argument; relative to process.cwd()). */
  file?: string;
  /** Script text: written to a temporary .js file and run like `file`. */
  script?: string;
  /** Kill mongosh (SIGKILL) after this long; default 30 s. */
  timeoutMs?: number;
  /** More command-line arguments, placed before the URI. */
  args?: string[];
}

export interface MongoshResult {
  /** Exit code; null when mongosh was killed (see timedOut). */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Wall-clock time from spawn to exit. */
  durationMs: number;
}

export async function runMongosh(uri: string, options: MongoshOptions): Promise<MongoshResult> {
  const script = mongoshScript();
  if (!script)
    throw new Error(
      'mongosh is not installed (dev dependency "mongosh" missing from node_modules)',
    );
  const given = [options.eval, options.file, options.script].filter((x) => x !== undefined).length;
  if (given !== 1) throw new Error('runMongosh: pass exactly one of eval, file or script');

  const home = mkdtempSync(path.join(tmpdir(), 'mongo-bench-mongosh-'));
  try {
    // The global config file is the only place `forceDisableTelemetry` can be set; an empty
    // updateURL stops update checks even if --quiet ever stops implying that.
    const globalConfig = path.join(home, 'mongosh.conf');
    writeFileSync(globalConfig, "mongosh:\n  forceDisableTelemetry: true\n  updateURL: ''\n");
    const args = [script, '--norc', '--quiet', ...(options.args ?? []), uri];
    if (options.eval !== undefined) args.push('--eval', options.eval);
    if (options.file !== undefined) args.push(path.resolve(options.file)); // mongosh runs in the temp HOME
    if (options.script !== undefined) {
      const file = path.join(home, 'script.js');
      writeFileSync(file, options.script);
      args.push(file);
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home,
      USERPROFILE: home,
      MONGOSH_GLOBAL_CONFIG_FILE_FOR_TESTING: globalConfig,
      MONGOSH_FORCE_DISABLE_TELEMETRY_FOR_TESTING: '1',
      DO_NOT_TRACK: '1',
      NO_COLOR: '1',
    };
    return await spawnBounded(process.execPath, args, env, home, options.timeoutMs ?? 30_000);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function spawnBounded(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs: number,
): Promise<MongoshResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut, durationMs: Date.now() - started });
    });
  });
}
