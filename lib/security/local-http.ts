/**
 * The rules both of mongo-bench's own HTTP servers (the metrics endpoint and the served report page)
 * follow. Their figures name hosts, versions and command lines, so they bind to loopback unless told
 * otherwise, and they answer only requests whose Host header names the address they are bound to,
 * `localhost` or `127.0.0.1`: any web page the user opens can make the browser send requests to
 * 127.0.0.1, and a DNS-rebinding attack makes such a request carry the attacker's own host name.
 */
import type { Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { UsageError } from '../config/errors';

export const LOOPBACK_HOST = '127.0.0.1';

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** `host:port` or `[v6]:port` -> the host part, lower-cased and without brackets. */
function hostOfHeader(header: string): string {
  const trimmed = header.trim().toLowerCase();
  if (trimmed.startsWith('[')) return trimmed.slice(1, trimmed.indexOf(']'));
  const colon = trimmed.lastIndexOf(':');
  return colon >= 0 && trimmed.indexOf(':') === colon ? trimmed.slice(0, colon) : trimmed;
}

/**
 * Whether a request's Host header may be answered by a server bound to `boundHost`: the bound
 * address itself, `localhost` or `127.0.0.1` (the port is not checked: a browser sends the one it
 * connected to). A missing header (HTTP/1.0) is refused as well.
 */
export function hostHeaderAllowed(header: string | undefined, boundHost: string): boolean {
  if (!header) return false;
  const host = hostOfHeader(header);
  const bound = boundHost.replace(/^\[|\]$/g, '').toLowerCase();
  return host === bound || host === 'localhost' || host === '127.0.0.1';
}

/** The warning printed when a server is bound off loopback; undefined on loopback. */
export function offLoopbackWarning(what: string, host: string, port: number): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  return (
    `${what} listens on ${host}:${port}, which other machines may reach: its figures name hosts, ` +
    `versions and command lines, and it has no authentication`
  );
}

/** The options (camelCase, as UsageError names them) a server's port and host come from. */
export interface ListenOptions {
  port: string;
  host: string;
}

/**
 * Listens on `host:port` (0: a free port) and resolves with the port bound. A port that is taken or
 * needs privileges is a UsageError naming the port's option; an address that is not this machine's
 * names the host's option: both before the run starts.
 */
export async function listenLocally(
  server: Server,
  host: string,
  port: number,
  options: ListenOptions,
): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((err: NodeJS.ErrnoException) => {
    server.close();
    throw listenError(err, host, port, options);
  });
  return (server.address() as AddressInfo).port;
}

function listenError(
  err: NodeJS.ErrnoException,
  host: string,
  port: number,
  options: ListenOptions,
): UsageError {
  const where = `${host}:${port}`;
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN')
    return new UsageError(
      `cannot listen on ${host}: not an address of this machine (${err.code})`,
      {
        option: options.host,
      },
    );
  const why =
    err.code === 'EADDRINUSE'
      ? `port ${port} on ${host} is taken by another program: choose another port (0: a free one)`
      : err.code === 'EACCES'
        ? `cannot listen on ${where}: permission denied (ports below 1024 need privileges): choose another port`
        : `cannot listen on ${where}: ${err.message}`;
  return new UsageError(why, { option: options.port });
}
