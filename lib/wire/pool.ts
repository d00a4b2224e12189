/**
 * One server's connections: at most `max`, opened on demand (and before a step, by warm), each lent to
 * one command at a time. An op waiting for a connection waits in order. Cleared when the server is
 * lost or no longer the one to send to: idle connections closed, waiters failed, lent ones closed as
 * they come back.
 */
import { MongoNetworkError } from './errors';
import { ConnectionSettings, WireConnection } from './connection';

export class ConnectionPool {
  private readonly idle: WireConnection[] = [];
  private readonly waiters: { resolve: (c: WireConnection) => void; reject: (e: Error) => void }[] =
    [];
  private open = 0;
  private clearedBy: Error | undefined;

  constructor(
    private readonly settings: ConnectionSettings,
    private readonly max: number,
  ) {}

  get address(): string {
    return `${this.settings.host}:${this.settings.port}`;
  }

  /** An idle connection now, without a promise (the hot path); undefined when none is idle. */
  take(): WireConnection | undefined {
    return this.idle.pop();
  }

  /** A connection: an idle one, a new one while fewer than `max` are open, else the next one given back. */
  async checkOut(): Promise<WireConnection> {
    if (this.clearedBy) throw this.clearedBy;
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.open < this.max) return this.openOne();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  checkIn(conn: WireConnection): void {
    if (conn.closed) return;
    if (this.clearedBy) {
      conn.close();
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(conn);
    else this.idle.push(conn);
  }

  /** Opens connections until `count` are open (or the pool's most), for a step's clients. */
  async warm(count: number): Promise<void> {
    // All at once, as a step's clients would open them: a thousand handshakes need not queue.
    const wanted = Math.max(0, Math.min(count, this.max) - this.open);
    const opened = await Promise.allSettled(Array.from({ length: wanted }, () => this.openOne()));
    for (const o of opened) if (o.status === 'fulfilled') this.checkIn(o.value);
    const failed = opened.find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Closes every connection; later check-outs fail with `reason`. */
  clear(reason: Error): void {
    if (this.clearedBy) return;
    this.clearedBy = reason;
    for (const c of this.idle.splice(0)) c.close();
    for (const w of this.waiters.splice(0)) w.reject(reason);
  }

  private async openOne(): Promise<WireConnection> {
    this.open++;
    try {
      return await WireConnection.open(this.settings, () => this.onClosed());
    } catch (err) {
      this.open--;
      throw err;
    }
  }

  /** A connection closed (lost, timed out): its place is free, and a waiter gets a new one. */
  private onClosed(): void {
    this.open--;
    const stale = this.idle.filter((c) => c.closed);
    for (const c of stale) this.idle.splice(this.idle.indexOf(c), 1);
    const waiter = this.clearedBy ? undefined : this.waiters.shift();
    if (waiter)
      this.openOne().then(waiter.resolve, (err: unknown) =>
        waiter.reject(err instanceof Error ? err : new MongoNetworkError(String(err))),
      );
  }
}
