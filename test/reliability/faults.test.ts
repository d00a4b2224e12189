/**
 * Faults (issue 9): the server goes away in the middle of a step, a slow or stuck operation, and a
 * crash of mongo-bench itself at any moment. In each case no measurement is lost and the run ends
 * in bounded time. (Interruption by signal at each phase: signals.test.ts.)
 */
import { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Document, MongoClient } from 'mongodb';
import { main } from '../../lib/cli/main';
import { ResultDocument } from '../../lib/result';
import { loadResult } from '../../lib/report';
import { runStep } from '../../lib/workload/engine/engine';
import { BoundOp, prepareWorkload } from '../../lib/workload/engine/compile-ops';
import { parseOps } from '../../lib/workload/language/op-spec';
import { JAVA_SERVER_JAR, startJavaServer } from '../support/crud-server';
import { defaultReply, startRecordingServer, RecordingServer } from '../support/recording-server';
import { tempDir } from '../support/processes';
import { startStallProxy, StallProxy } from './support/stall-proxy';
import { runCli } from '../support/cli-child';
import { captureContext } from '../support/cli';

const readResult = (out: string) =>
  JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')) as ResultDocument;

/** What survived, for the count the issue asks for. */
const survived: string[] = [];

const javaReady = fs.existsSync(JAVA_SERVER_JAR);
const describeJava = javaReady ? describe : describe.skip;

describe('faults', () => {
  let work: string;
  beforeAll(() => {
    work = tempDir('faults');
  });
  afterAll(() => {
    fs.rmSync(work, { recursive: true, force: true });
    process.stdout.write(`faults survived: ${survived.length} (${survived.join('; ')})\n`);
  });

  describeJava(
    `the server goes away mid-step (mongo-java-server SIGKILLed)${javaReady ? '' : ' [skipped: java test server not built: run mvn -f test/support/java-server/pom.xml package]'}`,
    () => {
      const servers: ChildProcess[] = [];
      afterAll(() => {
        for (const s of servers)
          if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
      });

      /** Runs `run` in-process and SIGKILLs the server `afterMs` after the sweep line `when` appears. */
      async function runAndKill(name: string, extra: string[], when: string, afterMs: number) {
        const server = await startJavaServer();
        servers.push(server.child);
        // Answering before the run starts: a JVM just started on a loaded machine can take longer than a
        // short server-selection timeout to answer its first hello.
        const warm = new MongoClient(server.uri, { serverSelectionTimeoutMS: 30_000 });
        await warm.db('admin').command({ ping: 1 });
        await warm.close();
        const out = path.join(work, name);
        let killedAt = 0;
        // When each step of the sweep began (its progress line), by step number.
        const stepAt: Record<number, number> = {};
        const ctx = captureContext({
          onErr: (stderr) => {
            if (!killedAt && stderr.includes(when)) {
              killedAt = -1;
              setTimeout(() => {
                killedAt = Date.now();
                server.child.kill('SIGKILL');
              }, afterMs);
            }
            for (const [, n] of stderr.matchAll(/\[sweep\] step (\d+)\//g))
              stepAt[Number(n)] ??= Date.now();
          },
        });
        const code = await main(
          [
            'node',
            'mongo-bench',
            'run',
            '--uri',
            server.uri,
            '--out',
            out,
            // 3 s steps: the kill, 600 ms after a step's line, lands inside that step's window even when
            // a loaded machine fires its timer seconds late (with 1 s steps it could fall in the next).
            '--seconds',
            '3',
            '--warmup',
            '0',
            '--docs',
            '200',
            // 3 s, not 1 s: the run's own connections on a loaded machine (at load ~20 a 1 s timeout
            // failed the run before its first step); a dead step still costs seconds, not the 30 s op timeout.
            '--server-selection-timeout',
            '3000',
            // What a step stuck on a dead server would wait for: 60 s (30 s by default).
            '--op-timeout',
            '60000',
            '--test-double',
            ...extra,
          ],
          ctx,
        );
        return { code, ctx, out, killedAt, stepAt, endedAt: Date.now() };
      }

      it('--on-error stop (the default): the step is failed with its errors per second, the run stops, what finished is kept and reported', async () => {
        const r = await runAndKill('gone-stop', ['--clients', '1,2,4'], '[sweep] step 2/3', 600);
        // The server was killed (the run's output if not: it never reached the step).
        expect({ killed: r.killedAt > 0, stderr: r.ctx.stderr }).toMatchObject({ killed: true });
        expect(r.code).toBe(1);
        expect(r.ctx.stderr).toMatch(
          /the step with 2 clients failed: lost the server: (MongoNetworkError|MongoServerSelectionError)/,
        );
        const result = readResult(r.out);
        expect(result.complete).toBe(false);
        expect(result.incompleteReason).toMatch(/--on-error stop/);
        expect(result.steps.map((s) => [s.clients, s.status])).toEqual([
          [1, 'ok'],
          [2, 'failed'],
        ]);
        const failed = result.steps[1];
        expect(failed.ops.errors).toBeGreaterThan(0);
        // Counted per second, beside the operations that succeeded before the server went away.
        expect(
          failed.perSecond.reduce((n, s) => n + s.errors, 0) + (failed.overrun?.errors ?? 0),
        ).toBe(failed.ops.errors);
        expect(failed.perSecond[0].reads + failed.perSecond[0].writes).toBeGreaterThan(0);
        expect(failed.errorSamples?.map((e) => e.error).join(' ')).toMatch(
          /MongoNetworkError|MongoServerSelectionError/,
        );
        // The report of what was measured is there, and the run ended soon after the window.
        for (const f of ['summary.md', 'results.csv', 'index.html', 'timeline.png'])
          expect(fs.existsSync(path.join(r.out, f))).toBe(true);
        expect(fs.readFileSync(path.join(r.out, 'summary.md'), 'utf8')).toMatch(/failed/i);
        expect(await loadResult(path.join(r.out, 'results.json'))).toMatchObject({
          complete: false,
        });
        survived.push('server killed mid-step, --on-error stop');
      }, 90_000);

      it('--on-error continue: the following steps run (and fail fast against the dead server), every step is kept', async () => {
        const r = await runAndKill(
          'gone-continue',
          ['--clients', '1,2,3', '--on-error', 'continue'],
          '[sweep] step 1/3',
          // 1.5 s into the first 3 s step: ops measured before the kill (a cold JVM answers its first
          // finds slowly on a loaded machine), well before the window closes.
          1500,
        );
        expect({ killed: r.killedAt > 0, stderr: r.ctx.stderr }).toMatchObject({ killed: true });
        expect(r.code).toBe(1);
        expect(r.ctx.stderr).toMatch(/3 steps failed \(--on-error continue/);
        const result = readResult(r.out);
        expect(result.complete).toBe(false);
        expect(result.steps.map((s) => [s.clients, s.status])).toEqual([
          [1, 'failed'],
          [2, 'failed'],
          [3, 'failed'],
        ]);
        expect(result.steps[0].ops.reads + result.steps[0].ops.writes).toBeGreaterThan(0); // measured before the kill
        // Whichever the driver met first on the dead server: a selection that timed out, a refused
        // connection, or a pooled one found closed (seen once in CI: "connection 1 to 127.0.0.1:35759 closed").
        expect(result.steps[1].error).toMatch(
          /Server selection timed out|MongoServerSelectionError|ECONNREFUSED|connection \d+ to \S+ closed/,
        );
        expect(fs.existsSync(path.join(r.out, 'index.html'))).toBe(true);
        expect(result.steps[2].error).toMatch(
          /Server selection timed out|MongoServerSelectionError|ECONNREFUSED/,
        );
        // Each dead step costs about one server-selection timeout (3 s here), long before a step stuck until
        // the operation timeout (60 s here) would end. Timed step by step, from the kill to the next step's
        // start, from there to the last one's, and to the run's end: each span is one step and the report
        // written after it, which a loaded machine stretches (the whole run, once bounded at 20 s from the
        // load on, took 22.4 s at load ~15 on 2 cores; one span 16.6 s at ~16); a stuck step's span would
        // pass 60 s, half of it is the bound.
        const spans = [r.killedAt, r.stepAt[2], r.stepAt[3], r.endedAt];
        expect(spans.every((t) => t > 0)).toBe(true);
        for (let i = 1; i < spans.length; i++) expect(spans[i] - spans[i - 1]).toBeLessThan(30_000);
        survived.push('server killed mid-step, --on-error continue');
      }, 150_000);
    },
  );

  describe('a slow or stuck operation cannot hold the run', () => {
    let server: RecordingServer;
    let proxy: StallProxy;
    beforeAll(async () => {
      server = await startRecordingServer();
      // Every find (findOne) of the workload is held 3 s before the server sees it: far beyond the op timeout.
      // The data guard's own finds before the load (an empty filter; the owner marker's collection) pass.
      const workloadFind = (c: Document) =>
        c.find === 'docs' && Object.keys((c.filter as Document | undefined) ?? {}).length > 0;
      proxy = await startStallProxy(
        { host: '127.0.0.1', port: server.port },
        { command: 'find', delayMs: 3000, when: workloadFind },
      );
    });
    afterAll(async () => {
      await proxy.stop();
      await server.stop();
    });

    it('--op-timeout 400: each stuck read fails after 400 ms (counted as an error), maxTimeMS is sent, the step ends on time', async () => {
      const out = path.join(work, 'op-timeout');
      const ctx = captureContext();
      const code = await main(
        [
          'node',
          'mongo-bench',
          'run',
          '--uri',
          proxy.uri,
          '--out',
          out,
          '--workload',
          'read-only',
          '--clients',
          '2',
          '--seconds',
          '2',
          '--warmup',
          '0',
          '--docs',
          '20',
          '--op-timeout',
          '400',
          '--test-double',
        ],
        ctx,
      );
      // Every op failed: the step is failed (more than --max-error-rate 50% of its ops), exit 1, what it measured kept.
      expect({ code, stderr: ctx.stderr }).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(
          /ops failed \(100%, more than --max-error-rate 50%\); first error: MongoNetworkTimeoutError/,
        ),
      });
      const step = readResult(out).steps[0];
      expect(step.status).toBe('failed');
      // 2 clients x 2 s / 0.4 s per timed-out op: about 10 errors, no successful read.
      expect(step.ops.reads).toBe(0);
      expect(step.ops.errors).toBeGreaterThanOrEqual(6);
      expect(step.ops.errors).toBeLessThanOrEqual(12);
      expect(step.errorSamples?.[0].error).toMatch(/MongoNetworkTimeoutError/);
      expect(proxy.held.length).toBeGreaterThan(0);
      for (const find of proxy.held) expect(find.maxTimeMS).toBe(400);
      // The step ends on time: its two seconds and one op timeout (400 ms) of overrun, on the step's own
      // clock, and 1 s for a late timer. (The whole run, the load and the report's rendering included, was
      // bounded at 12 s: a loaded machine stretches those, and they are not the step.)
      expect(step.elapsedSeconds).toBeLessThan(2 + 0.4 + 1);
      survived.push('stuck reads cut by --op-timeout');
    }, 60_000);

    it('an op that never settles: the step is cut once it overruns its window by more than the limit, and says so', async () => {
      const [spec] = parseOps([{ op: 'findOne', ns: 'db.c', query: {} }], { defaultNs: 'db.c' });
      const prepared = prepareWorkload([spec], {});
      const stuck: BoundOp = {
        index: 0,
        type: 'findOne',
        opClass: 'read',
        delayMs: 0,
        run: () => new Promise(() => undefined),
      };
      const started = Date.now();
      const m = await runStep([stuck], prepared.scope, {
        clients: 2,
        seconds: 1,
        warmupSeconds: 0,
        randomSeed: 1,
        overrunLimitMs: 300,
      });
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(1250);
      expect(took).toBeLessThan(2500);
      expect(m.cut).toMatch(
        /after the measured window closed \(more than the 300 ms allowed\): cut/,
      );
      expect(m.reads + m.errors).toBe(0); // nothing completed: nothing counted
      survived.push('never-settling op cut at window + limit');
    });
  });

  describe('a crash at any moment leaves a loadable results.json', () => {
    let server: RecordingServer;
    beforeAll(async () => {
      // Each find and update answered after 5 ms: the runs' clients wait instead of spinning the
      // 2-core machine's CPU at thousands of ops a second (the crash does not depend on the op rate).
      const slow = (name: string) => async (body: Document, db: string) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return defaultReply(name, body, db);
      };
      server = await startRecordingServer({
        handlers: { find: slow('find'), update: slow('update') },
      });
    });
    afterAll(async () => server.stop());

    it('kill -9 of the CLI at random points of a 6-step run, 4 times: results.json is absent or a valid, incomplete document', async () => {
      // One kill during the load, three during the steps: a random moment after a progress line.
      const moments = ['[load]', '[sweep] step 2/6', '[sweep] step 4/6', '[sweep] step 6/6'].map(
        (line) => ({ line, ms: Math.floor(Math.random() * 900) }),
      );
      const runs = await Promise.all(
        moments.map(async ({ line, ms }, i) => {
          const out = path.join(work, `crash-${i}`);
          let timer: NodeJS.Timeout | undefined;
          // SIGKILL from outside, as the OOM killer would: no handler of ours runs.
          const r = await runCli(
            [
              'run',
              '--uri',
              server.uri,
              '--out',
              out,
              '--clients',
              '1,1,1,1,1,1',
              '--seconds',
              '1',
              '--warmup',
              '0',
              '--docs',
              '50',
              '--test-double',
            ],
            {
              onStderr: (stderr, child) => {
                if (!timer && stderr.includes(line))
                  timer = setTimeout(() => child.kill('SIGKILL'), ms);
              },
              // A hang guard (its SIGKILL is not ours): 4 CLIs of 6 steps each, a report after every step,
              // all at once on a loaded machine take a while to reach their lines.
              guardMs: 100_000,
            },
          );
          clearTimeout(timer);
          return { r, out, ms: `${line} + ${ms} ms`, ours: timer !== undefined };
        }),
      );
      let loaded = 0;
      for (const { r, out, ms, ours } of runs) {
        // Killed mid-run by us, not finished (nor stopped by the guard before its line).
        expect({ ms, signal: r.signal, ours }).toEqual({ ms, signal: 'SIGKILL', ours: true });
        const file = path.join(out, 'results.json');
        if (!fs.existsSync(file)) continue;
        const result = await loadResult(file); // parses and validates the document
        expect(result.complete).toBe(false);
        expect(result.steps.every((s) => s.status === 'ok' && s.clients === 1)).toBe(true);
        loaded++;
      }
      // The three kills during the sweep land after at least one step was written: real partial documents.
      expect(loaded).toBeGreaterThanOrEqual(3);
      survived.push(
        `kill -9 at ${runs.map((x) => x.ms).join('; ')} (${loaded} partial results loaded)`,
      );
    }, 150_000);
  });
});
