/**
 * The per-shard sampler: every interval, reads a counter from every source at once (each shard's
 * primary and the mongos) and keeps timestamped readings. A source that fails or does not answer
 * within the timeout gets a null reading (a gap) and the sampling goes on; a source still busy with
 * its previous read is not asked again (a gap too), so a stuck shard never piles up requests.
 */
import { CounterReading, round3 } from './rates';

export interface CounterSource {
  id: string;
  /** The counter's current value; rejects when the source cannot answer. */
  read(): Promise<number>;
}

export interface SamplerOptions {
  intervalMs: number;
  /** How long to wait for one reading (default: 90% of the interval, at most 5 s). */
  timeoutMs?: number;
}

export class CounterSampler {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  private readonly readings = new Map<string, CounterReading[]>();
  private readonly busy = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private origin = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastTick = 0;

  constructor(
    private readonly sources: readonly CounterSource[],
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

  /** Takes the first (baseline) reading of every source, then samples every interval until stop(). */
  async start(): Promise<void> {
    this.origin = performance.now();
    await this.track(this.sampleAll());
    this.schedule();
  }

  /** Stops the timer, waits for the readings under way, takes a last reading, returns everything. */
  async stop(options: { finalSample?: boolean } = {}): Promise<Record<string, CounterReading[]>> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all([...this.inFlight]);
    if (options.finalSample !== false) {
      // A last interval of a few milliseconds would make a noisy rate: let it last at least half an interval.
      const sinceTick = performance.now() - this.origin - this.lastTick * this.intervalMs;
      if (sinceTick < this.intervalMs / 2) await new Promise((resolve) => setTimeout(resolve, this.intervalMs / 2 - sinceTick));
      await this.sampleAll();
    }
    const out: Record<string, CounterReading[]> = {};
    for (const [id, list] of this.readings) out[id] = [...list].sort((a, b) => a.t - b.t);
    return out;
  }

  private schedule(): void {
    if (this.stopped) return;
    // Ticks sit on a fixed grid (origin + k * interval), so a late tick does not shift the later ones.
    // A timer may fire a little early: never fire the same tick twice.
    const elapsed = performance.now() - this.origin;
    const tick = Math.max(this.lastTick + 1, Math.floor(elapsed / this.intervalMs) + 1);
    this.timer = setTimeout(() => {
      if (this.stopped) return;
      this.lastTick = tick;
      void this.track(this.sampleAll());
      this.schedule();
    }, Math.max(0, tick * this.intervalMs - elapsed));
  }

  private track(p: Promise<void>): Promise<void> {
    this.inFlight.add(p);
    return p.finally(() => this.inFlight.delete(p));
  }

  private async sampleAll(): Promise<void> {
    await Promise.all(this.sources.map((s) => this.sampleOne(s)));
  }

  private async sampleOne(source: CounterSource): Promise<void> {
    const list = this.readings.get(source.id)!;
    const sent = this.now();
    if (this.busy.has(source.id)) {
      list.push({ t: round3(sent), value: null, error: 'no answer yet to the previous reading' });
      return;
    }
    this.busy.add(source.id);
    const reading = source.read();
    // The read may outlive the timeout: the source stays busy until it settles, and a late failure is not unhandled.
    reading.then(
      () => this.busy.delete(source.id),
      () => this.busy.delete(source.id),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      const value = await Promise.race([reading, timeout]);
      list.push({ t: round3((sent + this.now()) / 2), value });
    } catch (err) {
      list.push({ t: round3(sent), value: null, error: err instanceof Error ? err.message : String(err) });
    } finally {
      clearTimeout(timer);
    }
  }
}
