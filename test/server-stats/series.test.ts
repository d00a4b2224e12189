/**
 * pointsFromReadings and counterDeltas on hand-made readings: rates over the real time between grid
 * readings, a failed reading is a gap and the next rate spans it, a counter that went down (the
 * process restarted) gives no rate rather than a negative one, boundary readings stay out of the
 * series, and the cache share is over "maximum bytes configured".
 */
import { Reading } from '../../lib/server-stats/sampler';
import { counterDeltas, pointsFromReadings } from '../../lib/server-stats/series';
import { ServerSnapshot } from '../../lib/server-stats/snapshot';

const reading = (
  t: number,
  value: ServerSnapshot | null,
  boundary = false,
): Reading<ServerSnapshot> => ({ t, value, ...(boundary ? { boundary: true as const } : {}) });
const ops = (query: number, insert = 0): ServerSnapshot => ({
  ops: { query, insert },
  role: 'primary',
});

describe('pointsFromReadings', () => {
  it('the first reading is the baseline; each next one gives rates over the time since the previous (a late reading widens its interval)', () => {
    const points = pointsFromReadings([
      reading(0, ops(0)),
      reading(1, ops(100, 10)),
      reading(2.5, ops(400, 10)),
    ]);
    expect(points).toEqual([
      { t: 1, seconds: 1, role: 'primary', opsPerSec: { query: 100, insert: 10 } },
      { t: 2.5, seconds: 1.5, role: 'primary', opsPerSec: { query: 200, insert: 0 } },
    ]);
  });

  it('a failed reading is a gap, and the next rate spans from the last good reading', () => {
    const points = pointsFromReadings([reading(0, ops(0)), reading(1, null), reading(2, ops(300))]);
    expect(points).toEqual([
      { t: 1, gap: true },
      { t: 2, seconds: 2, role: 'primary', opsPerSec: { query: 150, insert: 0 } },
    ]);
  });

  it('a counter that went down (restart) gives no rate for that interval, never a negative one; the next interval has one again', () => {
    const restart: ServerSnapshot = { ops: { query: 5, insert: 50 }, bytesIn: 10, pagesRead: 1 };
    const points = pointsFromReadings([
      reading(0, { ops: { query: 1000, insert: 40 }, bytesIn: 5000, pagesRead: 90 }),
      reading(1, restart),
      reading(2, { ops: { query: 25, insert: 50 }, bytesIn: 110, pagesRead: 3 }),
    ]);
    expect(points[0]).toEqual({ t: 1, seconds: 1, opsPerSec: { insert: 10 } });
    expect(points[1]).toEqual({
      t: 2,
      seconds: 1,
      opsPerSec: { query: 20, insert: 0 },
      bytesInPerSec: 100,
      pagesReadPerSec: 2,
    });
  });

  it('fields the server does not report stay absent (a mongos: no cache, no tickets), never 0', () => {
    const mongos: ServerSnapshot = { ops: { query: 0 }, connections: 4, role: 'mongos' };
    const [point] = pointsFromReadings([
      reading(0, mongos),
      reading(1, { ...mongos, ops: { query: 10 } }),
    ]);
    expect(point).toEqual({
      t: 1,
      seconds: 1,
      role: 'mongos',
      opsPerSec: { query: 10 },
      connections: 4,
    });
    // No opcounters at all (a test double): no opsPerSec, not an empty one.
    const [bare] = pointsFromReadings([
      reading(0, { connections: 1 }),
      reading(1, { connections: 2 }),
    ]);
    expect(bare).toEqual({ t: 1, seconds: 1, connections: 2 });
  });

  it("the cache share is over 'maximum bytes configured'; without a maximum there is no share", () => {
    const cache = (max: number | undefined): ServerSnapshot => ({
      cacheBytes: 256,
      cacheDirtyBytes: 32,
      ...(max === undefined ? {} : { cacheMaxBytes: max }),
    });
    const [withMax] = pointsFromReadings([reading(0, cache(1024)), reading(1, cache(1024))]);
    expect([withMax.cacheUsedShare, withMax.cacheDirtyShare]).toEqual([0.25, 0.0313]);
    for (const max of [undefined, 0]) {
      const [point] = pointsFromReadings([reading(0, cache(max)), reading(1, cache(max))]);
      expect('cacheUsedShare' in point || 'cacheDirtyShare' in point).toBe(false);
    }
  });

  it('boundary readings (a window opening or closing) are left out of the series: they do not split an interval', () => {
    const points = pointsFromReadings([
      reading(0, ops(0)),
      reading(0.4, ops(1000), true),
      reading(1, ops(100)),
    ]);
    expect(points).toEqual([
      { t: 1, seconds: 1, role: 'primary', opsPerSec: { query: 100, insert: 0 } },
    ]);
  });
});

describe('counterDeltas', () => {
  it('the counters between two readings; null when either failed; a counter that went down left out', () => {
    expect(counterDeltas(reading(0, ops(10, 5)), reading(1, ops(30, 9)))).toEqual({
      query: 20,
      insert: 4,
    });
    expect(counterDeltas(reading(0, ops(10)), reading(1, null))).toBeNull();
    expect(counterDeltas(undefined, reading(1, ops(10)))).toBeNull();
    expect(counterDeltas(reading(0, ops(500, 5)), reading(1, ops(3, 9)))).toEqual({ insert: 4 });
    expect(counterDeltas(reading(0, { connections: 1 }), reading(1, { connections: 2 }))).toEqual(
      {},
    );
  });
});
