/** The sampler's boundary readings: a window's edge is read even when a grid reading is still under way. */
import { Sampler } from '../../lib/server-stats/sampler';

describe('Sampler.sampleNow (a measured window opening or closing)', () => {
  it('waits for a grid reading under way and then reads, instead of leaving a gap at the edge', async () => {
    let reads = 0;
    let slow = false;
    const source = {
      id: 'p0',
      read: () => {
        reads++;
        const value = reads;
        return new Promise<number>((resolve) => setTimeout(() => resolve(value), slow ? 120 : 1));
      },
    };
    const sampler = new Sampler<number>([source], { intervalMs: 1000, timeoutMs: 900 });
    await sampler.start(); // the baseline reading
    slow = true;
    const grid = (sampler as unknown as { sampleAll(boundary: boolean): Promise<void> }).sampleAll(
      false,
    ); // a grid reading, still on the wire
    slow = false;
    const edge = await sampler.sampleNow();
    await grid;
    expect(edge.p0.value).toBe(3); // read after the grid reading (2) answered, not a null gap
    const readings = await sampler.stop({ finalSample: false });
    expect(readings.p0.map((r) => r.value)).toEqual([1, 2, 3]);
  });

  it('still records a gap for a grid reading that meets one under way (a stuck process is not asked twice)', async () => {
    let pending = 0;
    const source = {
      id: 'p0',
      read: () => (pending++, new Promise<number>((resolve) => setTimeout(() => resolve(7), 150))),
    };
    const sampler = new Sampler<number>([source], { intervalMs: 1000, timeoutMs: 900 });
    const internals = sampler as unknown as { sampleAll(boundary: boolean): Promise<void> };
    const first = internals.sampleAll(false);
    await internals.sampleAll(false);
    await first;
    const readings = await sampler.stop({ finalSample: false });
    expect(pending).toBe(1);
    expect(readings.p0.map((r) => r.value)).toEqual([null, 7]);
  });

  it('waits longer for the first and the last reading than for a grid reading (they bound every total)', async () => {
    let value = 0;
    // Answers in 150 ms: over a 100 ms interval's 90 ms grid timeout, well within the edges' 2 s.
    const source = {
      id: 'p0',
      read: () => new Promise<number>((resolve) => setTimeout(() => resolve(++value), 150)),
    };
    const sampler = new Sampler<number>([source], { intervalMs: 100 });
    expect(sampler.timeoutMs).toBe(90);
    await sampler.start();
    const grid = (sampler as unknown as { sampleAll(boundary: boolean): Promise<void> }).sampleAll(
      false,
    );
    await grid;
    const readings = (await sampler.stop()).p0;
    expect(readings[0].value).toBe(1);
    expect(readings.some((r) => r.value === null && r.error === 'no answer within 90 ms')).toBe(
      true,
    );
    expect(readings[readings.length - 1].value).toBeGreaterThan(1);
  });

  it("waits as long for a window's opening or closing reading (they bound a step's count), also behind a slow grid reading", async () => {
    let value = 0;
    // Answers in 150 ms: past a 100 ms interval's 90 ms grid timeout, which alone would leave the step
    // unchecked (a loaded load machine reads a short interval's boundary that late).
    const source = {
      id: 'p0',
      read: () => new Promise<number>((resolve) => setTimeout(() => resolve(++value), 150)),
    };
    const sampler = new Sampler<number>([source], { intervalMs: 100 });
    (sampler as unknown as { origin: number }).origin = performance.now(); // no timer: readings by hand
    const internals = sampler as unknown as { sampleAll(boundary: boolean): Promise<void> };
    const grid = internals.sampleAll(false); // times out at 90 ms, still on the wire until 150 ms
    const boundary = await sampler.sampleNow();
    await grid;
    expect(boundary.p0).toMatchObject({ value: 2, boundary: true });
    const readings = await sampler.stop({ finalSample: false });
    expect(readings.p0.map((r) => r.value)).toEqual([null, 2]);
  });
});
