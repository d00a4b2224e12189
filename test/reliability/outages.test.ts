/**
 * Fail fast where waiting is wrong, measure where it is right. A single host that refuses connections
 * fails within 3 s of the command's start. During a step, the server going away (a TCP proxy of the
 * test's own in front of the CRUD test server, which it cuts: every connection reset, the port
 * refusing) is announced within 2 s ("no answer from the server since HH:MM:SS") and recorded as
 * steps[].availability.outages; a step whose server came back keeps its status and its whole window,
 * one whose server never came back within its window plus one server-selection timeout is failed and
 * leaves its dead seconds out of its ops/s. The server's figures are a test double's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../lib/cli/main';
import { loadResult } from '../../lib/report';
import { captureContext, runCli } from '../support/cli';
import { expectRateOf } from '../support/rates';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

/** A TCP proxy that can be cut (connections reset, port closed) and restored on the same port. */
interface CutProxy {
  uri: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  stop(): Promise<void>;
}

async function startCutProxy(upstreamPort: number): Promise<CutProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(upstreamPort, '127.0.0.1');
        sockets.add(client).add(upstream);
        const closeBoth = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', closeBoth).on('close', closeBoth);
        upstream.on('error', closeBoth).on('close', closeBoth);
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const cut = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return { uri: `mongodb://127.0.0.1:${port}/`, cut, restore: listen, stop: cut };
}

const NO_ANSWER = /\[outage\] no answer from the server since (\d\d:\d\d:\d\d)/;

/**
 * How far after the cut an outage may start. It starts at the last answer before it, and an answer
 * already received when the proxy cut is handled on a later turn of the event loop, which a loaded
 * machine delays by tens of milliseconds (more with a garbage collection); the outage's times are on
 * the product's clock (performance.timeOrigin + performance.now()), the cut's on Date.now(). Far below
 * the progress tick (1 s) and the driver's heartbeat (>= 500 ms) a wrong start would come from.
 */
const AFTER_CUT_MS = 250;

describeNeeding(
  'crud',
  'outages: fail fast before a step, measure during one (CRUD test server behind a proxy)',
  () => {
    let dir: string;
    let proxy: CutProxy;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mb-outages-'));
      proxy = await startCutProxy(Number(new URL(crudUri()).port));
    });
    afterAll(async () => {
      await proxy.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a single host refusing connections fails within 3 s (not the server-selection timeout)', async () => {
      const started = performance.now();
      const run = await runCli([
        'run',
        '--uri',
        'mongodb://127.0.0.1:1/',
        '--server-selection-timeout',
        '10000',
        '--out',
        join(dir, 'refused'),
        '--drop',
      ]);
      const seconds = (performance.now() - started) / 1000;
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('ECONNREFUSED 127.0.0.1:1');
      expect(seconds).toBeLessThan(3);
    });

    /** `run` through the proxy; cuts it 700 ms into the measured step, restores it after `downMs` (never: undefined). */
    async function runWithCut(name: string, downMs: number | undefined, extra: string[]) {
      if (downMs !== undefined) await proxy.restore().catch(() => undefined);
      const out = join(dir, name);
      let cutAt = 0;
      let announcedAt = 0;
      let restoredAt = 0;
      const ctx = captureContext({
        onErr: (stderr) => {
          if (!cutAt && stderr.includes('[sweep] step 1/1')) {
            cutAt = -1;
            setTimeout(() => {
              cutAt = Date.now();
              void proxy.cut().then(() => {
                if (downMs !== undefined)
                  setTimeout(
                    () => void proxy.restore().then(() => (restoredAt = Date.now())),
                    downMs,
                  );
              });
            }, 700);
          }
          if (!announcedAt && NO_ANSWER.test(stderr)) announcedAt = Date.now();
        },
      });
      const args = [
        'run',
        '--uri',
        proxy.uri,
        '--ns',
        `${uniqueDbName(name)}.docs`,
        '--clients',
        '2',
        '--warmup',
        '0',
        '--docs',
        '100',
        '--doc-size',
        '128',
        '--workers',
        '1',
        '--test-double',
        '--out',
        out,
        ...extra,
      ];
      const code = await main(['node', 'mongo-bench', ...args], ctx);
      return { code, stderr: ctx.stderr, out, cutAt, announcedAt, restoredAt };
    }

    it('the server comes back within the window: announced within 2 s, the step is ok, keeps its window and reports the outage', async () => {
      const r = await runWithCut('back', 1500, [
        '--seconds',
        '4',
        '--server-selection-timeout',
        '5000',
      ]);
      expect(r.cutAt).toBeGreaterThan(0);
      expect(r.restoredAt).toBeGreaterThan(r.cutAt);
      expect(r.announcedAt - r.cutAt).toBeLessThan(2000);
      expect(r.stderr).toMatch(
        /\[outage\] the server answered again at \d\d:\d\d:\d\d, after \d+\.\d s without an answer/,
      );
      expect(r.code).toBe(0);
      const [step] = (await loadResult(join(r.out, 'results.json'))).steps;
      expect(step.status ?? 'ok').toBe('ok');
      // The cut's outage is the longest: an answer already on its way when the proxy cut, handled late on a
      // loaded machine, can close a first one of a few milliseconds (0.03 s seen at load ~17).
      const outages = step.availability!.outages;
      const outage = outages.reduce((a, b) => (b.seconds > a.seconds ? b : a));
      expect(outages.every((o) => o.end !== undefined)).toBe(true);
      expect(outage.end).toBeDefined();
      // From the last answer before the cut to the first after the restore: at least the 1.5 s it was down
      // (less an answer handled late, AFTER_CUT_MS), more while the driver finds the server again (on a
      // loaded machine up to seconds), within window + timeout.
      expect(outage.seconds).toBeGreaterThanOrEqual((r.restoredAt - r.cutAt - AFTER_CUT_MS) / 1000);
      expect(outage.seconds).toBeLessThan(9);
      expect(Date.parse(outage.start)).toBeLessThanOrEqual(r.cutAt + AFTER_CUT_MS);
      expect(step.availability!.opsPerSecExcludesSeconds).toBeUndefined();
      expectRateOf(step.opsPerSec.total, step.ops.reads + step.ops.writes, step.elapsedSeconds!);
    }, 40_000);

    it('the server never comes back: announced within 2 s, failed after the window plus one server-selection timeout, dead seconds left out of ops/s', async () => {
      const r = await runWithCut('gone', undefined, [
        '--seconds',
        '2',
        '--server-selection-timeout',
        '1500',
      ]);
      expect(r.cutAt).toBeGreaterThan(0);
      expect(r.announcedAt - r.cutAt).toBeLessThan(2000);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/the step with 2 clients failed: lost the server/);
      const [step] = (await loadResult(join(r.out, 'results.json'))).steps;
      expect(step.status).toBe('failed');
      // The last outage is still open at the end (an answer already on its way when the proxy cut, late on a
      // loaded machine, can close a first one).
      expect(step.availability!.outages.at(-1)!.end).toBeUndefined();
      const dead = step.availability!.opsPerSecExcludesSeconds!;
      expect(dead).toBeGreaterThan(0.5);
      expectRateOf(
        step.opsPerSec.total,
        step.ops.reads + step.ops.writes,
        step.elapsedSeconds!,
        dead,
      );
      // Ended by the window and one server-selection timeout, not a 30 s operation timeout: timed from the
      // cut, not from the run's start (the connection and the load before it are no part of it).
      expect(Date.now() - r.cutAt).toBeLessThan(20_000);
    }, 40_000);
  },
);
