/**
 * Merges the per-second ticks of the worker threads of one step into one tick a second for the
 * parent's onTick. Every worker's ticker starts at the common start instant, so tick n of each
 * describes the same second: the n-th merged tick goes out once every running worker has sent its
 * n-th, or shortly after the first of them (a busy worker's late tick then lands in the next one).
 * Counts are never lost: what arrives late is added to the next merged tick. Each worker's final tick
 * (what it completed after its last whole second) is held until every worker is done: end() sends them
 * as one final tick.
 */
import { addTickLatency, TickLatencyDelta } from '../../metrics/tick-latency';
import { TickEvent } from './engine';

/** How long to wait for the other workers' tick n after the first one arrived. */
const TICK_GATHER_MS = 300;

export class TickMerger {
  private readonly seen: number[];
  private readonly measured: TickEvent['measured'][];
  private readonly running: boolean[];
  private emitted = 0;
  private pending = { reads: 0, writes: 0, errors: 0 };
  private pendingLatency: TickLatencyDelta | undefined;
  private latest: TickEvent | undefined;
  private noAnswerSince: number | undefined;
  private stalled: { reads?: number; writes?: number } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    workers: number,
    private readonly emit: (tick: TickEvent) => void,
  ) {
    this.seen = new Array<number>(workers).fill(0);
    this.measured = Array.from({ length: workers }, () => ({ reads: 0, writes: 0, errors: 0 }));
    this.running = new Array<boolean>(workers).fill(true);
  }

  add(worker: number, tick: TickEvent): void {
    this.measured[worker] = tick.measured;
    this.pending.reads += tick.reads;
    this.pending.writes += tick.writes;
    this.pending.errors += tick.errors;
    this.pendingLatency = addTickLatency(this.pendingLatency, tick.latency);
    if (tick.final) {
      // No whole second follows from this worker: the others' tick n need not wait for it.
      this.running[worker] = false;
      this.latest ??= tick;
      this.maybeEmit();
      return;
    }
    this.seen[worker]++;
    this.latest = tick;
    // An outage any worker sees is the step's.
    if (tick.noAnswerSince !== undefined)
      this.noAnswerSince = Math.min(this.noAnswerSince ?? tick.noAnswerSince, tick.noAnswerSince);
    // A kind out in any worker's clients is out (the earliest last success).
    for (const kind of ['reads', 'writes'] as const) {
      const since = tick.stalled?.[kind];
      if (since === undefined) continue;
      this.stalled ??= {};
      this.stalled[kind] = Math.min(this.stalled[kind] ?? since, since);
    }
    this.maybeEmit();
  }

  /** A worker finished: no more ticks will come from it. */
  finished(worker: number): void {
    this.running[worker] = false;
    this.maybeEmit();
  }

  /** Every worker is done: what they sent after the last merged tick goes out as the final tick. */
  end(): void {
    this.close();
    const { reads, writes, errors } = this.pending;
    if (!this.latest || (reads + writes + errors === 0 && !this.pendingLatency)) return;
    const tick = this.merged();
    tick.final = true;
    this.emit(tick);
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private maybeEmit(): void {
    const next = this.emitted + 1;
    if (!this.seen.some((n) => n >= next)) return;
    if (this.seen.every((n, w) => n >= next || !this.running[w])) this.flush(next);
    else this.timer ??= setTimeout(() => this.flush(next), TICK_GATHER_MS);
  }

  private flush(n: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (n <= this.emitted || !this.latest) return;
    this.emitted = n;
    this.emit(this.merged());
    this.maybeEmit();
  }

  /** The pending counts as one tick (the latest's phase and second), and a fresh start. */
  private merged(): TickEvent {
    const sum = (key: keyof TickEvent['measured']) => this.measured.reduce((s, m) => s + m[key], 0);
    const tick: TickEvent = {
      ...this.latest!,
      ...this.pending,
      measured: { reads: sum('reads'), writes: sum('writes'), errors: sum('errors') },
    };
    delete tick.noAnswerSince;
    delete tick.stalled;
    delete tick.latency;
    delete tick.final;
    if (this.noAnswerSince !== undefined) tick.noAnswerSince = this.noAnswerSince;
    if (this.stalled !== undefined) tick.stalled = this.stalled;
    if (this.pendingLatency !== undefined) tick.latency = this.pendingLatency;
    this.stalled = undefined;
    this.pending = { reads: 0, writes: 0, errors: 0 };
    this.pendingLatency = undefined;
    this.noAnswerSince = undefined;
    return tick;
  }
}
