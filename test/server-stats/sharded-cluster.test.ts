/**
 * The sampler on a sharded cluster made of serverStatus doubles (test/support/server-status-double.ts):
 * it finds the shards' members through listShards on the mongos, keeps per-second series for every
 * process, and with every insert landing on one shard shows it (one line per shard, the other at 0);
 * the mongos's count agrees with the clients'; each secondary's lag comes from its primary's
 * replSetGetStatus. The report's server charts are built and drawn from the result alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ResultDocument, RESULT_SCHEMA } from '../../lib/result';
import { renderChart } from '../../lib/report/render-chart';
import {
  buildServerCharts,
  SERVER_CHART_FILES,
  serverChartsAbsence,
} from '../../lib/report/server-charts';
import { renderSummaryMarkdown } from '../../lib/report/summary-md';
import { checkStep } from '../../lib/server-stats/consistency';
import { ConnectProcess } from '../../lib/server-stats/processes';
import { startServerStats } from '../../lib/server-stats/recorder';
import { ServerStatusDouble } from '../support/server-status-double';
import { PNG_SIGNATURE } from '../report/helpers';

type Doc = Record<string, unknown>;

function fakeCluster() {
  const doubles: Record<string, ServerStatusDouble> = {
    'mongos-a:27017': new ServerStatusDouble({ process: 'mongos' }),
    'rs0-a:27018': new ServerStatusDouble({
      version: '6.0',
      repl: { setName: 'rs0', primary: true, hosts: ['rs0-a:27018', 'rs0-b:27018'] },
    }),
    'rs0-b:27018': new ServerStatusDouble({
      version: '6.0',
      repl: { setName: 'rs0', primary: false, hosts: ['rs0-a:27018', 'rs0-b:27018'] },
    }),
    'rs1-a:27018': new ServerStatusDouble({
      version: '6.0',
      repl: { setName: 'rs1', primary: true, hosts: ['rs1-a:27018'] },
    }),
  };
  let secondaryLagMs = 0;
  const opened: string[] = [];
  const closed: string[] = [];
  const connect: ConnectProcess = (host) => {
    opened.push(host);
    return {
      command: async (command: Doc) => {
        if ('serverStatus' in command) return doubles[host].serverStatus();
        if ('replSetGetStatus' in command && host === 'rs0-a:27018') {
          const now = Date.now();
          return {
            set: 'rs0',
            members: [
              { name: 'rs0-a:27018', state: 1, stateStr: 'PRIMARY', optimeDate: new Date(now) },
              {
                name: 'rs0-b:27018',
                state: 2,
                stateStr: 'SECONDARY',
                optimeDate: new Date(now - secondaryLagMs),
              },
            ],
            ok: 1,
          };
        }
        if ('replSetGetStatus' in command)
          return {
            set: 'rs1',
            members: [
              { name: 'rs1-a:27018', state: 1, stateStr: 'PRIMARY', optimeDate: new Date() },
            ],
            ok: 1,
          };
        throw new Error(`unexpected command ${JSON.stringify(command)}`);
      },
      close: async () => void closed.push(host),
    };
  };
  const admin = async (command: Doc): Promise<Doc> => {
    if ('hello' in command) return { msg: 'isdbgrid', isWritablePrimary: true, ok: 1 };
    if ('listShards' in command)
      return {
        shards: [
          { _id: 'shard0', host: 'rs0/rs0-a:27018,rs0-b:27018' },
          { _id: 'shard1', host: 'rs1/rs1-a:27018' },
        ],
        ok: 1,
      };
    throw new Error('unexpected');
  };
  return { doubles, connect, admin, opened, closed, setLag: (ms: number) => (secondaryLagMs = ms) };
}

function resultWith(server: ResultDocument['server'], writes: number): ResultDocument {
  return {
    schema: RESULT_SCHEMA,
    tool: { name: 'mongo-bench', version: 'test' },
    label: 'all inserts on shard0',
    complete: true,
    startedAt: new Date().toISOString(),
    // Made-up processes (test doubles): the charts and summary must not call their numbers MongoDB's.
    target: {
      uri: 'mongodb://mongos-a:27017',
      topology: 'sharded',
      serverVersion: '6.0.14',
      testDouble: true,
    },
    workload: { name: 'insert-only', ops: [{ op: 'insert', ns: 'db.c', doc: { x: 1 } }] },
    config: {},
    steps: [
      {
        clients: 4,
        seconds: 1,
        trials: 1,
        status: 'ok',
        ops: { reads: 0, writes, errors: 0 },
        opsPerSec: { total: writes, reads: 0, writes },
        peakOpsPerSec: { total: writes, reads: 0, writes },
        latencyMicros: {
          reads: { avg: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, count: 0 },
          writes: { avg: 100, p50: 100, p95: 100, p99: 100, p999: 100, max: 100, count: writes },
        },
        perSecond: [{ t: 0, reads: 0, writes, errors: 0 }],
        benchRun: {},
      },
    ],
    server,
  };
}

describe('server stats on a sharded cluster', () => {
  it('samples every member through listShards, shows the one shard that took every insert, and agrees with the clients', async () => {
    const cluster = fakeCluster();
    const started = await startServerStats(cluster.admin, ['mongos-a:27017'], {
      intervalMs: 100,
      connect: cluster.connect,
    });
    const recorder = started.recorder!;
    try {
      expect(recorder.processes.map((p) => [p.id, p.kind, p.shard ?? null])).toEqual([
        ['mongos-a:27017', 'mongos', null],
        ['rs0-a:27018', 'mongod', 'shard0'],
        ['rs0-b:27018', 'mongod', 'shard0'],
        ['rs1-a:27018', 'mongod', 'shard1'],
      ]);
      // A mongos has no WiredTiger section, but the shards do: nothing is reported missing.
      expect(started.warnings).toEqual([]);

      recorder.windowOpensAt(performance.now() + 10, 4, 1);
      // The load starts after the window opened (its opening reading is taken at +10 ms).
      await new Promise((r) => setTimeout(r, 60));
      let inserted = 0;
      const load = setInterval(() => {
        // Every insert goes to shard0 (a monotonically increasing shard key): the sharding article's picture.
        cluster.doubles['mongos-a:27017'].record('insert', 50);
        cluster.doubles['rs0-a:27018'].record('insert', 50);
        cluster.doubles['rs0-a:27018'].writeTicketsOut = 3;
        inserted += 50;
        cluster.setLag(inserted * 2);
      }, 20);
      await new Promise((r) => setTimeout(r, 800));
      clearInterval(load);
      await recorder.windowClosed();
      const [window] = recorder.windowsSoFar();
      expect(window.counted['mongos-a:27017']!.insert).toBe(inserted);
      expect(window.counted['rs1-a:27018']!.insert).toBe(0);

      const step = resultWith(undefined, inserted).steps[0];
      const check = checkStep(step, recorder.windowsSoFar(), recorder.processes, {
        countsCommands: false,
        batchInserts: false,
      });
      expect(check).toEqual(
        expect.objectContaining({
          status: 'ok',
          serverOps: inserted,
          clientOps: inserted,
          difference: 0,
        }),
      );
      expect(check.counted).toMatch(/^mongos mongos-a:27017: query\+insert\+update\+delete$/);
      recorder.addCheck(check);

      const section = await recorder.stop();
      expect(cluster.closed.sort()).toEqual([...cluster.opened].sort());
      const shard0 = section.series['rs0-a:27018'].filter((p) => !p.gap);
      const shard1 = section.series['rs1-a:27018'].filter((p) => !p.gap);
      expect(Math.max(...shard0.map((p) => p.opsPerSec!.insert!))).toBeGreaterThan(1000);
      expect(shard1.every((p) => p.opsPerSec!.insert === 0)).toBe(true);
      // 6.0 reports tickets under wiredTiger.concurrentTransactions; the mongos reports none.
      expect(shard0.some((p) => p.writeTicketsOut === 3)).toBe(true);
      expect(
        section.series['mongos-a:27017'].every(
          (p) => p.writeTicketsOut === undefined && p.cacheUsedShare === undefined,
        ),
      ).toBe(true);
      const lags = shard0.flatMap((p) => (p.lagSeconds ? [p.lagSeconds['rs0-b:27018']] : []));
      expect(Math.max(...lags)).toBeGreaterThan(0.5);
      expect(section.series['rs0-b:27018'].some((p) => p.role === 'secondary')).toBe(true);

      // The report: from the result alone, one line per shard beside the clients.
      const result = resultWith(section, inserted);
      expect(serverChartsAbsence(result)).toBeUndefined();
      const charts = buildServerCharts([result]);
      expect(charts.map((c) => c.file)).toEqual([
        SERVER_CHART_FILES.ops,
        SERVER_CHART_FILES.cache,
        SERVER_CHART_FILES.queues,
        SERVER_CHART_FILES.lag,
      ]);
      const ops = charts[0];
      expect(ops.series.map((s) => s.label)).toEqual([
        'mongos mongos-a:27017 (opcounters)',
        'shard shard0 (opcounters)',
        'shard shard1 (opcounters)',
        'clients: reads + writes',
      ]);
      const ys = (label: string) =>
        ops.series
          .find((s) => s.label.startsWith(label))!
          .points.flatMap((p) => (p.y === null ? [] : [p.y]));
      expect(Math.max(...ys('shard shard0'))).toBeGreaterThan(1000);
      expect(ys('shard shard1').every((y) => y === 0)).toBe(true);
      expect(charts[3].series.map((s) => s.label)).toEqual(['rs0 secondary rs0-b:27018']);

      const dir = process.env.SERVER_CHARTS_OUT ?? mkdtempSync(join(tmpdir(), 'server-charts-'));
      try {
        for (const spec of charts) {
          const png = await renderChart(spec);
          expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
          writeFileSync(join(dir, spec.file), png);
        }
        const md = renderSummaryMarkdown([result], charts);
        expect(md).toMatch(/### Servers/);
        expect(md).toMatch(/\| 4 \| .* \| 0 \| ±\d+ \| ok \| mongos mongos-a:27017/);
      } finally {
        if (!process.env.SERVER_CHARTS_OUT) rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      await recorder.stop();
    }
  });

  it('a result without server data says why it has no server charts', () => {
    const result = resultWith(undefined, 10);
    result.config.serverStats = false;
    expect(buildServerCharts([result])).toEqual([]);
    expect(renderSummaryMarkdown([result], [])).toMatch(
      /No server charts: the run was made with --no-server-stats\./,
    );
    result.config = {};
    result.server = {
      intervalMs: 1000,
      startedAt: '',
      processes: [],
      notes: [
        'server stats off: serverStatus was refused (not authorized); the user needs the clusterMonitor role',
      ],
      series: {},
      windows: [],
      checks: [],
    };
    expect(renderSummaryMarkdown([result], [])).toMatch(
      /No server charts: no process could be sampled: server stats off: serverStatus was refused/,
    );
  });
});
