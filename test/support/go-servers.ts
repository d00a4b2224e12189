/**
 * The third-party servers built from Go by .ci/go-tools (test/support/go-tools.json): Toxiproxy, the
 * fault-injection TCP proxy, and FerretDB, a real server that speaks MongoDB's wire protocol over
 * SQLite (never labelled MongoDB). Each suite that needs one starts its own on loopback and stops it;
 * where a binary is missing the suite is skipped with the reason (servers.ts describeNeeding).
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { messageOf } from '../../lib/common/values';
import goTools from './go-tools.json';
import { freePorts, tempDir } from './processes';

export type GoTool = keyof typeof goTools.tools;

/** The cache folder .ci/go-tools builds into (the same rule as the script's). */
export function goToolsDir(): string {
  const env = process.env;
  if (env.MONGO_BENCH_GO_TOOLS_DIR) return env.MONGO_BENCH_GO_TOOLS_DIR;
  return path.join(
    env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
    'mongo-bench',
    'go-tools',
  );
}

export type BinaryLookup =
  { ok: true; path: string; version: string } | { ok: false; reason: string };

/** The built binary of a tool, or why there is none (the build's last log line when it failed). */
export function findGoTool(tool: GoTool): BinaryLookup {
  const spec = goTools.tools[tool];
  const file = path.join(goToolsDir(), `${spec.binary}-${spec.version}`);
  if (fs.existsSync(file)) return { ok: true, path: file, version: spec.version };
  let why = 'not built';
  try {
    const lines = fs.readFileSync(`${file}.log`, 'utf8').trim().split('\n');
    why = `build failed: ${lines.at(-1)}`;
  } catch {
    // no log: .ci/go-tools did not run here
  }
  return {
    ok: false,
    reason: `${tool} ${spec.version} ${why} (.ci/go-tools builds it into ${goToolsDir()} from the Go module proxy)`,
  };
}

export interface StartedServer {
  pid: number;
  stop(): Promise<void>;
}

/**
 * Resolves with the first line matching `ready`; rejects when the process exits first or after `ms`.
 * Reads the child's output to its end (a pipe nobody reads would fill and block it).
 */
function waitForLine(
  child: ChildProcess,
  ready: RegExp,
  what: string,
  ms = 20_000,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const seen: string[] = [];
    const timer = setTimeout(() => fail(`did not start within ${ms} ms`), ms);
    const onExit = (code: number | null, signal: string | null): void =>
      fail(`exited (${signal ?? code}) before it was ready`);
    function fail(why: string): void {
      clearTimeout(timer);
      child.off('exit', onExit);
      reject(new Error(`${what} ${why}; its last lines:\n${seen.slice(-10).join('\n')}`));
    }
    child.once('exit', onExit);
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      readline.createInterface({ input: stream }).on('line', (line) => {
        seen.push(line);
        if (seen.length > 20) seen.shift();
        const match = ready.exec(line);
        if (match) {
          clearTimeout(timer);
          child.off('exit', onExit);
          resolve(match);
        }
      });
    }
  });
}

/** Reads a child's output to its end (a full pipe would block it), keeping the last 20 lines. */
function drain(child: ChildProcess): string[] {
  const last: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    readline.createInterface({ input: stream }).on('line', (line) => {
      last.push(line);
      if (last.length > 20) last.shift();
    });
  }
  return last;
}

function stopper(child: ChildProcess, cleanup: () => void = () => undefined): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    cleanup();
  };
}

export interface FerretDb extends StartedServer {
  /** mongodb://127.0.0.1:PORT/?directConnection=true */
  uri: string;
  version: string;
  dataDir: string;
}

/** A FerretDB on loopback with the SQLite handler, in a fresh folder removed at stop. */
export async function startFerretDb(): Promise<FerretDb> {
  const binary = findGoTool('ferretdb');
  if (!binary.ok) throw new Error(binary.reason);
  const dataDir = tempDir('ferretdb');
  const child = spawn(
    binary.path,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${dataDir}/`,
      `--state-dir=${dataDir}`,
      '--listen-addr=127.0.0.1:0',
      '--debug-addr=-',
      '--telemetry=disable',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stop = stopper(child, () => fs.rmSync(dataDir, { recursive: true, force: true }));
  try {
    const match = await waitForLine(child, /Listening on TCP 127\.0\.0\.1:(\d+)/, 'FerretDB');
    return {
      pid: child.pid!,
      uri: `mongodb://127.0.0.1:${match[1]}/?directConnection=true`,
      version: binary.version,
      dataDir,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface Toxiproxy extends StartedServer {
  /** http://127.0.0.1:PORT: the HTTP API. */
  apiUrl: string;
  version: string;
  /**
   * A proxy named `name` listening on a free loopback port in front of `upstream` (host:port);
   * resolves with its listen address.
   */
  addProxy(name: string, upstream: string): Promise<string>;
}

async function apiReady(apiUrl: string, child: ChildProcess, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`Toxiproxy exited (${child.exitCode}) before its API answered`);
    try {
      const res = await fetch(`${apiUrl}/version`);
      if (res.ok) return;
    } catch {
      // not listening yet: its log line comes before the listener
    }
    if (Date.now() > deadline)
      throw new Error(`Toxiproxy's API at ${apiUrl} did not answer within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A Toxiproxy server on loopback; its proxies also listen on loopback. */
export async function startToxiproxy(): Promise<Toxiproxy> {
  const binary = findGoTool('toxiproxy');
  if (!binary.ok) throw new Error(binary.reason);
  const [port] = await freePorts(1);
  const child = spawn(binary.path, ['-host', '127.0.0.1', '-port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Toxiproxy logs every connection it accepts and closes; a pipe nobody reads fills (64 KiB) and its
  // logger then blocks with a lock held: the proxies stop accepting and the API stops answering.
  // Keep reading to the end, holding the last lines for a start-up error.
  const lastLines = drain(child);
  const stop = stopper(child);
  const apiUrl = `http://127.0.0.1:${port}`;
  try {
    await apiReady(apiUrl, child);
  } catch (err) {
    await stop();
    throw new Error(`${messageOf(err)}; its last lines:\n${lastLines.join('\n')}`);
  }
  return {
    pid: child.pid!,
    apiUrl,
    version: binary.version,
    stop,
    async addProxy(name, upstream) {
      const res = await fetch(`${apiUrl}/proxies`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, listen: '127.0.0.1:0', upstream, enabled: true }),
      });
      if (!res.ok)
        throw new Error(`Toxiproxy refused proxy ${name}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { listen: string }).listen;
    },
  };
}
