/**
 * What a test starts and must not leave behind: the stand-in binaries, free ports, a temporary folder,
 * and the scan of /proc for processes still running (a test's "nothing left" check).
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';

/** The stand-in mongod/mongos of test/support/fake-bin. */
export const FAKE_BIN = path.resolve(__dirname, 'fake-bin');

/** n distinct ports that were free a moment ago (listen on 0, read, close). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Server>((resolve) => {
          const s = net.createServer();
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** A fresh folder under the system's temporary folder, named mongo-bench-<prefix>-XXXXXX. */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `mongo-bench-${prefix}-`));
}

/** process.kill(pid, 0) throws ESRCH once the process is gone (and reaped). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

export function expectGone(pids: number[]): void {
  for (const pid of pids) {
    let code: string | undefined;
    try {
      process.kill(pid, 0);
    } catch (err) {
      code = (err as NodeJS.ErrnoException).code;
    }
    expect({ pid, code }).toEqual({ pid, code: 'ESRCH' });
  }
}

/** An executable script in dir, for stand-ins that misbehave on purpose. */
export function writeScript(dir: string, name: string, body: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/usr/bin/env node\n${body}\n`, { mode: 0o755 });
  return file;
}

/** Pids of running processes whose command line contains every one of `parts` (Linux /proc). */
export function pidsWithCommandLine(...parts: string[]): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const zombie = stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
      if (!zombie && parts.every((p) => cmdline.includes(p))) pids.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return pids;
}

/** Every process whose command line names `dataDir` (a stand-in or anything else a run started), other than ourselves. */
export function leftovers(dataDir: string): number[] {
  return pidsWithCommandLine(dataDir).filter((pid) => pid !== process.pid);
}

/** SIGKILLs the processes a failed case left behind (only those whose command line names `marker`); returns their pids. */
export function killLeftovers(marker: string): number[] {
  const pids = leftovers(marker);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return pids;
}

/** Linux's default ephemeral range starts here (/proc/sys/net/ipv4/ip_local_port_range: 32768 60999). */
const EPHEMERAL_PORTS_FROM = 32_768;

/**
 * The first of n consecutive ports that are all free right now (for plans numbered from a base port).
 * Below the ephemeral range: a port found free there can be taken by any outgoing connection's local
 * end (the tests' drivers open many) before the launched process binds it.
 */
export async function freePortRange(n: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * (EPHEMERAL_PORTS_FROM - 20_000 - n));
    const free = await Promise.all(
      Array.from(
        { length: n },
        (_, i) =>
          new Promise<boolean>((resolve) => {
            const s = net.createServer();
            s.once('error', () => resolve(false));
            s.listen(base + i, '127.0.0.1', () => s.close(() => resolve(true)));
          }),
      ),
    );
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no ${n} consecutive free ports found`);
}

/**
 * What a user does before a mongos can start: replSetInitiate on one member (direct connection),
 * then hello until it is the writable primary (a new primary first drains: PRIMARY, not yet writable).
 * A mongos does not listen until its config server replica set answers (mongos_main.cpp initializeSharding).
 */
export async function initiateAndWaitForPrimary(
  uri: string,
  config: Record<string, unknown>,
  timeoutMs = 60_000,
): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 30_000 });
  try {
    const admin = client.db('admin');
    await admin.command({ replSetInitiate: config });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hello = await admin.command({ hello: 1 });
      if (hello.isWritablePrimary) return;
      if (Date.now() > deadline)
        throw new Error(
          `no writable primary for ${String(config._id)} within ${timeoutMs / 1000} s`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await client.close();
  }
}
