/**
 * Figures that know when they are not worth reading, on real runs:
 * - the CRUD test double with an update it rejects ($sett): most ops fail, so the step fails (exit 1) with
 *   the server's first message; with --max-error-rate 100% it passes, carrying the `errors` warning, which
 *   --quiet still prints;
 * - a slow server (a recording server answering every op after 40 ms): `few-samples`, and the table
 *   prints "N samples" instead of a p99;
 * - a server whose replies get faster over its first seconds: `not-steady`, with the rise in %.
 * The servers here are test doubles: their numbers are not MongoDB's.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../lib/cli/main';
import { loadResult } from '../../lib/report';
import { resolveRunOptions } from '../../lib/run/options/run-options';
import { runBenchmark } from '../../lib/run/benchmark';
import { resultDocumentSchema } from '../../lib/result';
import { formatStepTable } from '../../lib/metrics/format-step';
import { startRecordingServer, RecordingServer, defaultReply } from '../support/recording-server';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { captureContext } from '../support/cli';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeNeeding('crud', 'a step whose ops fail (the CRUD test double rejects $sett)', () => {
  let dir: string;
  let workload: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-truth-'));
    workload = join(dir, 'sett.json');
    writeFileSync(
      workload,
      JSON.stringify({
        name: 'sett',
        ops: [
          { op: 'update', query: { _id: { '#RAND_INT': [0, 100] } }, update: { $sett: { x: 1 } } },
        ],
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = async (...extra: string[]) => {
    const db = uniqueDbName('truth');
    const out = join(dir, db);
    const ctx = captureContext();
    const code = await main(
      [
        'node',
        'mongo-bench',
        'run',
        '--uri',
        crudUri(),
        '--db',
        db,
        '--drop',
        '--workload-file',
        workload,
        '--clients',
        '1',
        '--seconds',
        '1',
        '--warmup',
        '0',
        '--docs',
        '100',
        '--doc-size',
        '64',
        '--no-server-stats',
        '--out',
        out,
        ...extra,
      ],
      ctx,
    );
    return { code, ctx, out };
  };

  it("more than half the ops failed: the step is failed, exit 1, and the server's first message is printed and kept", async () => {
    const { code, ctx, out } = await run('--quiet');
    expect(code).toBe(1);
    expect(ctx.stderr).toMatch(
      /ops failed \(100%, more than --max-error-rate 50%\); first error: \w+ \(\d+\): .*\$sett/,
    );
    const result = await loadResult(join(out, 'results.json'));
    const [step] = result.steps;
    expect(step.status).toBe('failed');
    expect(step.error).toMatch(/\$sett/);
    expect(step.ops.errors).toBeGreaterThan(0);
    expect(step.warnings?.map((w) => w.code)).toContain('errors');
  });

  it("--max-error-rate 100% lets it pass, with the errors warning; --quiet still prints warnings; the table's errors line carries the message", async () => {
    const { code, ctx, out } = await run('--quiet', '--max-error-rate', '100%');
    expect(code).toBe(0);
    expect(ctx.stdout).toMatch(
      /WARNING clients 1 \[errors\]: [\d,]+ of [\d,]+ ops failed \(100%\); first error: .*\$sett/,
    );
    const result = await loadResult(join(out, 'results.json'));
    expect(result.steps[0].status ?? 'ok').toBe('ok');
    expect(formatStepTable(result.steps[0])).toMatch(
      /^errors: [\d,]+ \(\w+ \(\d+\) x[\d,]+: .*\$sett/m,
    );
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('[errors]');
  });

  it('--max-error-rate is checked like a percentage', async () => {
    const { code, ctx } = await run('--max-error-rate', '150%');
    expect(code).toBe(2);
    expect(ctx.stderr).toContain('option --max-error-rate: a percentage is at most 100%');
  });
});

describe('warnings on real runs against a recording server', () => {
  let server: RecordingServer;
  /** Milliseconds each find waits before it answers, as a function of the seconds since the first one. */
  let delay: (sinceFirstSeconds: number) => number = () => 0;
  let first = 0;
  beforeAll(async () => {
    const slow = async (body: Record<string, unknown>, db: string) => {
      const now = performance.now();
      if (first === 0) first = now;
      await sleep(delay((now - first) / 1000));
      return defaultReply(Object.keys(body)[0], body, db);
    };
    server = await startRecordingServer({ handlers: { find: slow } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const runOn = (
    seconds: number,
    warmup: { warmup: number | 'auto'; warmupMax?: number } = { warmup: 0 },
  ) => {
    server.clear();
    const options = resolveRunOptions({
      uri: server.uri,
      workload: 'read-only',
      clients: [1],
      seconds,
      ...warmup,
      load: false,
      serverStats: false,
      workers: 1,
      testDouble: true,
    });
    options.outDir = undefined;
    return runBenchmark(options);
  };

  it('a slow server: few-samples, and p99 is shown as its sample count', async () => {
    delay = () => 40;
    first = 0;
    const result = await runOn(2);
    expect(() => resultDocumentSchema.parse(result)).not.toThrow();
    const [step] = result.steps;
    expect(step.ops.reads).toBeLessThan(100);
    const few = step.warnings?.find((w) => w.code === 'few-samples');
    expect(few?.message).toMatch(
      /^too few samples: the step measured \d+ ops \(fewer than 100\): reads p99 and p99.9 from \d+ samples/,
    );
    expect(formatStepTable(step)).toMatch(/\d+ samples/);
  });

  it('a server whose replies get faster: not-steady, with the change in %', async () => {
    // 120 ms per find at first, 1.8 times shorter each second: about 8, 15, 27, 48, 87, 156 and 285
    // ops/s, each second well above the last and all of them far below what a loaded machine can serve
    // (a linear rise, 24 ms then 4 ms less each second over six seconds, and a doubling one reaching
    // 500 ops/s were each left unflagged once in a CI run). Seven seconds: Mann-Kendall stays under
    // p 0.05 with three pairs of seconds reordered by stalls (six seconds tolerate one).
    delay = (t) => Math.max(1, 120 / 1.8 ** t);
    first = 0;
    const result = await runOn(7);
    const [step] = result.steps;
    const notSteady = step.warnings?.find((w) => w.code === 'not-steady');
    // The per-second series beside the verdict, so that a failure shows what was measured.
    const opsPerSecond = step.perSecond.map((s) => s.reads + s.writes);
    expect({ series: step.steadiness?.series, opsPerSecond, message: notSteady?.message }).toEqual({
      series: 'opsPerSec',
      opsPerSecond,
      message: expect.stringMatching(
        /^not in steady state: ops\/s moved \+\d+(\.\d)?% over 7 s/,
      ) as string,
    });
  });

  it('--warmup auto: measures only once the last 10 seconds are level; at its cap it measures anyway, marked not-steady', async () => {
    // Faster for 2 s, then level: the warm-up cannot end before 10 level-enough seconds.
    delay = (t) => Math.max(0, 12 - 6 * t);
    first = 0;
    const result = await runOn(1, { warmup: 'auto', warmupMax: 14 });
    expect(result.config).toMatchObject({ warmup: 'auto', warmupMax: 14 });
    // No warm-up was fixed: no warmupSeconds 0 where each step warmed up 10 s or more.
    expect(result.config).not.toHaveProperty('warmupSeconds');
    const [step] = result.steps;
    expect(step.warmup!.seconds).toBeGreaterThanOrEqual(10);
    expect(step.warmup!.seconds).toBeLessThanOrEqual(14);
    // Steady, or else (a machine too loaded to hold 1% for 10 s) the cap is reported as such.
    const capped = step.warnings?.find(
      (w) => w.code === 'not-steady' && /warm-up reached its cap/.test(w.message),
    );
    expect(capped === undefined).toBe(step.warmup!.steady);

    delay = () => 1;
    first = 0;
    const short = await runOn(1, { warmup: 'auto', warmupMax: 3 });
    expect(short.steps[0].warmup).toEqual({ seconds: 3, steady: false });
    expect(short.steps[0].warnings?.find((w) => w.code === 'not-steady')?.message).toMatch(
      /the warm-up reached its cap \(3 s\) before the ops\/s settled/,
    );
  });

  it('--warmup auto is refused with a rate, and --warmup-max without it', () => {
    expect(() => resolveRunOptions({ uri: server.uri, warmup: 'auto', rate: 100 })).toThrow(
      /option --warmup auto: .*give the warm-up in seconds/,
    );
    expect(() => resolveRunOptions({ uri: server.uri, warmupMax: 10 })).toThrow(
      'option --warmup-max: needs --warmup auto',
    );
  });
});

describe('a rate or replay whose measured window schedules nothing is refused before it starts', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-empty-window-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a capture that opens with a burst and falls silent: --replay-rate 1x with its burst all in the warm-up', () => {
    const file = join(dir, 'burst.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'burst',
        ops: [{ op: 'find', query: {} }],
        capture: { opsPerSecond: 4, perSecond: [40, 8, ...Array(11).fill(0)] },
      }),
    );
    expect(() =>
      resolveRunOptions({
        uri: 'mongodb://127.0.0.1:1',
        workloadFile: file,
        replayRate: '1x',
        warmup: 2,
        seconds: 5,
      }),
    ).toThrow(
      'option --replay-rate: the schedule puts no op in the measured window (seconds 2 to 7 of each step): nothing would be measured; the captured curve is silent there',
    );
    // Measured from the start, the burst is in the window: accepted.
    expect(
      resolveRunOptions({
        uri: 'mongodb://127.0.0.1:1',
        workloadFile: file,
        replayRate: '1x',
        warmup: 0,
        seconds: 5,
      }).arrival?.kind,
    ).toBe('stages');
  });

  it('a constant rate too low for the window', () => {
    expect(() =>
      resolveRunOptions({ uri: 'mongodb://127.0.0.1:1', rate: 0.05, warmup: 2, seconds: 5 }),
    ).toThrow(/option --rate: the schedule puts no op in the measured window/);
    expect(
      resolveRunOptions({ uri: 'mongodb://127.0.0.1:1', rate: 1, warmup: 2, seconds: 5 }).rate,
    ).toBe(1);
  });
});
