/**
 * The open model's rules on a synthetic clock (lib/workload/engine/arrival-schedule.ts): which op a free client
 * takes, when an op is late and when it is dropped, how ops are bucketed by due second, and that an
 * abort wakes clients waiting for their due time.
 */
import {
  ArrivalSchedule,
  DEFAULT_DROP_AFTER_MS,
  DEFAULT_LATE_AFTER_MS,
  scaleRate,
} from '../../lib/workload/engine/arrival-schedule';
import { runStep } from '../../lib/workload/engine/engine';
import { BoundOp } from '../../lib/workload/engine/compile-ops';
import { TemplateScope } from '../../lib/workload/language/template';

// 10 ops/s from t0 = 1000 ms, a 1 s warm-up, a 3 s window: ops due every 100 ms at 1000, 1100, ...
const window = { t0: 1000, measureStart: 2000, stopAt: 5000, seconds: 3 };
const tenPerSecond = { kind: 'constant', opsPerSecond: 10 } as const;

describe('ArrivalSchedule', () => {
  it('a free client takes the next due op, even one still ahead; nothing due at or after the close', () => {
    const s = new ArrivalSchedule(tenPerSecond, tenPerSecond, window);
    expect(s.claim(900)).toBe(1000);
    expect(s.claim(900)).toBe(1100); // a second free client takes the next one
    const dues: number[] = [];
    for (let due = s.claim(1150); due !== undefined; due = s.claim(due)) dues.push(due);
    expect(dues[0]).toBe(1200);
    expect(dues.at(-1)).toBeCloseTo(4900, 6);
    expect(dues).toHaveLength(38);
    const m = s.finish(5000, 3);
    expect(m.scheduled).toEqual([10, 10, 10]); // the warm-up's 10 are run but not counted
    expect(m.dropped).toEqual([0, 0, 0]);
  });

  it(`late: started more than ${DEFAULT_LATE_AFTER_MS} ms after the due time; dropped: not started within ${DEFAULT_DROP_AFTER_MS} ms`, () => {
    const s = new ArrivalSchedule(tenPerSecond, tenPerSecond, window);
    // Every client busy until 2650: the ops due 1000..2100 are more than 500 ms old and dropped (of them
    // 2000 and 2100 lie in the window, so count); 2200 is the oldest left.
    expect(s.claim(2650)).toBeCloseTo(2200, 6);
    s.noteStart(2200, 2650); // 450 ms late
    expect(s.claim(2651)).toBeCloseTo(2300, 6);
    s.noteStart(2300, 2300 + DEFAULT_LATE_AFTER_MS); // exactly at the tolerance: on time
    const m = s.finish(2700, 3);
    // 2000 and 2100 skipped; 2400, 2500, 2600 due before the end (a step cut at 2700) and never taken: dropped too.
    expect(m.dropped).toEqual([5, 0, 0]);
    expect(m.late).toEqual([1, 0, 0]);
    expect(m.scheduled).toEqual([7, 0, 0]);
  });

  it('ops still due at the end of a step that ran to its close are dropped, not skipped', () => {
    const s = new ArrivalSchedule(tenPerSecond, tenPerSecond, window);
    expect(s.claim(4000)).toBeCloseTo(3500, 6); // 3500 is exactly 500 ms old: still within the grace
    const m = s.finish(5000, 3);
    expect(m.scheduled).toEqual([10, 10, 10]);
    // 2000..3400 skipped at 4000 (10 + 5), 3500 taken, 3600..4900 never taken (4 + 10).
    expect(m.dropped).toEqual([10, 9, 10]);
  });

  it('a thread with a share of the clients holds that share of the rate; the target stays the whole', () => {
    expect(scaleRate(tenPerSecond, 0.25)).toEqual({ kind: 'constant', opsPerSecond: 2.5 });
    expect(
      scaleRate({ kind: 'stages', startRate: 40, stages: [{ rate: 400, seconds: 2 }] }, 0.5),
    ).toEqual({ kind: 'stages', startRate: 20, stages: [{ rate: 200, seconds: 2 }] });
    const s = new ArrivalSchedule(tenPerSecond, scaleRate(tenPerSecond, 0.5), window);
    expect(s.finish(5000, 3)).toMatchObject({ target: tenPerSecond, scheduled: [5, 5, 5] });
  });
});

describe('the open model in the engine', () => {
  it('an abort wakes clients waiting for their due time at once', async () => {
    const op = {
      index: 0,
      type: 'findOne',
      opClass: 'read',
      delayMs: 0,
      run: () => Promise.resolve(),
    } as unknown as BoundOp;
    const controller = new AbortController();
    // 1 op every 5 s: after the first op each client waits seconds for its next one.
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = performance.now();
      controller.abort('SIGINT');
    }, 300);
    const m = await runStep(
      [op],
      new TemplateScope(),
      { clients: 12, seconds: 10, warmupSeconds: 0, randomSeed: 1, rate: 0.2 },
      { signal: controller.signal },
    );
    // Timed from the abort, not from a timer a loaded machine may fire late: the 1.7 s the old bound (2 s
    // from the start, the abort at 300 ms) left, against the seconds a waiting client would sleep on.
    expect(abortedAt).toBeGreaterThan(0);
    expect(performance.now() - abortedAt).toBeLessThan(1700);
    expect(m.interrupted).toBe(true);
    expect(m.reads).toBe(1);
    expect(m.arrival?.scheduled).toEqual([1]);
  });
});
