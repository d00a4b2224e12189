/**
 * The server sampler inside a run: against the recording server serving a realistic serverStatus
 * (test/support/server-status-double.ts: counters advance with the ops it answers), the result gets
 * per-second server series, one window per trial, and a consistency check that passes when only the
 * benchmark loads the server and warns when something else does. Against the CRUD test double (no
 * opcounters) the run still succeeds and says what it could not sample.
 */
import { RunOptions } from '../../lib/run/options/run-options';
import { presetOps } from '../../lib/workload/language/presets';
import { runBenchmark } from '../../lib/run/benchmark';
import { BenchmarkEvent } from '../../lib/run/events';
import { startRecordingServer, RecordingServer } from '../support/recording-server';
import { ServerStatusDouble } from '../support/server-status-double';
import { crudUri, describeNeeding } from '../support/servers';
import { buildServerCharts, serverChartsAbsence } from '../../lib/report/server-charts';

function options(uri: string, overrides: Partial<RunOptions> = {}): RunOptions {
  const ns = 'sstats.docs';
  return {
    uri,
    workload: { name: '6to1', ops: presetOps('6to1', { ns, docs: 100, docSize: 64 }) },
    clients: [1, 2],
    seconds: 1,
    warmupSeconds: 0.3,
    trials: 1,
    load: false,
    docs: 100,
    docSize: 64,
    batchSize: 100,
    ns,
    label: 'server-stats',
    randomSeed: 3,
    serverSelectionTimeoutMS: 3000,
    workers: 2,
    serverStatsIntervalMs: 250,
    ...overrides,
  };
}

describeNeeding(
  'recording',
  'server stats in a run (recording server with a realistic serverStatus)',
  () => {
    let server: RecordingServer;
    let status: ServerStatusDouble;

    beforeEach(async () => {
      status = new ServerStatusDouble({ version: '7.0' });
      server = await startRecordingServer({ handlers: status.handlers() });
    });
    afterEach(async () => {
      await server.stop();
    });

    it('keeps per-second server series and finds the servers agree with the clients, step by step', async () => {
      const events: BenchmarkEvent[] = [];
      const result = await runBenchmark(options(server.uri), { onEvent: (e) => events.push(e) });
      expect(result.complete).toBe(true);
      const section = result.server!;
      expect(section.processes).toEqual([{ id: `127.0.0.1:${server.port}`, kind: 'mongod' }]);
      expect(section.windows.map((w) => [w.clients, w.trial])).toEqual([
        [1, 1],
        [2, 1],
      ]);
      // One window per trial, as long as the measured second (plus the last op's completion).
      for (const w of section.windows) expect(w.close - w.open).toBeGreaterThan(0.9);
      const points = section.series[section.processes[0].id].filter((p) => !p.gap);
      expect(points.length).toBeGreaterThan(4);
      // The load shows in the server's series: queries in several readings, and per second as the clients
      // counted them (the busiest reading at least half the busier step's reads/s). A fixed 50 queries/s
      // was this machine's speed: at load ~15 on 2 cores only two readings passed it.
      const busy = points.filter((p) => (p.opsPerSec?.query ?? 0) > 0);
      expect(busy.length).toBeGreaterThan(2);
      const clientReadsPerSec = Math.max(...result.steps.map((s) => s.opsPerSec.reads));
      expect(Math.max(...busy.map((p) => p.opsPerSec!.query!))).toBeGreaterThanOrEqual(
        0.5 * clientReadsPerSec,
      );
      // The realistic document's other fields come through; a 7.0 server's tickets from queues.execution.
      expect(busy[0]).toEqual(
        expect.objectContaining({
          connections: 5,
          queuedReaders: 0,
          readTicketsOut: 0,
          cacheUsedShare: expect.any(Number),
          bytesInPerSec: expect.any(Number),
        }),
      );
      expect(section.checks.map((c) => c.status)).toEqual(['ok', 'ok']);
      for (const [i, check] of section.checks.entries()) {
        const step = result.steps[i];
        expect(check.clientOps).toBe(step.ops.reads + step.ops.writes);
        expect(Math.abs(check.difference!)).toBeLessThanOrEqual(check.allowance);
        expect(check.serverOps).toBeGreaterThan(
          step.ops.reads + step.ops.writes - 2 * step.clients - 1,
        );
      }
      expect(events.filter((e) => e.type === 'server-stats')).toEqual([]);
    });

    it('warns when the servers counted far more than the clients (something else loads the server)', async () => {
      const other = setInterval(() => status.record('query', 400), 50);
      const events: string[] = [];
      try {
        const result = await runBenchmark(options(server.uri, { clients: [1] }), {
          onEvent: (e) => e.type === 'server-stats' && events.push(e.text),
        });
        expect(result.complete).toBe(true);
        const [check] = result.server!.checks;
        // With its note: an unchecked step says why (a reading that failed, no window sampled).
        expect({ status: check.status, note: check.note }).toMatchObject({ status: 'gap' });
        expect(check.difference!).toBeGreaterThan(check.allowance);
        expect(events.join('\n')).toMatch(
          /warning: step 1 client: the servers counted \d+ ops, the clients \d+.*something else is loading the server/,
        );
      } finally {
        clearInterval(other);
      }
    });

    it('--no-server-stats leaves the servers alone', async () => {
      const result = await runBenchmark(options(server.uri, { clients: [1], serverStats: false }));
      expect(result.server).toBeUndefined();
      expect(status.serverStatusCalls).toBeLessThanOrEqual(1); // the target probe's one call at connect
    });

    it('a user without clusterMonitor gets one warning, and the run goes on', async () => {
      await server.stop();
      server = await startRecordingServer({
        handlers: {
          ...status.handlers(),
          serverStatus: () => ({
            ok: 0,
            code: 13,
            codeName: 'Unauthorized',
            errmsg: 'not authorized on admin to execute command { serverStatus: 1 }',
          }),
        },
      });
      const events: string[] = [];
      const result = await runBenchmark(options(server.uri, { clients: [1] }), {
        onEvent: (e) => e.type === 'server-stats' && events.push(e.text),
      });
      expect(result.complete).toBe(true);
      expect(result.server?.processes).toEqual([]);
      expect(result.server?.notes).toEqual(events);
      expect(events).toEqual([
        expect.stringMatching(
          /^server stats off: serverStatus was refused \(.*not authorized.*\); the user needs the clusterMonitor role$/,
        ),
      ]);
    });
  },
);

describeNeeding('crud', 'server stats against the CRUD test double (no opcounters)', () => {
  it('still runs, and says what it could not sample', async () => {
    const events: string[] = [];
    const result = await runBenchmark(
      options(crudUri(), { clients: [1], workers: 1, load: true, testDouble: true }),
      { onEvent: (e) => e.type === 'server-stats' && events.push(e.text) },
    );
    expect(result.complete).toBe(true);
    // Said while it runs, not only in the result; once, at the start, not again after the first step (issue 25).
    expect(events.filter((e) => e.includes('opcounters'))).toEqual([
      expect.stringMatching(/^server stats: the server reports no .*opcounters/),
    ]);
    expect(result.server!.checks.map((c) => c.status)).toEqual(['unchecked']);
    expect(result.server!.checks[0].counted).toMatch(/^no process gave opcounters: /);
    // The report says why it has no server charts.
    expect(buildServerCharts([result])).toEqual([]);
    expect(serverChartsAbsence(result)).toMatch(/none of the figures charted/);
  });
});
