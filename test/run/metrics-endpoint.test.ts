/**
 * `--metrics-port`: the run's Prometheus metrics. A run on the CRUD test double (its numbers are a test
 * double's, not MongoDB's) is scraped with plain HTTP: the measured ops and the histogram's counts equal
 * the result's exactly once the run is over, worker threads included; the Host-header rule and the
 * loopback default hold; a taken port is a usage error before anything starts; nothing listens after.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRunOptions } from '../../lib/run/options/run-options';
import { runBenchmark } from '../../lib/run/benchmark';
import { MetricsServer } from '../../lib/run/metrics-server';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { runCli } from '../support/cli';
import { run } from '../../lib/api/run';
import { benchmark } from '../../lib/api/benchmark';
import { EXIT } from '../../lib/config/errors';
import { parseMetrics, sampleValue } from '../support/prometheus-text';
import { getWithHost } from '../support/http-get';

/** A port nothing listens on now (the OS's choice, closed again). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Whether something accepts a TCP connection on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the metrics endpoint', () => {
  it('binds to 127.0.0.1 unless told, answers only its own Host names, and serves only /metrics', async () => {
    const port = await freePort();
    const options = resolveRunOptions({ uri: 'mongodb://127.0.0.1:1', metricsPort: port });
    expect(options.metrics).toEqual({ port, host: '127.0.0.1' });
    const warnings: string[] = [];
    const server = await MetricsServer.start(options.metrics!, (w) => warnings.push(w));
    try {
      expect(warnings).toEqual([]);
      // DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends its own name.
      expect((await getWithHost(port, '/metrics', `evil.example:${port}`)).status).toBe(421);
      expect((await getWithHost(port, '/metrics', 'evil.example')).status).toBe(421);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost']) {
        const ok = await getWithHost(port, '/metrics', host);
        expect(ok.status).toBe(200);
        expect(ok.body).toContain('# TYPE mongo_bench_ops_total counter');
        expect(ok.body).toContain('# TYPE mongo_bench_op_duration_seconds histogram');
      }
      expect((await getWithHost(port, '/', `127.0.0.1:${port}`)).status).toBe(404);
    } finally {
      await server.close();
    }
    expect(await listening(port)).toBe(false);
  });

  it('costs other commands nothing: the CLI loads prom-client only when a run serves metrics', () => {
    const probe = spawnSync(
      process.execPath,
      [
        '--require',
        'tsx/cjs',
        '-e',
        "require('./lib/cli/main'); console.log(Object.keys(require.cache).some((k) => k.includes('/prom-client/')))",
      ],
      { cwd: join(__dirname, '..', '..'), encoding: 'utf8' },
    );
    expect(probe.stderr).toBe('');
    expect(probe.stdout.trim()).toBe('false');
  });

  it('port 0: a free port, which its URL names', async () => {
    const server = await MetricsServer.start({ port: 0, host: '127.0.0.1' });
    try {
      const port = server.endpoint.port;
      expect(port).toBeGreaterThan(0);
      expect(server.url).toBe(`http://127.0.0.1:${port}/metrics`);
      expect((await getWithHost(port, '/metrics', `127.0.0.1:${port}`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('warns when bound off loopback', async () => {
    const port = await freePort();
    const warnings: string[] = [];
    const server = await MetricsServer.start({ port, host: '0.0.0.0' }, (w) => warnings.push(w));
    await server.close();
    expect(warnings).toEqual([
      expect.stringContaining(
        `the metrics endpoint listens on 0.0.0.0:${port}, which other machines may reach`,
      ),
    ]);
  });
});

describe('mongo-bench run --metrics-port: bad input and a taken port stop the run before it starts', () => {
  let dir: string;
  let taken: Server;
  let takenPort: number;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mb-metrics-cli-'));
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    takenPort = (taken.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [['--metrics-host', '0.0.0.0'], 'option --metrics-host: needs --metrics-port'],
    [['--metrics-port', '70000'], 'option --metrics-port: must be a port from 0 to 65535'],
    [['--metrics-port', 'x'], 'option --metrics-port: expected an integer'],
  ])('%j', async (args, message) => {
    const r = await runCli(['run', '--uri', 'mongodb://127.0.0.1:1', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('--dry-run lists the endpoint', async () => {
    const r = await runCli([
      'run',
      '--uri',
      'mongodb://127.0.0.1:1',
      '--metrics-port',
      '9464',
      '--dry-run',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Metrics: http://127.0.0.1:9464/metrics while the run goes');
  });

  describeNeeding('crud', 'on the CRUD test double', () => {
    it('a taken port is exit 2 naming --metrics-port, and nothing was written', async () => {
      const out = join(dir, 'taken');
      const r = await runCli([
        'run',
        '--uri',
        crudUri(),
        '--db',
        uniqueDbName('metrics_taken'),
        '--metrics-port',
        String(takenPort),
        '--out',
        out,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `option --metrics-port: port ${takenPort} on 127.0.0.1 is taken by another program`,
      );
      expect(readdirSync(dir)).not.toContain('taken');
    });
  });
});

describeNeeding('crud', 'the metrics of a run on the CRUD test double', () => {
  it('count what the result counts: measured ops by kind, the histogram, the load, worker threads merged', async () => {
    const port = await freePort();
    const docs = 300;
    const options = resolveRunOptions({
      uri: crudUri(),
      ns: `${uniqueDbName('metrics_run')}.docs`,
      clients: [1, 2],
      seconds: 1,
      warmup: 1,
      docs,
      docSize: 64,
      // Two worker threads at 2 clients: their ticks are merged before they reach the metrics.
      workers: 2,
      testDouble: true,
      metricsPort: port,
    });
    options.outDir = undefined;
    const server = await MetricsServer.start(options.metrics!);
    let during = '';
    try {
      const result = await runBenchmark(options, {
        metrics: server,
        onEvent: (e) => {
          // A scrape while the run goes: the second step's ticks are arriving.
          if (e.type === 'tick' && e.clients === 2 && during === '')
            void getWithHost(port, '/metrics', `127.0.0.1:${port}`).then((r) => (during = r.body));
        },
      });
      // The run was handed a server: it leaves it listening for its owner.
      const after = await getWithHost(port, '/metrics', `localhost:${port}`);
      expect(after.status).toBe(200);
      const m = parseMetrics(after.body);
      const sum = (k: 'reads' | 'writes' | 'errors') =>
        result.steps.reduce((s, st) => s + st.ops[k], 0);
      const v = (name: string, labels: Record<string, string>) => sampleValue(m, name, labels);
      expect(v('mongo_bench_ops_total', { kind: 'read', phase: 'measured' })).toBe(sum('reads'));
      expect(v('mongo_bench_ops_total', { kind: 'write', phase: 'measured' })).toBe(sum('writes'));
      expect(v('mongo_bench_ops_total', { kind: 'error', phase: 'measured' }) ?? 0).toBe(
        sum('errors'),
      );
      expect(v('mongo_bench_op_duration_seconds_count', { kind: 'read', phase: 'measured' })).toBe(
        sum('reads'),
      );
      expect(
        v('mongo_bench_op_duration_seconds_bucket', {
          kind: 'read',
          phase: 'measured',
          le: '+Inf',
        }),
      ).toBe(sum('reads'));
      // The buckets are cumulative: never fewer at a larger bound.
      const buckets = m
        .filter(
          (s) =>
            s.name === 'mongo_bench_op_duration_seconds_bucket' &&
            s.labels.kind === 'read' &&
            s.labels.phase === 'measured',
        )
        .map((s) => s.value);
      expect(buckets).toHaveLength(17);
      expect([...buckets].sort((a, b) => a - b)).toEqual(buckets);
      // The histogram's sum agrees with the result's mean latency (µs), to the machine's rounding.
      const meanSeconds =
        (v('mongo_bench_op_duration_seconds_sum', { kind: 'read', phase: 'measured' }) ?? 0) /
        sum('reads');
      const resultMean =
        result.steps.reduce((s, st) => s + st.latencyMicros.reads.avg * st.ops.reads, 0) /
        sum('reads') /
        1e6;
      expect(meanSeconds).toBeCloseTo(resultMean, 4);
      // The warm-up's ops are there, apart; the loader's documents are the load phase's writes.
      expect(v('mongo_bench_ops_total', { kind: 'read', phase: 'warmup' })).toBeGreaterThan(0);
      expect(v('mongo_bench_ops_total', { kind: 'write', phase: 'load' })).toBe(docs);
      expect(v('mongo_bench_clients', {})).toBe(0);
      expect(v('mongo_bench_step_info', { step: '2', clients: '2' })).toBe(1);
      // Mid-run, the second step was running.
      expect(during).toContain('mongo_bench_clients 2');
    } finally {
      await server.close();
    }
    expect(await listening(port)).toBe(false);
  });

  it("the API's benchmark() serves its own endpoint while it runs, and closes it", async () => {
    const port = await freePort();
    const out = mkdtempSync(join(tmpdir(), 'mb-metrics-api-'));
    let scraped: Promise<{ status: number; body: string }> | undefined;
    await benchmark(
      {
        uri: crudUri(),
        ns: `${uniqueDbName('metrics_api')}.docs`,
        clients: [1],
        seconds: 1,
        warmup: 0,
        docs: 100,
        metricsPort: port,
        out,
      },
      {
        onEvent: (e) => {
          if (e.type === 'tick' && !scraped)
            scraped = getWithHost(port, '/metrics', `localhost:${port}`);
        },
      },
    );
    rmSync(out, { recursive: true, force: true });
    expect((await scraped)?.body).toContain('mongo_bench_clients 1');
    expect(await listening(port)).toBe(false);
  });

  it('an interrupted run (Ctrl-C: its signal aborted) closes its endpoint too', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'mb-metrics-stop-'));
    const stop = new AbortController();
    let scraped: Promise<{ status: number; body: string }> | undefined;
    try {
      const outcome = await run(
        {
          uri: crudUri(),
          ns: `${uniqueDbName('metrics_stop')}.docs`,
          clients: [1, 2],
          seconds: 5,
          warmup: 0,
          docs: 100,
          metricsPort: port,
          out: join(dir, 'out'),
        },
        {
          signal: stop.signal,
          onEvent: (e) => {
            // Stopped at its first measured second, after a scrape that saw it.
            if (e.type === 'tick' && !scraped) {
              scraped = getWithHost(port, '/metrics', `127.0.0.1:${port}`);
              void scraped.then(() => stop.abort('SIGINT'));
            }
          },
        },
      );
      expect(outcome.exitCode).toBe(EXIT.sigint);
      expect((await scraped)?.body).toContain('mongo_bench_clients 1');
      expect(await listening(port)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the run command closes its endpoint when the run ends', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'mb-metrics-run-'));
    let scraped: Promise<{ status: number; body: string }> | undefined;
    try {
      const r = await runCli(
        [
          'run',
          '--uri',
          crudUri(),
          '--db',
          uniqueDbName('metrics_cli'),
          '--clients',
          '1',
          '--seconds',
          '1',
          '--warmup',
          '0',
          '--docs',
          '100',
          '--metrics-port',
          String(port),
          '--out',
          join(dir, 'out'),
        ],
        {
          onErr: (stderr) => {
            if (!scraped && stderr.includes('[metrics] serving'))
              scraped = getWithHost(port, '/metrics', `127.0.0.1:${port}`);
          },
        },
      );
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        `[metrics] serving the run's metrics at http://127.0.0.1:${port}/metrics`,
      );
      expect((await scraped)?.status).toBe(200);
      expect(await listening(port)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
