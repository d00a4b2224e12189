/**
 * The tick's latency delta: the buckets, what the engine puts in it (every op, by the result's phase
 * rule, the step's tail in its final tick), and how worker threads' and agents' deltas add up.
 */
import {
  addTickLatency,
  asWarmupLatency,
  subtractTickLatency,
  TICK_LATENCY_BOUNDS_SECONDS,
  TICK_LATENCY_SLOTS,
  TickLatency,
  TickLatencyDelta,
} from '../../lib/metrics/tick-latency';
import { BoundOp } from '../../lib/workload/engine/compile-ops';
import { runStep, TickEvent } from '../../lib/workload/engine/engine';
import { TickMerger } from '../../lib/workload/engine/worker-ticks';
import { TemplateScope } from '../../lib/workload/language/template';

function op(index: number, opClass: 'read' | 'write', run: () => Promise<unknown>): BoundOp {
  return { index, type: opClass === 'read' ? 'findOne' : 'update', opClass, delayMs: 0, run };
}

/** The ticks' deltas summed: per phase and kind, the ops and their buckets. */
function total(ticks: TickEvent[]): TickLatencyDelta | undefined {
  return ticks.reduce<TickLatencyDelta | undefined>(
    (s, t) => addTickLatency(s, t.latency),
    undefined,
  );
}

function countOf(d: TickLatencyDelta | undefined, phase: string, kind: string): number {
  const s = d?.series.find((x) => x.phase === phase && x.kind === kind);
  return s ? s.counts.reduce((a, b) => a + b, 0) : 0;
}

describe('TickLatency', () => {
  it('counts each latency in the first bucket whose bound it does not exceed (le), the rest in +Inf', () => {
    expect(TICK_LATENCY_BOUNDS_SECONDS[0]).toBe(0.0001);
    expect(TICK_LATENCY_BOUNDS_SECONDS.at(-1)).toBe(10);
    const t = new TickLatency();
    t.record(2, 100); // exactly 100 µs: le="0.0001"
    t.record(2, 100.5); // just above: le="0.00025"
    t.record(2, 20_000_000); // 20 s: +Inf
    t.record(1, 1000); // a warm-up write of 1 ms
    t.error(true);
    t.error(false);
    const d = t.take()!;
    const measuredReads = d.series.find((s) => s.phase === 'measure' && s.kind === 'reads')!;
    expect(measuredReads.counts).toHaveLength(TICK_LATENCY_SLOTS);
    expect(measuredReads.counts[0]).toBe(1);
    expect(measuredReads.counts[1]).toBe(1);
    expect(measuredReads.counts[TICK_LATENCY_SLOTS - 1]).toBe(1);
    expect(measuredReads.sumMicros).toBeCloseTo(20_000_200.5, 3);
    const warmupWrites = d.series.find((s) => s.phase === 'warmup' && s.kind === 'writes')!;
    expect(warmupWrites.counts[TICK_LATENCY_BOUNDS_SECONDS.indexOf(0.001)]).toBe(1);
    expect(d.errors).toEqual({ warmup: 1, measure: 1 });
    // Taken: the next tick starts from nothing.
    expect(t.take()).toBeUndefined();
  });

  it('adds, subtracts and moves to the warm-up without touching its arguments', () => {
    const a = new TickLatency();
    a.record(0, 50);
    a.record(2, 50);
    const da = a.take()!;
    const b = new TickLatency();
    b.record(2, 300);
    b.error(true);
    const db = b.take()!;
    const before = JSON.stringify(da);
    const sum = addTickLatency(da, db)!;
    expect(JSON.stringify(da)).toBe(before);
    expect(countOf(sum, 'measure', 'reads')).toBe(2);
    expect(sum.errors.measure).toBe(1);
    expect(subtractTickLatency(sum, da)).toEqual(db);
    expect(subtractTickLatency(da, da)).toBeUndefined();
    const warm = asWarmupLatency(sum)!;
    expect(warm.series).toHaveLength(1);
    expect(countOf(warm, 'warmup', 'reads')).toBe(3);
    expect(warm.errors).toEqual({ warmup: 1, measure: 0 });
  });
});

describe("the engine's ticks carry every op's latency", () => {
  it('sums, with the final tick, to the measurement: measured ops by kind, and the warm-up apart', async () => {
    const ticks: TickEvent[] = [];
    const soon = () => new Promise<unknown>((resolve) => setTimeout(resolve, 1));
    const ops = [op(0, 'read', soon), op(1, 'read', soon), op(2, 'write', soon)];
    const m = await runStep(
      ops,
      new TemplateScope(),
      { clients: 2, seconds: 1, warmupSeconds: 1, randomSeed: 1 },
      { onTick: (t) => ticks.push(t) },
    );
    // The window's last fraction of a second (and the overrun) come in the one final tick, last.
    expect(ticks.filter((t) => t.final)).toHaveLength(1);
    expect(ticks.at(-1)?.final).toBe(true);
    const sum = total(ticks);
    expect(countOf(sum, 'measure', 'reads')).toBe(m.reads);
    expect(countOf(sum, 'measure', 'writes')).toBe(m.writes);
    expect(countOf(sum, 'measure', 'reads')).toBe(m.latency.reads.count);
    // The warm-up's ops are there too, and never in the measured series.
    expect(countOf(sum, 'warmup', 'reads') + countOf(sum, 'warmup', 'writes')).toBeGreaterThan(0);
    // The live counts agree with the buckets, tick by tick summed.
    const live = ticks.reduce((s, t) => s + t.reads + t.writes, 0);
    expect(live).toBe(
      countOf(sum, 'measure', 'reads') +
        countOf(sum, 'measure', 'writes') +
        countOf(sum, 'warmup', 'reads') +
        countOf(sum, 'warmup', 'writes'),
    );
  });

  it('counts failed ops per phase, as the result counts errors', async () => {
    const ticks: TickEvent[] = [];
    const fail = () =>
      new Promise<unknown>((_, reject) => setTimeout(() => reject(new Error('refused')), 2));
    const m = await runStep(
      [op(0, 'write', fail)],
      new TemplateScope(),
      { clients: 1, seconds: 1, warmupSeconds: 0, randomSeed: 1 },
      { onTick: (t) => ticks.push(t) },
    );
    expect(m.errors).toBeGreaterThan(0);
    expect(total(ticks)?.errors.measure).toBe(m.errors);
    expect(total(ticks)?.series).toEqual([]);
  });
});

describe('TickMerger with latency and final ticks', () => {
  function tick(reads: number, latency?: TickLatencyDelta, final?: true): TickEvent {
    return {
      phase: 'measure',
      second: 0,
      reads,
      writes: 0,
      errors: 0,
      measured: { reads, writes: 0, errors: 0 },
      ...(latency ? { latency } : {}),
      ...(final ? { final } : {}),
    };
  }
  function oneRead(micros: number): TickLatencyDelta {
    const t = new TickLatency();
    t.record(2, micros);
    return t.take()!;
  }

  it("adds the workers' deltas into the merged tick, and sends their final ticks as one at the end", () => {
    const out: TickEvent[] = [];
    const merger = new TickMerger(2, (t) => out.push(t));
    merger.add(0, tick(1, oneRead(50)));
    merger.add(1, tick(1, oneRead(2000)));
    expect(out).toHaveLength(1);
    expect(countOf(out[0].latency, 'measure', 'reads')).toBe(2);
    expect(out[0].final).toBeUndefined();
    merger.add(0, tick(1, oneRead(70), true));
    merger.finished(0);
    merger.add(1, tick(1, oneRead(90), true));
    merger.finished(1);
    merger.end();
    const last = out.at(-1)!;
    expect(last.final).toBe(true);
    expect(countOf(total(out), 'measure', 'reads')).toBe(4);
    expect(out.reduce((s, t) => s + t.reads, 0)).toBe(4);
  });
});
