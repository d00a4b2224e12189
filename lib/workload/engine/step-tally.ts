/**
 * What one step's ops came to: counts, per-second series, the overrun, error kinds, benchRun's counts,
 * and the outages (the server not answering). Written by StepState, one op outcome at a time.
 */
import { BenchRunCounts, ErrorTally } from '../../metrics/measurement';
import { ERROR_CLASSES } from '../../result/steps';

const MAX_DISTINCT_ERRORS = 20;

/**
 * Errors that mean the connection to the server is gone (not a failed command): the step failed.
 * Not MongoNetworkTimeoutError: that is one op outliving --op-timeout, counted as an error.
 */
const LOST_SERVER_ERRORS = new Set([
  'MongoNetworkError',
  'MongoServerSelectionError',
  'MongoServerClosedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

export function isLostServerError(err: unknown): boolean {
  return LOST_SERVER_ERRORS.has(String((err as { name?: unknown } | undefined)?.name));
}

export class Tally {
  reads = 0;
  writes = 0;
  errors = 0;
  liveReads = 0;
  liveWrites = 0;
  liveErrors = 0;
  readsPerSecond: Float64Array;
  writesPerSecond: Float64Array;
  errorsPerSecond: Float64Array;
  /** Summed latency (µs) of the successful ops completed in each second. */
  latencyPerSecond: Float64Array;
  /** Counted ops that completed after the window closed (in flight at its close). */
  overrunReads = 0;
  overrunWrites = 0;
  overrunErrors = 0;
  /** When the last of them completed (performance.now()); 0: none. */
  lastLateEnd = 0;
  /** Ops started in the warm-up that completed in the window: in no count, but the server's window may count them. */
  inFlightAtOpen = 0;
  private readonly errorsByKind = new Map<string, ErrorTally>();
  /** The first error that said the server is gone. */
  private firstLostServer: string | undefined;
  readonly benchRun: BenchRunCounts = { totalOps: 0, errCount: 0, byOp: {} };
  /**
   * Set by a lost-server error, cleared by any op that succeeds after it: one dropped connection
   * (a server closing one socket, a proxy resetting it) is an error, not a lost server, once the
   * server answers again; benchRun too counts such an op as an error and goes on.
   */
  private stillLost = false;
  /** When the last op answered (performance.now()); the step's start before any did. */
  lastAnswerAt = 0;
  /**
   * From the last answer before a network error to the first answer after it (performance.now()), with
   * the ops that failed in it by class index (ERROR_CLASSES).
   */
  readonly outages: { start: number; end?: number; counts: Float64Array; opsFailed: number }[] = [];

  /** A network error: opens an outage unless one is open; true when this one opened it. */
  openOutage(): boolean {
    const open = this.outages.at(-1);
    if (open && open.end === undefined) return false;
    this.outages.push({
      start: this.lastAnswerAt,
      counts: new Float64Array(ERROR_CLASSES.length),
      opsFailed: 0,
    });
    return true;
  }

  /** A failed op of class `cls`: counted in the open outage, if one is open. */
  countInOutage(cls: number): void {
    const open = this.outages.at(-1);
    if (!open || open.end !== undefined) return;
    open.counts[cls]++;
    open.opsFailed++;
  }

  /** An answer at `at`: closes the open outage there. */
  answeredAt(at: number): void {
    this.lastAnswerAt = at;
    const open = this.outages.at(-1);
    if (open && open.end === undefined) open.end = at;
  }

  constructor(seconds: number) {
    this.readsPerSecond = new Float64Array(seconds);
    this.writesPerSecond = new Float64Array(seconds);
    this.errorsPerSecond = new Float64Array(seconds);
    this.latencyPerSecond = new Float64Array(seconds);
  }

  /** A window with no set end (an op count): the per-second series grow to hold `seconds`, doubling. */
  grow(seconds: number): void {
    const size = Math.max(seconds, this.readsPerSecond.length * 2);
    const grown = (a: Float64Array) => {
      const b = new Float64Array(size);
      b.set(a);
      return b;
    };
    this.readsPerSecond = grown(this.readsPerSecond);
    this.writesPerSecond = grown(this.writesPerSecond);
    this.errorsPerSecond = grown(this.errorsPerSecond);
    this.latencyPerSecond = grown(this.latencyPerSecond);
  }

  noteError(err: unknown): void {
    const e = err as { code?: unknown; codeName?: unknown; name?: unknown; message?: unknown };
    if (isLostServerError(err)) {
      this.stillLost = true;
      this.firstLostServer ??= `${String(e.name)}: ${String(e.message ?? '')}`.slice(0, 300);
    }
    const kind =
      typeof e?.codeName === 'string'
        ? `${e.codeName}${e.code !== undefined ? ` (${String(e.code)})` : ''}`
        : e?.code !== undefined
          ? `${String(e.name ?? 'Error')} (code ${String(e.code)})`
          : String(e?.name ?? 'Error');
    const known = this.errorsByKind.get(kind);
    if (known) {
      known.count++;
      return;
    }
    const key = this.errorsByKind.size < MAX_DISTINCT_ERRORS ? kind : 'other errors';
    const other = this.errorsByKind.get(key);
    if (other) other.count++;
    else
      this.errorsByKind.set(key, {
        error: key,
        count: 1,
        example: String(e?.message ?? err).slice(0, 300),
      });
  }

  noteAnswered(): void {
    this.stillLost = false;
  }

  /** Why the step lost its server: only when no op succeeded after the last lost-server error. */
  get lostServer(): string | undefined {
    return this.stillLost ? this.firstLostServer : undefined;
  }

  tallies(): ErrorTally[] {
    return [...this.errorsByKind.values()];
  }
}
