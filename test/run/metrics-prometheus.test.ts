/**
 * `run --metrics-port` scraped by a real Prometheus (Debian's package; skipped, saying why, without
 * it) during a run on the CRUD test double (a test double's numbers, not MongoDB's): afterwards,
 * Prometheus's HTTP API holds the measured ops of the result (to within one scrape interval's ops:
 * the last scrape may come before the run's last tick), and `promtool check metrics` passes on a scrape.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadResult } from '../../lib/report';
import { runCli } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import {
  describeWithPrometheus,
  freePort,
  promtoolCheck,
  RunningPrometheus,
  startPrometheus,
} from '../support/prometheus';

const SCRAPE_MS = 200;

describeWithPrometheus('Prometheus scrapes run --metrics-port', () => {
  describeNeeding('crud', 'on the CRUD test double', () => {
    let prometheus: RunningPrometheus | undefined;
    let dir: string;
    afterAll(async () => {
      await prometheus?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('stores the measured ops of the result, and promtool passes the exposition', async () => {
      dir = mkdtempSync(join(tmpdir(), 'mb-prometheus-run-'));
      const port = await freePort();
      prometheus = await startPrometheus(port, SCRAPE_MS);
      // The test's own scrapes, for promtool: the last one taken while the run went.
      let lastScrape = '';
      let polling: Promise<void> | undefined;
      let done = false;
      const poll = async () => {
        while (!done) {
          const body = await fetch(`http://127.0.0.1:${port}/metrics`).then(
            (r) => (r.ok ? r.text() : ''),
            () => '',
          );
          if (body) lastScrape = body;
          await new Promise((resolve) => setTimeout(resolve, SCRAPE_MS));
        }
      };
      const out = join(dir, 'out');
      const r = await runCli(
        [
          'run',
          '--uri',
          crudUri(),
          '--db',
          uniqueDbName('metrics_prom'),
          '--clients',
          '1,2',
          '--seconds',
          '2',
          '--warmup',
          '1',
          '--docs',
          '200',
          '--metrics-port',
          String(port),
          '--out',
          out,
        ],
        {
          onErr: (stderr) => {
            if (!polling && stderr.includes('[metrics] serving')) polling = poll();
          },
        },
      );
      done = true;
      await polling;
      expect(r.code).toBe(0);

      const result = await loadResult(join(out, 'results.json'));
      const sum = (k: 'reads' | 'writes' | 'errors') =>
        result.steps.reduce((s, st) => s + st.ops[k], 0);
      // The counters only grow: their largest value stored is the last scraped (the target is gone now,
      // so an instant query at its series would meet the staleness marker).
      const stored = async (kind: string) =>
        (await prometheus!.query(
          `max_over_time(mongo_bench_ops_total{job="mongo-bench",kind="${kind}",phase="measured"}[5m])`,
        )) ?? 0;
      // One scrape interval's ops at the last step's rate, at least one op.
      const lastStep = result.steps.at(-1)!;
      const slack = Math.max(1, Math.ceil((lastStep.opsPerSec.total * SCRAPE_MS) / 1000));
      const reads = await stored('read');
      const writes = await stored('write');
      expect(reads).toBeGreaterThan(0);
      expect(Math.abs(reads - sum('reads'))).toBeLessThanOrEqual(slack);
      expect(Math.abs(writes - sum('writes'))).toBeLessThanOrEqual(slack);
      expect(Math.abs((await stored('error')) - sum('errors'))).toBeLessThanOrEqual(slack);
      // The histogram reached Prometheus as one: a quantile over its buckets is a latency.
      const p99 = await prometheus.query(
        'histogram_quantile(0.99, sum by (le) (max_over_time(mongo_bench_op_duration_seconds_bucket{phase="measured",kind="read"}[5m])))',
      );
      expect(p99).toBeGreaterThan(0);
      expect(p99).toBeLessThanOrEqual(10);

      expect(lastScrape).toContain('mongo_bench_op_duration_seconds_bucket');
      const check = promtoolCheck(lastScrape);
      expect(check.output).toBe('');
      expect(check.code).toBe(0);
    });
  });
});
