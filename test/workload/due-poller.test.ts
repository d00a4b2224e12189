/**
 * Exact arrivals' last stretch (lib/workload/engine/due-poller.ts) and how its time is kept out of the
 * event-loop utilization (lib/metrics/client-load.ts LoadProbe): in-process, no server.
 */
import { LoadProbe } from '../../lib/metrics/client-load';
import { DuePoller } from '../../lib/workload/engine/due-poller';

/** Resolves after `turns` turns of the event loop. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('the due poller', () => {
  it('wakes each waiter at or after its due time, never before, the earliest due first; a removed waiter is never woken', async () => {
    const poller = new DuePoller();
    const now = performance.now();
    const woken: Array<{ name: string; due: number; at: number }> = [];
    const wait = (name: string, due: number) =>
      new Promise<void>((resolve) => {
        poller.add(due, () => {
          woken.push({ name, due, at: performance.now() });
          resolve();
        });
      });
    const removed = poller.add(now + 0.5, () => woken.push({ name: 'removed', due: 0, at: 0 }));
    poller.remove(removed);
    await Promise.all([wait('c', now + 3), wait('a', now + 1), wait('b', now + 2)]);
    expect(woken.map((w) => w.name)).toEqual(['a', 'b', 'c']);
    for (const w of woken) expect(w.at).toBeGreaterThanOrEqual(w.due);
    expect(poller.pollingMs).toBeGreaterThan(0);
  });

  it('stops polling when nobody waits: its time stops growing', async () => {
    const poller = new DuePoller();
    await new Promise<void>((resolve) => poller.add(performance.now() + 1, resolve));
    await turns(2);
    const after = poller.pollingMs;
    await turns(20);
    expect(poller.pollingMs).toBe(after);
  });
});

describe('the load probe with polling', () => {
  it("takes the loop's polling time out of its busy share and reports it apart", () => {
    let polledMs = 0;
    const probe = new LoadProbe(() => polledMs);
    // 40 ms of a busy loop, 15 ms of which the poller says it spent polling.
    const end = performance.now() + 40;
    while (performance.now() < end);
    polledMs = 15;
    const reading = probe.read();
    const windowMs = reading.wallMicros / 1000;
    expect(reading.pollingUtilization).toBeCloseTo(15 / windowMs, 1);
    // Busy the whole time: what is not polling is work.
    expect(reading.eventLoopUtilization + reading.pollingUtilization!).toBeGreaterThan(0.9);
    expect(reading.eventLoopUtilization + reading.pollingUtilization!).toBeLessThanOrEqual(1.001);
    // Without a poller, nothing is taken out and no polling figure is given.
    expect(new LoadProbe().read().pollingUtilization).toBeUndefined();
  });
});
