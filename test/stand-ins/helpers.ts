/** Starting stand-in processes for the model tests (foreground, or through --fork as a user would). */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { FAKE_BIN } from '../support/processes';

export interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** A stand-in in the foreground; resolves once it logs "Waiting for connections". */
export async function startStandIn(
  kind: 'mongod' | 'mongos',
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
): Promise<Started> {
  const child = spawn(path.join(FAKE_BIN, kind), args, {
    env: { ...process.env, ...env },
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (output += s));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('Waiting for connections')) {
        clearInterval(timer);
        resolve();
      }
    }, 25);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`${kind} exited with ${code} before listening:\n${output}`));
    });
  });
  await ready;
  return { child, output: () => output, exited };
}

/** Runs a stand-in to completion (e.g. a --fork parent, or a refused command line). */
export function runStandIn(
  kind: 'mongod' | 'mongos',
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
  timeoutMs = 20_000,
) {
  const r = spawnSync(path.join(FAKE_BIN, kind), args, {
    env: { ...process.env, ...env },
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, timedOut: r.error !== undefined };
}

export async function stop(started: Started | undefined): Promise<void> {
  if (!started || started.child.exitCode !== null) return;
  started.child.kill('SIGKILL');
  await started.exited;
}

export async function command(
  port: number,
  cmd: Record<string, unknown>,
  db = 'admin',
): Promise<Record<string, unknown>> {
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/?directConnection=true`, {
    serverSelectionTimeoutMS: 3000,
  });
  try {
    await client.connect();
    return (await client
      .db(db)
      .command(cmd)
      .catch(
        (e: { errorResponse?: Record<string, unknown> }) =>
          e.errorResponse ?? { ok: 0, errmsg: String(e) },
      )) as Record<string, unknown>;
  } finally {
    await client.close();
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
