/**
 * `run --replay-rate Nx` over the captured per-second curve: a log whose rate changes over time is
 * captured into `capture.perSecond`, and the rate stages built from it issue, second by second, N times
 * what the log served (checked through the arrival times the open model schedules from the stages).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureFromLogs } from '../../lib/capture';
import { resolveBenchmarkOptions } from '../../lib/run/options/run-options';
import { arrivalTimes, rateDurationSeconds } from '../../lib/workload/language/rate-spec';
import type { ScheduledRate } from '../../lib/workload/language/rate-spec';
import { replayStages } from '../../lib/workload/language/replay-curve';
import { parseWorkloadText } from '../../lib/workload/language/workload-file';
import { usageMessage } from '../support/cli';

const LOGS = join(__dirname, '..', 'fixtures', 'capture', 'logs');

/** The log's rate, second by second: a ramp up, a burst, a silent gap, a tail. */
const SERVED = [10, 10, 10, 10, 10, 40, 40, 40, 40, 40, 0, 0, 0, 0, 0, 20];

/** The real `find` line of the fixtures, logged SERVED[s] times in second s (spread within the second). */
function changingRateLog(): string {
  const find = JSON.parse(
    readFileSync(join(LOGS, '2025-before-8.0.log'), 'utf8').split('\n')[2],
  ) as Record<string, unknown>;
  const start = Date.parse('2025-09-24T13:00:00.000Z');
  const lines: string[] = [];
  SERVED.forEach((n, second) => {
    for (let i = 0; i < n; i++) {
      const entry = structuredClone(find);
      entry.t = {
        $date: new Date(start + second * 1000 + Math.floor((i * 1000) / n)).toISOString(),
      };
      lines.push(JSON.stringify(entry));
    }
  });
  return `${lines.join('\n')}\n`;
}

/** Arrivals the schedule issues in each whole second of its span. */
function arrivalsPerSecond(spec: ScheduledRate, seconds: number): number[] {
  const counts = new Array<number>(seconds).fill(0);
  for (const at of arrivalTimes(spec, seconds)) counts[Math.floor(at + 1e-9)]++;
  return counts;
}

describe('the captured per-second curve and --replay-rate', () => {
  let dir: string;
  let workloadFile: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-replay-curve-'));
    const log = join(dir, 'changing.log');
    writeFileSync(log, changingRateLog());
    const { workload } = await captureFromLogs([log]);
    workloadFile = join(dir, 'workload.json');
    writeFileSync(workloadFile, JSON.stringify(workload));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('capture records the statements of each second of the log, silent seconds included', () => {
    const file = parseWorkloadText(readFileSync(workloadFile, 'utf8'), workloadFile);
    expect(file.capture?.perSecond).toEqual(SERVED);
    expect(file.capture?.bucketSeconds).toBeUndefined();
  });

  it("--replay-rate 2x: stages that jump to twice each second's rate, and the arrivals follow them second by second", () => {
    // warm-up 4 + measured 12 = the log's 16 s
    const options = resolveBenchmarkOptions({
      workloadFile,
      replayRate: '2x',
      warmup: 4,
      seconds: 12,
    });
    const arrival = options.arrival;
    expect(arrival).toEqual({
      kind: 'stages',
      startRate: 20,
      stages: [
        { rate: 20, seconds: 5 },
        { rate: 80, seconds: 0 },
        { rate: 80, seconds: 5 },
        { rate: 0, seconds: 0 },
        { rate: 0, seconds: 5 },
        { rate: 40, seconds: 0 },
        { rate: 40, seconds: 1 },
      ],
    });
    if (arrival?.kind !== 'stages') throw new Error('no arrival schedule');
    expect(rateDurationSeconds(arrival)).toBe(16);
    expect(arrivalsPerSecond(arrival, 16)).toEqual(SERVED.map((n) => 2 * n));
    // the schedule replaces the average: no constant rate beside it
    expect(options.rate).toBeUndefined();
  });

  it('a run longer than the capture repeats the curve; a shorter one replays its first seconds', () => {
    const long = resolveBenchmarkOptions({
      workloadFile,
      replayRate: '1x',
      warmup: 0,
      seconds: 40,
    }).arrival;
    if (long?.kind !== 'stages') throw new Error('no arrival schedule');
    expect(rateDurationSeconds(long)).toBe(40);
    expect(arrivalsPerSecond(long, 40)).toEqual([...SERVED, ...SERVED, ...SERVED.slice(0, 8)]);
    const short = resolveBenchmarkOptions({
      workloadFile,
      replayRate: '1x',
      warmup: 1,
      seconds: 6,
    }).arrival;
    if (short?.kind !== 'stages') throw new Error('no arrival schedule');
    expect(rateDurationSeconds(short)).toBe(7);
    expect(arrivalsPerSecond(short, 7)).toEqual(SERVED.slice(0, 7));
  });

  it('a workload file without the curve (older captures) keeps the average rate and no schedule', () => {
    const old = join(dir, 'old.json');
    writeFileSync(
      old,
      JSON.stringify({
        name: 'old',
        ops: [{ op: 'find', query: {} }],
        capture: { opsPerSecond: 40 },
      }),
    );
    const options = resolveBenchmarkOptions({ workloadFile: old, replayRate: '1x' });
    expect(options.rate).toBe(40);
    expect(options.arrival).toBeUndefined();
  });

  it('a broken curve in a workload file is named', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        ops: [{ op: 'find', query: {} }],
        capture: { opsPerSecond: 4, perSecond: [1, -2] },
      }),
    );
    expect(
      usageMessage(() => resolveBenchmarkOptions({ workloadFile: bad, replayRate: '1x' })),
    ).toBe(
      `workload file ${bad}: "capture.perSecond" must be a list of ops/s >= 0 with at least one above 0 (as mongo-bench capture writes it)`,
    );
  });

  it('buckets of several seconds replay their average rate for their whole width', () => {
    const spec = replayStages({ perSecond: [3, 6], bucketSeconds: 2 }, 1, 5);
    expect(spec.stages).toEqual([
      { rate: 3, seconds: 2 },
      { rate: 6, seconds: 0 },
      { rate: 6, seconds: 2 },
      { rate: 3, seconds: 0 },
      { rate: 3, seconds: 1 },
    ]);
    expect(arrivalsPerSecond(spec, 5)).toEqual([3, 3, 6, 6, 3]);
  });
});
