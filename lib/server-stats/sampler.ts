/**
 * A periodic sampler: every interval, reads every source at once (each process of a deployment) and
 * keeps timestamped readings. A source that fails or does not answer within the timeout gets a null
 * reading (a gap) and the sampling goes on; a source still busy with its previous read is not asked
 * again (a gap too), so a stuck process never piles up requests. Besides the grid, `sampleNow()`
 * takes an extra reading of every source at a chosen instant (a measured window opening or closing).
 *
 * Readings are whatever a source returns: keep them small and fixed-size (a few numbers, never a
 * whole serverStatus document), so a long step's memory grows by a constant per second.
 */
import { performance } from 'node:perf_hooks';
import { messageOf } from '../common/values';

export interface SampleSource<T> {
  id: string;
  /** The current value; rejects when the source cannot answer. */
  read(): Promise<T>;
}

export interface Reading<T> {
  /** Seconds since the sampler started, when the value was read (midpoint of request and reply). */
  t: number;
  /** The value, or null when the read failed. */
  value: T | null;
  error?: string;
  /** Taken by sampleNow() off the one-second grid (a window boundary), not by the timer. */
  boundary?: true;
}

export interface SamplerOptions {
  intervalMs: number;
  /** How long to wait for one reading (default: 90% of the interval, at most 5 s). */
  timeoutMs?: number;
}

/**
 * The first and the last reading bound every total (a counter's growth over the run), and a window's
 * opening and closing readings bound its step's count (the consistency check): they may wait longer than
 * a grid reading. A busy process, or a loaded load machine, that answers a short interval's reading late
 * must not cost the run its totals or a step its check.
 */
const EDGE_TIMEOUT_MS = 2000;

export class Sampler<T> {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  private readonly readings = new Map<string, Reading<T>[]>();
  /** Each source's read still under way (possibly past its timeout). */
  private readonly busy = new Map<string, Promise<unknown>>();
  private readonly inFlight = new Set<Promise<void>>();
  private origin = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastTick = 0;

  constructor(
    private readonly sources: readonly SampleSource<T>[],
    options: SamplerOptions,
  ) {
    this.intervalMs = options.intervalMs;
    this.timeoutMs = options.timeoutMs ?? Math.min(5000, Math.round(options.intervalMs * 0.9));
    for (const s of sources) this.readings.set(s.id, []);
  }

  /** Seconds since start(). */
  now(): number {
    return (performance.now() - this.origin) / 1000;
  }

  /** start()'s instant on this thread's performance.now() clock. */
  get originMs(): number {
    return this.origin;
  }

  /** Takes the first (baseline) reading of every source, then samples every interval until stop(). */
  async start(): Promise<void> {
    this.origin = performance.now();
    await this.track(this.sampleAll(false, true));
    this.schedule();
  }

  /**
   * An extra reading of every source now, off the grid (a source busy with a grid reading gets a
   * gap, as on the grid). Resolves once every source answered or timed out.
   */
  async sampleNow(): Promise<Record<string, Reading<T>>> {
    const taken: Record<string, Reading<T>> = {};
    if (this.stopped) return taken;
    await this.track(this.sampleAll(true));
    for (const [id, list] of this.readings) {
      for (let i = list.length - 1; i >= 0; i--) {
        if (list[i].boundary) {
          taken[id] = list[i];
          break;
        }
      }
    }
    return taken;
  }

  /** The readings so far (sorted by time); the lists are copies. */
  snapshot(): Record<string, Reading<T>[]> {
    const out: Record<string, Reading<T>[]> = {};
    for (const [id, list] of this.readings) out[id] = [...list].sort((a, b) => a.t - b.t);
    return out;
  }

  /** Each source's latest value that was read (a gap is skipped); absent: none yet. Copies nothing else. */
  latest(): Map<string, T> {
    const out = new Map<string, T>();
    for (const [id, list] of this.readings) {
      // Kept in arrival order, nearly in time order (a boundary reading may land among the grid's): the last few decide.
      let best: Reading<T> | undefined;
      for (let i = list.length - 1; i >= Math.max(0, list.length - 8); i--) {
        const r = list[i];
        if (r.value !== null && (!best || r.t > best.t)) best = r;
      }
      if (best) out.set(id, best.value as T);
    }
    return out;
  }

  /** Stops the timer, waits for the readings under way, takes a last reading, returns everything. */
  async stop(options: { finalSample?: boolean } = {}): Promise<Record<string, Reading<T>[]>> {
    if (this.stopped) return this.snapshot();
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all([...this.inFlight]);
    if (options.finalSample !== false) {
      // A last interval of a few milliseconds would make a noisy rate: let it last at least half an interval.
      const sinceTick = performance.now() - this.origin - this.lastTick * this.intervalMs;
      if (sinceTick < this.intervalMs / 2)
        await new Promise((resolve) => setTimeout(resolve, this.intervalMs / 2 - sinceTick));
      await this.sampleAll(false, true);
    }
    return this.snapshot();
  }

  private schedule(): void {
    if (this.stopped) return;
    // Ticks sit on a fixed grid (origin + k * interval), so a late tick does not shift the later ones.
    // A timer may fire a little early: never fire the same tick twice.
    const elapsed = performance.now() - this.origin;
    const tick = Math.max(this.lastTick + 1, Math.floor(elapsed / this.intervalMs) + 1);
    this.timer = setTimeout(
      () => {
        if (this.stopped) return;
        this.lastTick = tick;
        void this.track(this.sampleAll(false));
        this.schedule();
      },
      Math.max(0, tick * this.intervalMs - elapsed),
    );
  }

  private track(p: Promise<void>): Promise<void> {
    this.inFlight.add(p);
    return p.finally(() => this.inFlight.delete(p));
  }

  /** boundary: sampleNow() at a window's edge; edge: start()'s first and stop()'s last reading; neither: the grid's. */
  private async sampleAll(boundary: boolean, edge = false): Promise<void> {
    await Promise.all(this.sources.map((s) => this.sampleOne(s, boundary, edge)));
  }

  private async sampleOne(
    source: SampleSource<T>,
    boundary: boolean,
    edge: boolean,
  ): Promise<void> {
    const list = this.readings.get(source.id)!;
    const mark = boundary ? { boundary: true as const } : {};
    const timeoutMs = edge || boundary ? Math.max(this.timeoutMs, EDGE_TIMEOUT_MS) : this.timeoutMs;
    // A window's boundary and the run's edges must be read, not skipped: one that meets a grid reading
    // under way waits for it (within the timeout), or a count at that edge would be missing.
    const pending = this.busy.get(source.id);
    if (pending && (boundary || edge)) await settledWithin(pending, timeoutMs);
    const sent = this.now();
    if (this.busy.has(source.id)) {
      list.push({
        t: round3(sent),
        value: null,
        error: 'no answer yet to the previous reading',
        ...mark,
      });
      return;
    }
    const reading = source.read();
    // The read may outlive the timeout: the source stays busy until it settles, and a late failure is not unhandled.
    this.busy.set(
      source.id,
      reading.then(
        () => this.busy.delete(source.id),
        () => this.busy.delete(source.id),
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const value = await Promise.race([reading, timeout]);
      list.push({ t: round3((sent + this.now()) / 2), value, ...mark });
    } catch (err) {
      list.push({ t: round3(sent), value: null, error: messageOf(err), ...mark });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Resolves when `p` settles or after `ms`, whichever comes first; never rejects. */
function settledWithin(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]).finally(() => clearTimeout(timer));
}

export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
