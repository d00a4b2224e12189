/** Port checks: is a port free before we start a process on it, and does it answer `hello` yet. */
import { setTimeout as sleep } from 'node:timers/promises';
import * as net from 'node:net';
import { MongoClient } from 'mongodb';

/** host:port with IPv6 literals bracketed, as in a connection string. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function directUri(host: string, port: number): string {
  return `mongodb://${hostPort(host, port)}/?directConnection=true`;
}

/**
 * Whether something already listens on host:port: we try to listen there ourselves.
 * Resolves to the error code (EADDRINUSE, EACCES, ...) when we cannot, undefined when free.
 */
export function portBlocker(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}

/** One TCP connect attempt; true when something accepted it. */
function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * One `hello` through the driver over a direct connection; the reply, or undefined on failure.
 * Where hello is unknown (4.4.0 and 4.4.1 answer CommandNotFound, 59: CmdHello arrives in r4.4.2,
 * src/mongo/db/repl/replication_info.cpp) it asks isMaster, whose reply has `ismaster` instead.
 */
export async function helloOnce(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<Record<string, unknown> | undefined> {
  const client = new MongoClient(directUri(host, port), {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs,
    maxPoolSize: 1,
  });
  try {
    try {
      return await client.db('admin').command({ hello: 1 });
    } catch (err) {
      if ((err as { code?: number }).code !== 59) throw err;
      return await client.db('admin').command({ isMaster: 1 });
    }
  } catch {
    return undefined;
  } finally {
    await client.close(true).catch(() => undefined);
  }
}

export interface WaitForHelloOptions {
  /** Absolute deadline (Date.now() based). */
  deadline: number;
  /** Stop waiting early: the process died, another one failed, or the user interrupted. */
  cancelled: () => boolean;
  pollMs?: number;
}

/** Polls until the port accepts a connection and answers hello; false on deadline or cancel. */
export async function waitForHello(
  host: string,
  port: number,
  options: WaitForHelloOptions,
): Promise<boolean> {
  const pollMs = options.pollMs ?? 100;
  while (!options.cancelled()) {
    const remaining = options.deadline - Date.now();
    if (remaining <= 0) return false;
    // A bare connect first: cheap while the server is still starting, no driver set-up per try.
    if (await canConnect(host, port, Math.min(1000, remaining))) {
      const reply = await helloOnce(
        host,
        port,
        Math.max(200, Math.min(2000, options.deadline - Date.now())),
      );
      if (reply && reply.ok === 1) return true;
    }
    if (options.cancelled()) return false;
    await sleep(Math.min(pollMs, Math.max(0, options.deadline - Date.now())));
  }
  return false;
}
