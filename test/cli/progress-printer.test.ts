/**
 * The printer words the events that carry data (a scenario run's news, the --rate probe's figures):
 * the lines are the ones the run has always printed, character for character.
 */
import { ProgressPrinter, SilentPrinter } from '../../lib/cli/progress-printer';
import { ProgressTracker } from '../../lib/run/progress';
import { clockTime } from '../../lib/run/outages';
import type { RunEvent } from '../../lib/run/events';
import type { RateProbe, StepResult } from '../../lib/result';

function printed(
  events: RunEvent[],
  sweep: ConstructorParameters<typeof ProgressTracker>[0] = {
    clients: [1],
    trials: 1,
    seconds: 1,
    warmupSeconds: 0,
  },
): string[] {
  const lines: string[] = [];
  const printer = new ProgressPrinter(new ProgressTracker(sweep), {
    progress: (text) => lines.push(text),
    tables: (text) => lines.push(text),
    tty: false,
  });
  for (const event of events) printer.handle(event);
  return lines;
}

const step = {
  opsPerSec: { total: 812.5, reads: 700, writes: 112.5 },
  ops: { reads: 1400, writes: 225, errors: 3 },
} as StepResult;

describe('the progress printer', () => {
  it('words a scenario run', () => {
    const since = Date.UTC(2026, 0, 2, 3, 4, 5);
    expect(
      printed([
        {
          type: 'scenario',
          kind: 'planned',
          scenario: { name: 'w', clients: [1], start: 0, duration: 4 },
        },
        {
          type: 'scenario',
          kind: 'planned',
          scenario: { name: 'r', clients: [1, 2, 4], start: 2, duration: 1 },
        },
        {
          type: 'scenario',
          kind: 'planned',
          scenario: {
            name: 'open',
            rate: { kind: 'constant', opsPerSecond: 10 },
            start: 0,
            duration: 4,
          },
        },
        {
          type: 'scenario',
          kind: 'planned',
          scenario: {
            name: 'ramp',
            rate: { kind: 'stages', startRate: 0, stages: [{ rate: 100, seconds: 2 }] },
            start: 1,
            duration: 2,
          },
        },
        { type: 'scenario', kind: 'clock', scenarios: 4, seconds: 5 },
        { type: 'scenario', kind: 'no-answer', scenario: 'w', since },
        {
          type: 'scenario',
          kind: 'step-failed',
          scenario: 'r',
          clients: 2,
          error: 'lost the server',
        },
        { type: 'scenario', kind: 'late-start', scenario: 'r', clients: 4, lateSeconds: 0.061 },
        { type: 'scenario', kind: 'step-done', scenario: 'w', clients: 1, step, startSecond: 0 },
        { type: 'scenario', kind: 'step-done', scenario: 'r', clients: 4, step, startSecond: 4 },
        {
          type: 'scenario',
          kind: 'event-done',
          scenario: 'w',
          event: { action: 'stepDown', at: 1, ok: true, startedAt: 1.002, endedAt: 1.5 },
        },
        {
          type: 'scenario',
          kind: 'event-done',
          scenario: 'w',
          event: {
            action: 'createIndex',
            at: 2,
            ok: false,
            error: 'not sent: the run stopped first',
          },
        },
      ]),
    ).toEqual([
      '[scenario] w: 1 client from 0 s, 4 s per step\n',
      '[scenario] r: 1, 2, 4 clients from 2 s, 1 s per step\n',
      '[scenario] open: 10 ops/s from 0 s, 4 s per step\n',
      '[scenario] ramp: a ramping rate from 1 s, 2 s per step\n',
      '[scenario] 4 scenarios at once, 5 s in all\n',
      `[scenario] w: no answer from the server since ${clockTime(since)}\n`,
      '[scenario] r: step with 2 clients failed: lost the server\n',
      '[scenario] r: the step with 4 clients began 0.061 s after its window opened (the step before still waited for an op)\n',
      '[scenario] w: 1 client, 812.5 ops/s (1400 reads, 225 writes, 3 errors) from 0 s\n',
      '[scenario] r: 4 clients, 812.5 ops/s (1400 reads, 225 writes, 3 errors) from 4 s\n',
      '[scenario] w: stepDown done (1.002 s to 1.5 s)\n',
      '[scenario] w: createIndex failed: not sent: the run stopped first\n',
    ]);
  });

  it('--warmup auto: the step line says up to the cap of warm-up, and the sweep left counts every warm-up at its cap', () => {
    const sweep = { clients: [1, 2], trials: 1, seconds: 5, warmupSeconds: 0, warmupMax: 15 };
    const start = (clients: number): RunEvent => ({
      type: 'step-start',
      clients,
      trial: 1,
      trials: 1,
      seconds: 5,
      warmupSeconds: 0,
      warmupMax: 15,
    });
    expect(
      printed(
        [
          start(1),
          { type: 'warmup-done', clients: 1, trial: 1, seconds: 12, steady: true },
          start(2),
        ],
        sweep,
      ).filter((l) => l.startsWith('[sweep] step')),
    ).toEqual([
      '[sweep] step 1/2: 1 client, up to 15 s warm-up + 5 s measured; at most 40s of sweep left\n',
      '[sweep] step 2/2: 2 clients, up to 15 s warm-up + 5 s measured; at most 20s of sweep left\n',
    ]);
  });

  it('words the --rate probe', () => {
    const probe: RateProbe = {
      share: 0.8,
      clients: [1, 8],
      seconds: 3,
      warmupSeconds: 1,
      opsPerSec: [900.5, 4000],
      maxOpsPerSec: 4000,
      clientsAtMax: 8,
      targetOpsPerSec: 3200,
      clientBoundAtMax: false,
    };
    expect(
      printed([
        { type: 'rate-probe', clients: 1, opsPerSec: 900.5 },
        { type: 'rate-probe', clients: 8, opsPerSec: 4000 },
        { type: 'rate-probe', probe },
        { type: 'rate-probe', probe: { ...probe, share: 0.333, targetOpsPerSec: 1332 } },
      ]),
    ).toEqual([
      '[rate] probe: 1 client, 900.5 ops/s\n',
      '[rate] probe: 8 clients, 4000 ops/s\n',
      '[rate] maximum 4000 ops/s (8 clients): the run holds 80% of it, 3200 ops/s\n',
      '[rate] maximum 4000 ops/s (8 clients): the run holds 33.3% of it, 1332 ops/s\n',
    ]);
  });
});

describe('the metrics endpoint on the console', () => {
  const events: RunEvent[] = [
    { type: 'metrics', text: "serving the run's metrics at http://127.0.0.1:9464/metrics" },
    {
      type: 'metrics',
      text: 'warning: the metrics endpoint listens on 0.0.0.0:9464',
      warning: true,
    },
  ];
  it('says where it serves, and warns', () => {
    expect(printed(events)).toEqual([
      "[metrics] serving the run's metrics at http://127.0.0.1:9464/metrics\n",
      '[metrics] warning: the metrics endpoint listens on 0.0.0.0:9464\n',
    ]);
  });
  it('with --quiet, too: the address was asked for (a free port is known only from it)', () => {
    const lines: string[] = [];
    const sweep = { clients: [1], trials: 1, seconds: 1, warmupSeconds: 0 };
    const printer = new SilentPrinter(new ProgressTracker(sweep), (text) => lines.push(text));
    for (const event of events) printer.handle(event);
    expect(lines).toEqual([
      "[metrics] serving the run's metrics at http://127.0.0.1:9464/metrics\n",
      '[metrics] warning: the metrics endpoint listens on 0.0.0.0:9464\n',
    ]);
  });
});
