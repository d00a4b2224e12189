/**
 * Step windows as benchRun has them (issue 22): against a server that holds every reply back 400 ms,
 * no op starts after the window closes, ops in flight at the close count in the totals but go to the
 * step's overrun (never into a window second, nor the peak), and the step lasts its window plus at
 * most one op. In this thread (fake ops, with and without --rate) and over worker threads (a recording
 * server whose find and update answer 400 ms late).
 */
import { BoundOp } from '../../lib/workload/engine/compile-ops';
import { runStep } from '../../lib/workload/engine/engine';
import { TemplateScope } from '../../lib/workload/language/template';
import { runParallelStep, liveWorkerThreads } from '../../lib/workload/engine/parallel-step';
import { presetOps } from '../../lib/workload/language/presets';
import { summarizeStep } from '../../lib/workload/engine/op-figures';
import { formatStepTable } from '../../lib/metrics/format-step';
import { StepMeasurement } from '../../lib/metrics/measurement';
import { RecordingServer, startRecordingServer } from '../support/recording-server';
import { unplannedWrites } from '../../lib/workload/engine/write-handles';

/** These tests bind ops on servers they start themselves, with no write plan. */
const TEST_WRITES = unplannedWrites('test/workload/step-window.test.ts');

const HOLD_MS = 400;
const CLIENTS = 8;
const SECONDS = 3;

const held = () => new Promise<void>((resolve) => setTimeout(resolve, HOLD_MS));

function slowOp(index: number, opClass: 'read' | 'write', ends: number[]): BoundOp {
  return {
    index,
    type: opClass === 'read' ? 'findOne' : 'update',
    opClass,
    delayMs: 0,
    run: async () => {
      await held();
      ends.push(performance.now());
    },
  } as unknown as BoundOp;
}

/**
 * What every held-back step must show. A client completes at most ceil(1000 / 400) = 3 ops in any
 * second, so no window second may hold more than 3 per client; the old engine put a whole pass's
 * tail into the last second (80 here).
 */
function expectHonestWindow(m: StepMeasurement): void {
  const buckets = m.perSecond.reads.map((r, t) => r + m.perSecond.writes[t]);
  expect(buckets).toHaveLength(SECONDS);
  for (const n of buckets) expect(n).toBeLessThanOrEqual(CLIENTS * Math.ceil(1000 / HOLD_MS));
  expect(m.overrun).toBeDefined();
  const overrun = m.overrun!;
  // One op in flight per client at most when the window closed.
  expect(overrun.reads + overrun.writes + overrun.errors).toBeGreaterThan(0);
  expect(overrun.reads + overrun.writes + overrun.errors).toBeLessThanOrEqual(CLIENTS);
  // Counted in the totals, kept out of the seconds.
  expect(buckets.reduce((s, n) => s + n, 0) + overrun.reads + overrun.writes).toBe(
    m.reads + m.writes,
  );
  expect(m.latency.reads.count + m.latency.writes.count).toBe(m.reads + m.writes);
  // The step lasts its window plus at most one op: an op in flight at the close started before it, so
  // the overrun (its end past the close, kept to 1 ms) is at most that op's own latency, the longest the
  // step measured. (The 400 ms hold plus a fixed slack fails when a loaded machine fires the hold's timer
  // late; an op started after the close still breaks this bound.)
  const longestOpSeconds = Math.max(m.latency.reads.max, m.latency.writes.max) / 1e6;
  expect(overrun.seconds).toBeGreaterThan(0);
  expect(overrun.seconds).toBeLessThanOrEqual(longestOpSeconds + 0.0005);
  // The step ends with its last op, and a little scheduling on a busy machine.
  expect(m.elapsedSeconds).toBeLessThanOrEqual(SECONDS + overrun.seconds + 0.25);
  // The peak is a window second's, not the overrun's; and never below the average, which also counts
  // the overrun's ops over the little time they took past the close (a loaded machine's slow seconds
  // can leave every whole second below it).
  const step = summarizeStep([m]);
  expect(step.peakOpsPerSec.total).toBe(Math.max(...buckets, step.opsPerSec.total));
  expect(step.overrun).toEqual(overrun);
  const late = overrun.reads + overrun.writes + overrun.errors;
  expect(formatStepTable(step)).toContain(
    `after the window: ${late} op${late === 1 ? '' : 's'} in flight at its close completed within ${overrun.seconds} s`,
  );
}

describe('step windows: an op outlasting the window is counted apart', () => {
  it('in this thread: 8 clients, 3 s, replies held 400 ms', async () => {
    const ends: number[] = [];
    const ops = [
      ...Array.from({ length: 6 }, (_, i) => slowOp(i, 'read', ends)),
      slowOp(6, 'write', ends),
    ];
    const m = await runStep(ops, new TemplateScope(), {
      clients: CLIENTS,
      seconds: SECONDS,
      warmupSeconds: 0,
      randomSeed: 1,
    });
    expectHonestWindow(m);
    // No op of the array started after the close: every op ended within one hold of it.
    expect(ends.length).toBe(m.reads + m.writes);
    // Each client really completes 7 or 8 ops (3 s / 0.4 s, plus the one in flight): about 20 ops/s.
    expect(m.reads + m.writes).toBeGreaterThanOrEqual(CLIENTS * 6);
    expect(m.reads + m.writes).toBeLessThanOrEqual(CLIENTS * 8);
  });

  it('with --rate: no op is scheduled after the close, late completions go to the overrun', async () => {
    const ends: number[] = [];
    const ops = [slowOp(0, 'read', ends)];
    const m = await runStep(ops, new TemplateScope(), {
      clients: CLIENTS,
      seconds: SECONDS,
      warmupSeconds: 0,
      randomSeed: 1,
      rate: 16,
    });
    expectHonestWindow(m);
  });
});

describe('step windows over worker threads (recording server holding replies 400 ms)', () => {
  let server: RecordingServer;

  beforeAll(async () => {
    const hold = async () => {
      await held();
      return undefined; // the recording server's default reply
    };
    server = await startRecordingServer({ handlers: { find: hold, update: hold } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('--workers 2: per-second buckets, peak and overrun merged exactly', async () => {
    const ns = 'windows.docs';
    const m = await runParallelStep({
      uri: server.uri,
      workload: { ops: presetOps('6to1', { ns, docs: 20, docSize: 64 }), ns, writes: TEST_WRITES },
      plan: { clients: CLIENTS, seconds: SECONDS, warmupSeconds: 0, randomSeed: 3 },
      workers: 2,
    });
    expect(m.client.workers).toBe(2);
    expect(m.errors).toBe(0);
    expectHonestWindow(m);
    expect(liveWorkerThreads()).toBe(0);
  });
});
