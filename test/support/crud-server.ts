/**
 * The shared CRUD server of a test run: a real mongod when one is on this machine (see mongod.ts),
 * otherwise mongo-java-server, an in-memory wire-compatible test double launched from
 * test/support/java-server. Its numbers are never MongoDB numbers.
 */
import { ChildProcess, spawn } from 'child_process';
import { existsSync } from 'fs';
import type { Socket } from 'net';
import path from 'path';
import { findMongodBinary, Found, MongodBinary, mongodVersion, startStandalone } from './mongod';
import type { CrudKind } from './servers';

export interface CrudServer {
  kind: CrudKind;
  /** mongodb://127.0.0.1:PORT */
  uri: string;
  port: number;
  /** One line for the test summary, e.g. "mongo-java-server 1.47.0 (test double) at 127.0.0.1:40123". */
  description: string;
  stop(): Promise<void>;
}

/** A mongo-java-server process of the test's own (not the shared one), which it may SIGKILL. */
export interface JavaServer extends CrudServer {
  child: ChildProcess;
}

export const JAVA_SERVER_DIR = path.resolve(__dirname, 'java-server');
export const JAVA_SERVER_JAR = path.join(JAVA_SERVER_DIR, 'target', 'mongo-bench-test-server.jar');
export const JAVA_SERVER_NOT_BUILT =
  'java test server not built: run mvn -f test/support/java-server/pom.xml package';

const DEFAULT_START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const STDERR_KEPT_CHARS = 4_000;

export interface JavaServerOptions {
  /** 0 (default) lets the server pick a free port. */
  port?: number;
  startTimeoutMs?: number;
  jar?: string;
  /** Forward the server's stderr (warnings, unsupported-command traces) to ours; default off. */
  echoStderr?: boolean;
}

/** The launcher's ready line: "LISTENING <port> mongo-java-server/<version> reports=<version>/wire<n>". */
export function parseListeningLine(
  line: string,
): { port: number; version?: string; reports?: string } | undefined {
  const m = /^LISTENING (\d+)(?: mongo-java-server\/(\S+))?(?: reports=(\S+))?/.exec(line.trim());
  if (!m) return undefined;
  return { port: Number(m[1]), version: m[2], reports: m[3] };
}

/**
 * Spawns `java -jar mongo-bench-test-server.jar <port>` and resolves once it prints LISTENING.
 * Its stdin stays a pipe from us: when this process dies the pipe closes and the server exits.
 */
export function startJavaServer(options: JavaServerOptions = {}): Promise<JavaServer> {
  const jar = options.jar ?? JAVA_SERVER_JAR;
  const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  if (!existsSync(jar)) return Promise.reject(new JavaServerNotBuiltError(jar));

  const child = spawn('java', ['-jar', jar, String(options.port ?? 0)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => undefined); // EPIPE when the server is already gone; 'exit' reports that
  let stderr = '';
  // Always drain stderr: a full pipe would block the server's logging threads.
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT_CHARS);
    if (options.echoStderr) process.stderr.write(chunk);
  });
  const stderrTail = () => (stderr.trim() ? `; stderr: ${stderr.trim()}` : '');

  return new Promise<JavaServer>((resolve, reject) => {
    let stdout = '';
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const timer = setTimeout(
      () =>
        fail(
          new Error(
            `mongo-java-server (java -jar ${jar}) did not print LISTENING within ${timeoutMs} ms${stderrTail()}`,
          ),
        ),
      timeoutMs,
    );
    child.on('error', (err: NodeJS.ErrnoException) => {
      fail(
        err.code === 'ENOENT'
          ? new JavaNotFoundError()
          : new Error(`cannot start java -jar ${jar}: ${err.message}`),
      );
    });
    child.on('exit', (code, signal) => {
      fail(
        new Error(
          `mongo-java-server exited (${signal ?? `code ${code}`}) before listening${stderrTail()}`,
        ),
      );
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (settled) return;
      stdout += chunk;
      const completeLines = stdout.split('\n').slice(0, -1); // a chunk may end mid-line
      const line = completeLines.find((l) => l.startsWith('LISTENING '));
      const ready = line ? parseListeningLine(line) : undefined;
      if (!ready) return;
      settled = true;
      clearTimeout(timer);
      // A forgotten stop() must not keep jest (or any caller) alive; the closed stdin then ends the server.
      unrefChild(child);
      resolve({
        kind: 'mongo-java-server',
        uri: `mongodb://127.0.0.1:${ready.port}`,
        port: ready.port,
        description: `mongo-java-server ${ready.version ?? '?'} (test double, reports ${ready.reports ?? '?'}) at 127.0.0.1:${ready.port}`,
        stop: () => stopChild(child),
        child,
      });
    });
  });
}

function unrefChild(child: ChildProcess): void {
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr])
    (stream as Partial<Socket> | null)?.unref?.();
}

/** Close stdin (the launcher exits at end of input), then SIGTERM, then SIGKILL. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.ref(); // keep this process alive until the server is really gone
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const within = (ms: number) =>
    Promise.race([
      exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
    ]);
  child.stdin?.end();
  if (await within(STOP_GRACE_MS)) return;
  child.kill('SIGTERM');
  if (await within(STOP_GRACE_MS)) return;
  child.kill('SIGKILL');
  await exited;
}

export class JavaServerNotBuiltError extends Error {
  constructor(readonly jar: string) {
    super(`${JAVA_SERVER_NOT_BUILT} (missing ${jar})`);
    this.name = 'JavaServerNotBuiltError';
  }
}

export class JavaNotFoundError extends Error {
  constructor() {
    super('java not found on PATH: the CRUD test server needs a JDK/JRE 17+');
    this.name = 'JavaNotFoundError';
  }
}

export interface CrudServerChoice {
  /** The running server, or why there is none. */
  server: Found<CrudServer>;
  /** The real mongod found on this machine, or why there is none (decides 'mongod'/'replset'/'sharded'). */
  mongod: Found<MongodBinary>;
}

/**
 * A real mongod standalone when a binary is on this machine, else mongo-java-server. A missing jar or
 * java makes CRUD unavailable (tests skip with the reason); a server that is there but fails to start
 * is an error, so a broken set-up cannot pass as a skip.
 */
export async function startCrudServer(options: JavaServerOptions = {}): Promise<CrudServerChoice> {
  const mongod = await findMongodBinary();
  if (mongod.ok) {
    const running = await startStandalone(mongod.value.path);
    return {
      mongod,
      server: {
        ok: true,
        value: {
          kind: 'mongod',
          uri: running.uri,
          port: running.port,
          description: `mongod ${mongodVersion(mongod.value.path) ?? '?'} (${mongod.value.source}: ${mongod.value.path}) at 127.0.0.1:${running.port}`,
          stop: running.stop,
        },
      },
    };
  }
  try {
    return { mongod, server: { ok: true, value: await startJavaServer(options) } };
  } catch (err) {
    if (err instanceof JavaServerNotBuiltError)
      return { mongod, server: { ok: false, reason: JAVA_SERVER_NOT_BUILT } };
    if (err instanceof JavaNotFoundError)
      return { mongod, server: { ok: false, reason: err.message } };
    throw err;
  }
}
