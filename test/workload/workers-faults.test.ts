/**
 * The reliability promises with worker threads: a server that dies mid-step fails the step with what
 * was measured (errors counted per second), a stuck op is cut by --op-timeout in every worker, and
 * neither leaves a worker thread behind.
 */
import { existsSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { liveWorkerThreads, runParallelStep } from '../../lib/workload/engine/parallel-step';
import { presetOps } from '../../lib/workload/language/presets';
import { JAVA_SERVER_JAR, JavaServer, startJavaServer } from '../support/crud-server';
import { startRecordingServer, RecordingServer } from '../support/recording-server';
import { startStallProxy, StallProxy } from '../reliability/support/stall-proxy';
import { unplannedWrites } from '../../lib/workload/engine/write-handles';
import { DRIVERS } from '../../lib/workload/engine/op-client';

/** These tests bind ops on servers they start themselves, with no write plan. */
const TEST_WRITES = unplannedWrites('test/workload/workers-faults.test.ts');

const describeJava = existsSync(JAVA_SERVER_JAR) ? describe : describe.skip;

describeJava('workers: the server goes away mid-step (mongo-java-server SIGKILLed)', () => {
  let server: JavaServer | undefined;
  afterAll(() => {
    if (server && server.child.exitCode === null && server.child.signalCode === null)
      server.child.kill('SIGKILL');
  });

  it('the step comes back with lostServer, its errors counted per second beside what succeeded, and no worker left', async () => {
    server = await startJavaServer();
    // Answering before the step starts: a JVM just started on a loaded machine can take longer than a
    // short server-selection timeout to answer its first hello.
    const warm = new MongoClient(server.uri, { serverSelectionTimeoutMS: 30_000 });
    await warm.db('admin').command({ ping: 1 });
    await warm.close();
    const ns = 'gone.docs';
    let killed = false;
    const m = await runParallelStep(
      {
        uri: server.uri,
        // 3 s, not 1 s: the workers' own connections on a loaded machine ("worker 2: Server selection
        // timed out after 1000 ms" at load ~20, before the step began).
        serverSelectionTimeoutMS: 3000,
        workload: { ops: [{ op: 'findOne', ns, query: { _id: 1 } }], ns, writes: TEST_WRITES },
        plan: { clients: 4, seconds: 5, warmupSeconds: 0, randomSeed: 1 },
        workers: 2,
      },
      {
        // Killed once the step has counted a read (the first measured tick with one), not at its first
        // tick: a JVM just started answers its first finds slowly, and at load ~15 none had come back
        // within the first second. 5 s leave ticks to spare.
        onTick: (t) => {
          if (!killed && t.phase === 'measure' && t.measured.reads > 0) {
            killed = true;
            server!.child.kill('SIGKILL');
          }
        },
      },
    );
    expect(killed).toBe(true);
    expect(m.lostServer).toMatch(
      /MongoNetworkError|MongoServerSelectionError|MongoPoolClearedError/,
    );
    expect(m.reads).toBeGreaterThan(0);
    expect(m.errors).toBeGreaterThan(0);
    // Errors of ops in flight at the window's close are in the overrun part, not in a second (issue 22).
    expect(m.perSecond.errors.reduce((s, n) => s + n, 0) + (m.overrun?.errors ?? 0)).toBe(m.errors);
    expect(m.client.workers).toBe(2);
    expect(liveWorkerThreads()).toBe(0);
  }, 90_000);
});

describe('workers: a stuck operation cannot hold the step', () => {
  let recording: RecordingServer;
  let proxy: StallProxy;
  beforeAll(async () => {
    recording = await startRecordingServer();
    // Every find (findOne) is held 3 s before the server sees it: far beyond the op timeout.
    proxy = await startStallProxy(
      { host: '127.0.0.1', port: recording.port },
      { command: 'find', delayMs: 3000 },
    );
  });
  afterAll(async () => {
    await proxy.stop();
    await recording.stop();
  });

  it.each(DRIVERS)(
    '--op-timeout 400 in every worker: each stuck read fails (an error, not a read), maxTimeMS is sent, no worker left (--driver %s)',
    async (driver) => {
      const ns = 'stuck.docs';
      const held = proxy.held.length;
      const m = await runParallelStep({
        uri: proxy.uri,
        driver,
        opTimeoutMS: 400,
        workload: {
          ops: presetOps('read-only', { ns, docs: 20, docSize: 64 }),
          ns,
          writes: TEST_WRITES,
        },
        plan: { clients: 2, seconds: 2, warmupSeconds: 0, randomSeed: 1, overrunLimitMs: 1400 },
        workers: 2,
      });
      expect(m.client.workers).toBe(2);
      expect(m.reads).toBe(0);
      // 2 clients x 2 s / 0.4 s per timed-out op: about 10 errors.
      expect(m.errors).toBeGreaterThanOrEqual(6);
      expect(m.errors).toBeLessThanOrEqual(12);
      expect(m.errorTallies[0].error).toMatch(/MongoNetworkTimeoutError/);
      expect(proxy.held.length).toBeGreaterThan(held);
      for (const find of proxy.held) expect(find.maxTimeMS).toBe(400);
      expect(liveWorkerThreads()).toBe(0);
    },
    30_000,
  );
});
