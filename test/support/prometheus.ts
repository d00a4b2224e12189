/**
 * A real Prometheus for tests of the metrics endpoint: Debian's `prometheus` package (installed by
 * .ci/run; /usr/bin/prometheus and /usr/bin/promtool), started on 127.0.0.1 with a temporary config
 * and data folder, stopped by the test. Without it, suites declared with describeWithPrometheus are
 * skipped with the reason in their title (the summary reporter prints it), as servers.ts does.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = ['/usr/bin', '/usr/local/bin'];

function find(name: string): string | undefined {
  return BIN.map((dir) => join(dir, name)).find((p) => existsSync(p));
}

/** Both binaries, or why they are missing. */
export function findPrometheus(): { prometheus?: string; promtool?: string; reason?: string } {
  const prometheus = find('prometheus');
  const promtool = find('promtool');
  if (prometheus && promtool) return { prometheus, promtool };
  return {
    reason: `no ${prometheus ? 'promtool' : 'prometheus'} in ${BIN.join(' or ')}; install Debian's prometheus package (apt-get install -y prometheus)`,
  };
}

export function describeWithPrometheus(title: string, fn: () => void): void {
  const { reason } = findPrometheus();
  if (reason) describe.skip(`${title} [skipped: prometheus: ${reason}]`, fn);
  else describe(title, fn);
}

/** `promtool check metrics` on an exposition text: its exit code and what it said. */
export function promtoolCheck(text: string): { code: number; output: string } {
  const r = spawnSync(findPrometheus().promtool!, ['check', 'metrics'], {
    input: text,
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, output: `${r.stdout}${r.stderr}` };
}

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export interface RunningPrometheus {
  url: string;
  /** An instant PromQL query's first value (undefined: no series). */
  query(promql: string): Promise<number | undefined>;
  stop(): Promise<void>;
}

/** Starts Prometheus scraping 127.0.0.1:targetPort/metrics every intervalMs; resolves once it is ready. */
export async function startPrometheus(
  targetPort: number,
  intervalMs: number,
): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'mb-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      `  scrape_interval: ${intervalMs}ms`,
      `  scrape_timeout: ${intervalMs}ms`,
      'scrape_configs:',
      '  - job_name: mongo-bench',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${targetPort}']`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    findPrometheus().prometheus!,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready when /-/ready answers 200 (it is replaying an empty WAL and loading the config before).
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not become ready: ${log.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    stop,
    async query(promql) {
      const r = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await r.json()) as {
        status: string;
        error?: string;
        data: { result: { value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`prometheus: ${body.error ?? r.status}`);
      const first = body.data.result[0];
      return first ? Number(first.value[1]) : undefined;
    },
  };
}
