/**
 * The oplog window arithmetic on modelled replies. No replica set runs here: `local.oplog.rs` is modelled
 * as a list of entries with `ts`, and the replies as the server writes them (test/support/oplog-double.ts,
 * which cites the server source for each; a real $collStats reply on the oplog with those fields: DataDog
 * integrations-core mongo/tests/fixtures/$collStats-oplog.rs). Nothing here was measured on a real
 * replica set.
 */
import {
  memberStepFigures,
  oplogStepFigures,
  oplogThreshold,
  readOplog,
} from '../../lib/server/oplog-window';
import { formatWindow, oplogWindowWarning } from '../../lib/metrics/oplog-warning';
import { computeStepWarnings } from '../../lib/metrics/warnings';
import type { StepResult } from '../../lib/result';
import { OplogDouble } from '../support/oplog-double';

/** readOplog with the reading's time set (the model has no clock). */
async function readAt(oplog: OplogDouble, second: number) {
  const r = await readOplog(oplog.command);
  return { ...r, at: new Date(second * 1000).toISOString() };
}

describe('the oplog window at a step’s write rate', () => {
  it('an oplog with room: bytes = entries in the step x average entry size; window = configured / rate', async () => {
    const oplog = new OplogDouble(1_000_000, 100);
    oplog.write(1000, 500); // before the step
    const start = await readAt(oplog, 1000);
    for (let s = 1001; s <= 1010; s++) oplog.write(s, 200); // 10 s at 200 entries/s = 20 kB/s
    const end = await readAt(oplog, 1010);
    const m = await memberStepFigures(oplog.command, { host: 'a:1' }, start, end);
    expect(m).toMatchObject({
      entries: 2000,
      averageEntryBytes: 100,
      bytes: 200_000,
      seconds: 10,
      bytesPerSecond: 20_000,
      windowSeconds: 50,
    });
    expect(m.wrapped).toBeUndefined();
    expect(end).toMatchObject({ configuredBytes: 1_000_000, usedBytes: 250_000, entries: 2500 });
  });

  it('a full oplog that did not wrap past the step’s start: the same arithmetic holds', async () => {
    const oplog = new OplogDouble(100_000, 100); // 1,000 entries
    oplog.write(1000, 1000); // full before the step
    oplog.write(1001, 100);
    const start = await readAt(oplog, 1001);
    oplog.write(1002, 300);
    const end = await readAt(oplog, 1002);
    expect(end.usedBytes).toBe(100_000);
    const m = await memberStepFigures(oplog.command, { host: 'a:1' }, start, end);
    expect(m).toMatchObject({ entries: 300, bytes: 30_000, bytesPerSecond: 30_000 });
    expect(m.windowSeconds).toBeCloseTo(100_000 / 30_000, 1);
  });

  it('an oplog that wraps within the step says so, and its window is what it held, shorter than the step', async () => {
    const oplog = new OplogDouble(50_000, 100); // 500 entries
    oplog.write(1000, 100);
    const start = await readAt(oplog, 1000);
    for (let s = 1001; s <= 1020; s++) oplog.write(s, 100); // 2,000 entries: wraps 4 times
    const end = await readAt(oplog, 1020);
    const m = await memberStepFigures(oplog.command, { host: 'a:1' }, start, end);
    expect(m.wrapped).toBe(true);
    expect(m.bytes).toBeUndefined();
    expect(m.missing?.bytes).toMatch(/wrapped within the step/);
    expect(m.heldSeconds).toBe(4); // entries from second 1016 to 1020 remain
    expect(m.windowSeconds).toBe(4);
    expect(m.seconds).toBe(20);
  });

  it('no write in the step: no rate to divide by, said so', () => {
    const r = {
      at: new Date(0).toISOString(),
      configuredBytes: 10,
      usedBytes: 10,
      entries: 1,
      first: { t: 1, i: 1 },
      last: { t: 1, i: 1 },
    };
    const m = oplogStepFigures({ host: 'a:1' }, r, { ...r, at: new Date(5000).toISOString() }, 0);
    expect(m.bytes).toBe(0);
    expect(m.windowSeconds).toBeUndefined();
    expect(m.missing?.windowSeconds).toMatch(/wrote nothing/);
  });

  it('a missing reading leaves the figures out with the reason', () => {
    const m = oplogStepFigures({ host: 'a:1' }, undefined, undefined, undefined);
    expect(m.missing?.bytes).toMatch(/no start reading/);
  });
});

describe('the oplog-window warning', () => {
  const member = { host: 'a:1', windowSeconds: 1800 };

  it('none without a threshold', () => {
    expect(oplogWindowWarning({ members: [member] })).toBeUndefined();
    expect(oplogThreshold(undefined, [{ host: 'a:1', options: { storage: {} } }])).toEqual({});
  });

  it('--min-oplog-window: names the threshold and the member', () => {
    const t = oplogThreshold(3600, []);
    const w = oplogWindowWarning({ members: [member, { host: 'b:1', windowSeconds: 7200 }], ...t });
    expect(w?.code).toBe('oplog-window');
    expect(w?.message).toContain('1 h 0 min (--min-oplog-window)');
    expect(w?.message).toContain('a:1 30 min 0 s');
    expect(w?.message).not.toContain('b:1');
  });

  it("the server's storage.oplogMinRetentionHours when no flag is given", () => {
    const t = oplogThreshold(undefined, [
      { host: 'a:1', options: { storage: { oplogMinRetentionHours: 2 } } },
    ]);
    expect(t).toEqual({
      minWindowSeconds: 7200,
      minWindowFrom: 'storage.oplogMinRetentionHours on a:1',
    });
    expect(oplogWindowWarning({ members: [member], ...t })?.message).toContain(
      'storage.oplogMinRetentionHours on a:1',
    );
  });

  it('is computed from the result alone (warnings.ts)', () => {
    const step = {
      clients: 1,
      seconds: 10,
      trials: 1,
      ops: { reads: 0, writes: 1000, errors: 0 },
      opsPerSec: { total: 100, reads: 0, writes: 100 },
      peakOpsPerSec: { total: 100, reads: 0, writes: 100 },
      latencyMicros: {
        reads: { avg: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, count: 0 },
        writes: { avg: 1, p50: 1, p95: 1, p99: 1, p999: 1, max: 1, count: 1000 },
      },
      perSecond: [],
      benchRun: {},
      oplog: { members: [member], minWindowSeconds: 3600, minWindowFrom: '--min-oplog-window' },
    } as StepResult;
    expect(computeStepWarnings(step).warnings.map((w) => w.code)).toContain('oplog-window');
  });

  it('formats windows', () => {
    expect(formatWindow(5640)).toBe('1 h 34 min');
    expect(formatWindow(40)).toBe('40 s');
  });
});
