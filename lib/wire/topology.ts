/**
 * Which server the wire client sends to, after the server-selection specification's rules for a
 * primary read preference (mongodb/specifications source/server-discovery-and-monitoring,
 * server-selection): a direct connection (directConnection=true) uses its one host whatever it is; a
 * replica set uses its primary (a secondary's `primary` field and `hosts` are followed to find it);
 * mongos routers are all used, in turn; a single standalone is used. The seed list is probed with a
 * `hello` on a short-lived connection (the only monitoring the wire client does), again after a
 * server is lost or answers that it is no longer primary. Like the driver, an op waits up to the
 * server-selection timeout for a server, probing again every half second, then fails with
 * MongoServerSelectionError.
 */
import type { Document } from 'mongodb';
import { ConnectionSettings, WireConnection } from './connection';
import { serverSelectionError } from './errors';
import { ConnectionPool } from './pool';
import type { WireSettings } from './settings';

/** The driver's minHeartbeatFrequencyMS: how often an op waiting for a server probes again. */
const PROBE_INTERVAL_MS = 500;

type Kind = 'standalone' | 'primary' | 'mongos' | 'other';

interface Probe {
  address: string;
  kind: Kind;
  /** A member's view of its set: the primary and the hosts to probe next. */
  primary?: string;
  hosts: string[];
  error?: string;
}

function kindOf(hello: Document, replicaSet: string | undefined): Kind {
  if (hello.msg === 'isdbgrid') return replicaSet ? 'other' : 'mongos';
  if (hello.isreplicaset) return 'other';
  if (typeof hello.setName === 'string') {
    if (replicaSet && hello.setName !== replicaSet) return 'other';
    return hello.isWritablePrimary || hello.ismaster ? 'primary' : 'other';
  }
  return replicaSet ? 'other' : 'standalone';
}

function splitAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = colon < 0 ? address : address.slice(0, colon);
  return {
    host: host.startsWith('[') ? host.slice(1, -1) : host,
    port: colon < 0 ? 27017 : Number(address.slice(colon + 1)),
  };
}

export class Topology {
  private servers: ConnectionPool[] = [];
  private turn = 0;
  private probing: Promise<void> | undefined;
  private lastProblem = 'no server probed yet';
  private closed = false;
  /** Hellos sent on probe connections so far (each also a connection's handshake). */
  probes = 0;

  constructor(
    private readonly settings: WireSettings,
    private readonly connection: Omit<ConnectionSettings, 'host' | 'port'>,
  ) {}

  /** The server to send to now, without a promise; undefined when none is known. */
  selectNow(): ConnectionPool | undefined {
    const n = this.servers.length;
    if (n === 0) return undefined;
    if (n === 1) return this.servers[0];
    return this.servers[this.turn++ % n];
  }

  /** The server to send to, probing up to the server-selection timeout; throws MongoServerSelectionError. */
  async select(): Promise<ConnectionPool> {
    const timeout = this.settings.serverSelectionTimeoutMS;
    const deadline = performance.now() + timeout;
    for (;;) {
      const now = this.selectNow();
      if (now) return now;
      if (this.closed) throw serverSelectionError('the wire client is closed');
      await this.probe();
      const found = this.selectNow();
      if (found) return found;
      const left = deadline - performance.now();
      if (left <= 0)
        throw serverSelectionError(
          `Server selection timed out after ${timeout} ms: ${this.lastProblem}`,
        );
      await new Promise((resolve) => setTimeout(resolve, Math.min(PROBE_INTERVAL_MS, left)));
    }
  }

  /** `pool`'s server is lost or no longer the one to send to: cleared, and the next op selects again. */
  forget(pool: ConnectionPool, reason: Error): void {
    const at = this.servers.indexOf(pool);
    if (at >= 0) this.servers.splice(at, 1);
    pool.clear(reason);
  }

  close(): void {
    this.closed = true;
    for (const pool of this.servers.splice(0))
      pool.clear(serverSelectionError('the wire client is closed'));
  }

  /** One round of probes (shared by every op waiting for a server). */
  private probe(): Promise<void> {
    this.probing ??= this.probeOnce().finally(() => (this.probing = undefined));
    return this.probing;
  }

  private async probeOnce(): Promise<void> {
    const seeds = this.settings.hosts.map((h) => `${h.host}:${h.port}`);
    const seen = new Map<string, Probe>();
    let next = seeds;
    // Follow members' `primary` and `hosts` a few rounds, as the discovery of a set does.
    for (let round = 0; round < 3 && next.length > 0; round++) {
      const probes = await Promise.all(next.map((a) => this.probeHost(a)));
      for (const p of probes) seen.set(p.address, p);
      if (this.settings.directConnection) break;
      next = [
        ...new Set(probes.flatMap((p) => (p.primary ? [p.primary, ...p.hosts] : p.hosts))),
      ].filter((a) => !seen.has(a));
    }
    const all = [...seen.values()];
    let chosen: Probe[];
    if (this.settings.directConnection) chosen = all.filter((p) => !p.error).slice(0, 1);
    else {
      const mongos = all.filter((p) => p.kind === 'mongos');
      const primary = all.filter((p) => p.kind === 'primary');
      const standalone = seeds.length === 1 ? all.filter((p) => p.kind === 'standalone') : [];
      chosen = mongos.length > 0 ? mongos : primary.length > 0 ? primary.slice(0, 1) : standalone;
    }
    if (chosen.length === 0) {
      this.lastProblem = all
        .map((p) => `${p.address}: ${p.error ?? `not a server to send to (${p.kind})`}`)
        .join('; ');
      return;
    }
    if (this.closed) return;
    this.servers = chosen.map(
      (p) =>
        new ConnectionPool(
          { ...this.connection, ...splitAddress(p.address) },
          this.settings.maxPoolSize,
        ),
    );
  }

  private async probeHost(address: string): Promise<Probe> {
    this.probes++;
    try {
      // The handshake is the probe: no credentials needed for it.
      const conn = await WireConnection.open({
        ...this.connection,
        ...splitAddress(address),
        credentials: undefined,
      });
      conn.close();
      const hello = conn.hello;
      return {
        address,
        kind: kindOf(hello, this.settings.replicaSet),
        ...(typeof hello.primary === 'string' ? { primary: hello.primary } : {}),
        hosts: Array.isArray(hello.hosts) ? (hello.hosts as string[]) : [],
      };
    } catch (err) {
      return { address, kind: 'other', hosts: [], error: (err as Error).message };
    }
  }
}
