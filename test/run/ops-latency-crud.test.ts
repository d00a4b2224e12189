/**
 * `run --ops N` (a step bounded by its op count, as YCSB's operationcount) and the "Latency by op" table,
 * end to end against the CRUD test server (mongo-java-server here: its numbers are not MongoDB numbers;
 * only counts, the table's agreement with results.json and the percentiles' order are checked).
 */
import { MongoClient } from 'mongodb';
import { main } from '../../lib/cli/main';
import { benchmark } from '../../lib/api/benchmark';
import { renderIndexHtml } from '../../lib/report/index-html';
import { renderResultsCsv } from '../../lib/report/results-csv';
import { renderSummaryMarkdown } from '../../lib/report/summary-md';
import { formatMicrosAsMs, formatOps } from '../../lib/report/format';
import { formatStepTable } from '../../lib/metrics/format-step';
import { percentileCell } from '../../lib/metrics/warnings';
import type { BoundOp } from '../../lib/workload/engine/compile-ops';
import { runStep } from '../../lib/workload/engine/engine';
import { TemplateScope } from '../../lib/workload/language/template';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { captureContext } from '../support/cli';

async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  const ctx = captureContext();
  const code = await main(['node', 'mongo-bench', 'run', ...args], ctx);
  return { code, stderr: ctx.stderr };
}

/** The rows of summary.md's "### Latency by op" table, cells trimmed. */
function markdownRows(md: string): string[][] {
  const at = md.indexOf('### Latency by op');
  expect(at).toBeGreaterThan(0);
  const lines = md.slice(at).split('\n').slice(2);
  const table = lines.slice(
    0,
    lines.findIndex((l, i) => i > 0 && !l.startsWith('|')),
  );
  return table.slice(2).map((l) =>
    l
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim()),
  );
}

describe('--ops refused with what it cannot be combined with (exit 2, naming the options)', () => {
  it.each([
    [['--seconds', '5'], '--seconds'],
    [['--rate', '100'], '--rate'],
    [['--warmup', 'auto'], '--warmup auto'],
  ])('--ops 10 %j', async (extra, named) => {
    const r = await run(['--uri', 'mongodb://127.0.0.1:1', '--ops', '10', ...extra, '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`option --ops: cannot be combined with ${named}`);
  });

  it('--ops 0 is refused', async () => {
    const r = await run(['--uri', 'mongodb://127.0.0.1:1', '--ops', '0', '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--ops/);
  });
});

describe('the engine with --ops: exact shares of any split of the clients', () => {
  const instant = (index: number, opClass: 'read' | 'write'): BoundOp => ({
    index,
    type: opClass === 'read' ? 'findOne' : 'update',
    opClass,
    delayMs: 0,
    run: () => Promise.resolve(undefined),
  });
  const ops = [instant(0, 'read'), instant(1, 'read'), instant(2, 'write')];

  it.each([
    [301, 4, [[0, 4]]],
    [
      301,
      4,
      [
        [0, 2],
        [2, 2],
      ],
    ],
    [
      7,
      5,
      [
        [0, 1],
        [1, 3],
        [4, 1],
      ],
    ],
  ])('--ops %d at %d clients, slices %j', async (n, clients, slices) => {
    const parts = await Promise.all(
      slices.map(([first, count]) =>
        runStep(ops, new TemplateScope(), {
          clients,
          seconds: 1,
          warmupSeconds: 0,
          randomSeed: 1,
          ops: n,
          clientSlice: { first, count },
        }),
      ),
    );
    expect(parts.reduce((sum, m) => sum + m.reads + m.writes + m.errors, 0)).toBe(n);
    for (const m of parts) {
      expect(m.interrupted).toBe(false);
      expect(m.perSecond.reads.length).toBe(m.seconds);
      expect(m.latency.byIndex?.map((o) => [o.index, o.op])).toEqual([
        [0, 'findOne'],
        [1, 'findOne'],
        [2, 'update'],
      ]);
      expect(m.latency.byIndex?.reduce((sum, o) => sum + o.recorder.count, 0)).toBe(
        m.reads + m.writes,
      );
    }
  });
});

describeNeeding('crud', 'run --ops and the latency by op against the CRUD test server', () => {
  let db: string;
  let client: MongoClient;
  beforeAll(async () => {
    db = uniqueDbName('ops_latency');
    client = new MongoClient(crudUri());
    await client.connect();
  });
  afterAll(async () => {
    await client
      .db(db)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
  });

  it('--ops 300 at 1 client, a workload of several ops: exactly 300 ops, one latency row per op (two aggregates and a distinct apart), the same in summary.md, results.csv and index.html', async () => {
    const ns = `${db}.docs`;
    const id = { _id: { '#RAND_INT': [0, 100] } };
    const ops = [
      { op: 'findOne', ns, query: id },
      { op: 'update', ns, query: id, update: { $inc: { counter: 1 } } },
      {
        op: 'command',
        ns: db,
        command: { aggregate: 'docs', pipeline: [{ $match: id }], cursor: {} },
      },
      {
        op: 'command',
        ns: db,
        command: { aggregate: 'docs', pipeline: [{ $limit: 5 }], cursor: {} },
      },
      { op: 'command', ns: db, command: { distinct: 'docs', key: '_id', query: id } },
    ];
    // From code: the same options as the command line (--ops is `opCount` there); the report's texts rendered as write-report writes them.
    const result = await benchmark({
      uri: crudUri(),
      ns,
      ops,
      docs: 100,
      docSize: 64,
      clients: [1],
      opCount: 300,
      warmup: 0,
      serverStats: false,
    });
    expect(result.config).toMatchObject({ ops: 300, seconds: null });
    expect(result.steps.map((s) => s.clients)).toEqual([1]);
    expect(result.workload.ops).toHaveLength(5);
    for (const step of result.steps) {
      expect(step.ops.reads + step.ops.writes + step.ops.errors).toBe(300);
      expect(step.ops.errors).toBe(0);
      const byOp = step.latencyByOp ?? [];
      expect(byOp.map((o) => [o.index, o.op, o.name])).toEqual([
        [0, 'findOne', 'findOne'],
        [1, 'update', 'update'],
        [2, 'command', 'aggregate'],
        [3, 'command', 'aggregate'],
        [4, 'command', 'distinct'],
      ]);
      expect(byOp.reduce((sum, o) => sum + o.count, 0)).toBe(step.ops.reads + step.ops.writes);
      for (const o of byOp) {
        // 300 ops in passes of 5 at 1 client: each op runs 60 times.
        expect(o.count).toBe(60);
        expect(Math.min(o.avg, o.min ?? 0)).toBeGreaterThan(0);
        const ordered = [o.min ?? 0, o.p50, o.p95, o.p99, o.max];
        expect(ordered).toEqual([...ordered].sort((a, b) => a - b));
      }
      // The compatible per-type figures: the three commands together.
      expect(step.latencyByOpMicros?.command.count).toBe(
        byOp[2].count + byOp[3].count + byOp[4].count,
      );
    }

    // summary.md: one row per step and op, its cells the result's figures (p99 from 60 samples: its count).
    const rows = markdownRows(renderSummaryMarkdown([result], []));
    const expected = result.steps.flatMap((s) =>
      (s.latencyByOp ?? []).map((o) => [
        String(s.clients),
        String(o.index),
        o.name === o.op ? o.op : `${o.op} ${o.name}`,
        formatOps(o.count),
        formatMicrosAsMs(o.avg),
        formatMicrosAsMs(o.p50),
        formatMicrosAsMs(o.p95),
        percentileCell(o, 'p99', formatMicrosAsMs),
        formatMicrosAsMs(o.max),
      ]),
    );
    expect(rows).toEqual(expected);
    expect(rows[0][7]).toBe('60 samples');

    // results.csv: the per-op columns, one row per step.
    const [header, ...lines] = renderResultsCsv([result])
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    result.steps.forEach((s, i) => {
      for (const o of s.latencyByOp ?? []) {
        const key = `op${o.index}_${o.op}${o.name === o.op ? '' : `_${o.name}`}`;
        expect(Number(lines[i][header.indexOf(`${key}_count`)])).toBe(o.count);
        expect(Number(lines[i][header.indexOf(`${key}_p50_us`)])).toBe(o.p50);
      }
    });
    expect(renderIndexHtml([result], [])).toContain('Latency by op');

    // The console's step table (what `run` prints as the step ends): the same ops, the same counts.
    const consoleLines = formatStepTable(result.steps[0], undefined, 300).split('\n');
    const at = consoleLines.findIndex((l) => l.startsWith('latency by op'));
    expect(at).toBeGreaterThan(0);
    expect(consoleLines.slice(at + 1, at + 6).map((l) => l.split(/ {2,}/).slice(0, 2))).toEqual(
      (result.steps[0].latencyByOp ?? []).map((o) => [
        `${o.index} ${o.name === o.op ? o.op : `${o.op} ${o.name}`}`,
        '60',
      ]),
    );
  });

  it('--ops on the command line: the plan says the step is bounded by its ops', async () => {
    const ctx = captureContext();
    expect(
      await main(
        [
          'node',
          'mongo-bench',
          'run',
          '--uri',
          crudUri(),
          '--ops',
          '300',
          '--clients',
          '1',
          '--dry-run',
        ],
        ctx,
      ),
    ).toBe(0);
    expect(ctx.stdout).toContain('sweep: clients 1; 300 ops measured after 2 s warm-up');
  });

  it('--ops 301 at 4 clients on 2 worker threads (from the API: opCount): exactly 301 ops, split over the threads', async () => {
    const result = await benchmark({
      uri: crudUri(),
      ns: `${db}.docs`,
      load: false,
      docs: 100,
      clients: [4],
      workers: 2,
      opCount: 301,
      warmup: 0,
      serverStats: false,
    });
    const [step] = result.steps;
    expect([
      step.ops.reads + step.ops.writes + step.ops.errors,
      step.client?.workers,
      result.config.ops,
    ]).toEqual([301, 2, 301]);
    expect(step.perSecond.reduce((sum, p) => sum + p.reads + p.writes + p.errors, 0)).toBe(301);
  });
});
