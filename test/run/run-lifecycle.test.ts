/**
 * Every way a run ends goes through one exit (lib/run/run-lifecycle.ts): the server-stats sampler is
 * stopped exactly once, the result is stamped (complete or incomplete with its reason, finishedAt) and
 * results.json holds that stamped result; a run that fails (--on-error) throws only once it is written.
 * Against the recording server with a realistic serverStatus (its numbers are a test double's, not
 * MongoDB's): only the exits are checked here, not the figures.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunError } from '../../lib/config/errors';
import { RunOptions } from '../../lib/run/options/run-options';
import { BenchmarkInput, benchmarkOptions } from '../../lib/api/benchmark';
import { BenchmarkHooks, runBenchmark } from '../../lib/run/benchmark';
import { ResultDocument } from '../../lib/result';
import { ServerStatsRecorder } from '../../lib/server-stats/recorder';
import { CommandHandler, startRecordingServer, RecordingServer } from '../support/recording-server';
import { ServerStatusDouble } from '../support/server-status-double';
import { describeNeeding } from '../support/servers';

/** The run as the API resolves it (lib/api's benchmarkOptions), sampled every 250 ms. */
function options(uri: string, out: string, extra: Partial<BenchmarkInput> = {}): RunOptions {
  const input: BenchmarkInput = {
    uri,
    out,
    workload: '6to1',
    ns: 'lifecycle.docs',
    docs: 100,
    docSize: 64,
    load: false,
    clients: [1, 2],
    seconds: 1,
    warmup: 0,
    workers: 1,
    ...extra,
  };
  return { ...benchmarkOptions(input), serverStatsIntervalMs: 250 };
}

const refuse: CommandHandler = () => ({
  ok: 0,
  code: 8000,
  codeName: 'AtlasError',
  errmsg: 'refused by the test double',
});

describeNeeding('recording', 'every exit of a run (recording server)', () => {
  let server: RecordingServer;
  let dir: string;
  let stops: jest.SpyInstance;

  const start = async (handlers: Record<string, CommandHandler> = {}) => {
    const status = new ServerStatusDouble({ version: '7.0' });
    server = await startRecordingServer({ handlers: { ...status.handlers(), ...handlers } });
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-lifecycle-'));
    stops = jest.spyOn(ServerStatsRecorder.prototype, 'stop');
  });
  afterEach(async () => {
    stops.mockRestore();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const written = (): ResultDocument =>
    JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ResultDocument;
  /** The result as returned (or as written, for a run that threw) is stamped, and the file holds the same stamps. */
  const expectStamped = (result: ResultDocument, complete: boolean, reason?: RegExp) => {
    expect(stops).toHaveBeenCalledTimes(1);
    expect(result.complete).toBe(complete);
    expect(result.finishedAt).toEqual(expect.any(String));
    if (reason) expect(result.incompleteReason).toMatch(reason);
    else expect(result.incompleteReason).toBeUndefined();
    const file = written();
    expect([file.complete, file.finishedAt, file.incompleteReason]).toEqual([
      result.complete,
      result.finishedAt,
      result.incompleteReason,
    ]);
    // Written after the sampler stopped: its section is the stopped one.
    expect(file.server?.processes.length).toBe(1);
  };

  it('a complete run', async () => {
    await start();
    const result = await runBenchmark(options(server.uri, dir, { clients: [1] }));
    expectStamped(result, true);
    expect(result.steps).toHaveLength(1);
  });

  it('an interrupted run (the signal once the first step is done)', async () => {
    await start();
    const controller = new AbortController();
    const hooks: BenchmarkHooks = {
      signal: controller.signal,
      onEvent: (e) => e.type === 'step-done' && controller.abort('SIGINT'),
    };
    const result = await runBenchmark(options(server.uri, dir), hooks);
    expectStamped(result, false, /^interrupted \(SIGINT\)$/);
    expect(result.steps).toHaveLength(1);
  });

  it('--slo-abort: the first failed objective ends the sweep', async () => {
    await start();
    const result = await runBenchmark(
      options(server.uri, dir, { slo: 'reads.p50<1us', sloAbort: true }),
    );
    expectStamped(
      result,
      false,
      /^an objective failed \(--slo-abort\): .*the remaining steps were not run$/,
    );
    expect(result.slo?.aborted).toBe(true);
    expect(result.steps).toHaveLength(1);
  });

  it('--on-error stop: a failed step throws once the result is written', async () => {
    await start({ find: refuse, insert: refuse, update: refuse });
    const failed = await runBenchmark(options(server.uri, dir)).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(RunError);
    expect((failed as Error).message).toMatch(
      /^the step with 1 client failed: .* \(partial results in .*results\.json\)$/,
    );
    expectStamped(written(), false, /\(--on-error stop: the remaining steps were not run\)$/);
    expect(written().steps).toHaveLength(1);
  });

  it('--on-error continue: every step runs, then the run throws once the result is written', async () => {
    await start({ find: refuse, insert: refuse, update: refuse });
    const failed = await runBenchmark(options(server.uri, dir, { onError: 'continue' })).catch(
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(RunError);
    expect((failed as Error).message).toMatch(
      /^2 steps failed \(--on-error continue: the others ran\): /,
    );
    expectStamped(
      written(),
      false,
      /^the step with 1 client failed: .*; the step with 2 clients failed: /,
    );
    expect(written().steps).toHaveLength(2);
  });

  it('a thrown error (a hook that fails) still stops the sampler, once, and closes the run', async () => {
    await start();
    const failed = await runBenchmark(options(server.uri, dir), {
      onStepComplete: () => {
        throw new Error('the report writer failed');
      },
    }).catch((err: unknown) => err);
    expect((failed as Error).message).toBe('the report writer failed');
    expect(stops).toHaveBeenCalledTimes(1);
    // Not stamped: the result stays as last saved (after the first step).
    expect(written().finishedAt).toBeUndefined();
  });
});
