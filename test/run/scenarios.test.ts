/**
 * Scenarios (issue 29): two workloads at once on the CRUD test server, a constant-rate writer and a
 * reader sweep, from a run config file through `mongo-bench run`. The result keeps each one's
 * figures; they add up to the run's own step, and the server's own counts (collection counts: the
 * test double has no opcounters) match what the clients counted. A createIndex event is recorded
 * with its start and end, reaches the chart data, and builds the index; a balancer command on a
 * non-sharded server fails, is recorded, and the run goes on. The server's numbers are not MongoDB
 * numbers: only counts and structure are checked. Config errors name their path.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { loadResult } from '../../lib/report';
import { buildCharts } from '../../lib/report/chart-registry';
import { rateCharts } from '../../lib/report/rate-chart';
import { rateTable } from '../../lib/report/rate-summary';
import {
  scenarioTimelineChart,
  SCENARIO_TIMELINE_FILE,
  withEventMarkers,
} from '../../lib/report/scenario-report';
import { benchmarkOptions } from '../../lib/api';
import { resolveRunPlan } from '../../lib/run/options/run-plan';
import { renderDryRun } from '../../lib/run/options/dry-run';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { runCli, usageMessage } from '../support/cli';

const RATE = 100;
const WRITER_SECONDS = 4;

describeNeeding('crud', 'scenarios: several workloads at once on one clock', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-scenarios-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs a constant-rate writer beside a reader sweep; each one is kept apart, they add up, and the server counts the same', async () => {
    const db = uniqueDbName('scenarios');
    const config = join(dir, 'run.yaml');
    writeFileSync(
      config,
      [
        `ns: ${db}.docs`,
        'docs: 200',
        'docSize: 128',
        'slo: "errors<1%"',
        'scenarios:',
        '  - name: writer',
        `    ops: [{ op: insert, ns: ${db}.log, doc: { k: { "#RAND_INT": [0, 100] } } }]`,
        `    rate: ${RATE}`,
        `    duration: ${WRITER_SECONDS}s`,
        '    events:',
        `      - { at: 1s, action: createIndex, keys: { k: 1 }, ns: ${db}.log }`,
        '      - { at: 2s, action: stopBalancer }',
        '  - name: reader',
        '    ops:',
        `      - { op: findOne, query: { _id: { "#RAND_INT": [0, 200] } } }`,
        // Every pass also bumps a counter, so the server can count the reader's passes (no opcounters here).
        `      - { op: update, ns: ${db}.passes, query: { _id: 1 }, update: { $inc: { n: 1 } }, upsert: true }`,
        '    clients: "1..2"',
        '    duration: 2s',
        '    start: 1s',
      ].join('\n'),
    );
    const out = join(dir, 'out');
    const { code, stderr } = await runCli([
      'run',
      '--config',
      config,
      '--uri',
      crudUri(),
      '--out',
      out,
      '--quiet',
    ]);
    expect(stderr).not.toContain('unexpected error');
    expect(code).toBe(0);
    const result = await loadResult(join(out, 'results.json'));
    expect(result.complete).toBe(true);

    const [writer, reader] = result.scenarios!;
    expect(writer).toMatchObject({
      name: 'writer',
      rate: { kind: 'constant', opsPerSecond: RATE },
      start: 0,
      duration: WRITER_SECONDS,
    });
    expect(reader).toMatchObject({ name: 'reader', clients: [1, 2], start: 1, duration: 2 });
    // The reader's steps follow each other on the run's clock; the writer's one step spans the run.
    expect(reader.steps.map((s) => [s.clients, s.startSecond])).toEqual([
      [1, 1],
      [2, 3],
    ]);
    expect(writer.steps).toHaveLength(1);
    const w = writer.steps[0];
    // The open model: the rate's ops were due on schedule; each one ran or was counted dropped, none skipped silently.
    const arrival = w.arrival!;
    expect(Math.abs(arrival.scheduled - RATE * WRITER_SECONDS)).toBeLessThanOrEqual(1);
    expect(w.ops.writes + w.ops.errors + arrival.dropped).toBe(arrival.scheduled);
    expect(w.ops.reads).toBe(0);
    // The first step's clients start their first op as its window opens, so it counted reads. (Later steps
    // keep their place on the clock: on a loaded machine one may open while the step before still waits
    // for a slow op, and measure little.)
    expect(reader.steps[0].ops.reads).toBeGreaterThan(0);

    // Together: the run's one step is the sum of the scenarios, second by second on the same clock.
    const sum = (pick: (s: (typeof reader.steps)[number]) => number) =>
      [...writer.steps, ...reader.steps].reduce((n, s) => n + pick(s), 0);
    const [all] = result.steps;
    expect(result.steps).toHaveLength(1);
    expect(all.ops).toEqual({
      reads: sum((s) => s.ops.reads),
      writes: sum((s) => s.ops.writes),
      errors: sum((s) => s.ops.errors),
    });
    expect(all.ops.errors).toBe(0);
    // The run's collection (--ns, loaded with 200 documents) on disk, as on any step: the double reports
    // its count and no index sizes (absent, with why).
    expect(all.storage?.documents).toBe(200);
    expect(all.storage?.missing?.indexBytes).toMatch(/totalIndexSize/);
    // --slo judges all scenarios together, as it would a step.
    expect(result.slo).toMatchObject({
      pass: true,
      verdicts: [{ objective: 'errors<1%', clients: all.clients, pass: true }],
    });
    const perSecond = (s: (typeof reader.steps)[number], at: number) =>
      s.perSecond.find((p) => s.startSecond + p.t === at);
    for (const p of all.perSecond) {
      const parts = [...writer.steps, ...reader.steps].map((s) => perSecond(s, p.t));
      expect(p.reads + p.writes).toBe(parts.reduce((n, q) => n + (q ? q.reads + q.writes : 0), 0));
    }

    // The server's own counts: every insert the writer counted is in its collection; every reader pass bumped the counter once.
    const client = new MongoClient(crudUri());
    try {
      await client.connect();
      const inserted = await client.db(db).collection('log').countDocuments();
      const passes =
        (await client.db(db).collection<{ _id: number; n: number }>('passes').findOne({ _id: 1 }))
          ?.n ?? 0;
      expect(inserted).toBe(w.ops.writes);
      expect(passes).toBe(sum((s) => (s === w ? 0 : s.ops.writes)));
      expect(inserted + passes).toBe(all.ops.writes);
      // In order, findOne then update: a client stops between the two at most once.
      const readerReads = reader.steps.reduce((n, s) => n + s.ops.reads, 0);
      expect(readerReads - passes).toBeGreaterThanOrEqual(0);
      expect(readerReads - passes).toBeLessThanOrEqual(1 + 2); // the steps' clients: 1, then 2
      // The event built the index it was asked for.
      const indexes = await client.db(db).collection('log').listIndexes().toArray();
      expect(indexes.map((i) => i.name)).toContain('k_1');
    } finally {
      await client.close();
    }

    // Events: sent at their time (not before), start and end recorded; the failed one recorded, the run went on.
    const [createIndex, stopBalancer] = writer.events!;
    expect(createIndex).toMatchObject({ action: 'createIndex', at: 1, ok: true });
    expect(createIndex.startedAt!).toBeGreaterThanOrEqual(1);
    expect(createIndex.endedAt!).toBeGreaterThanOrEqual(createIndex.startedAt!);
    expect(stopBalancer).toMatchObject({
      action: 'stopBalancer',
      at: 2,
      ok: false,
      command: { balancerStop: 1 },
    });
    expect(stopBalancer.error).toMatch(/balancerStop/);

    // The open-model table and rate.png: the writer alone, against its own target (not the reader's ops too).
    const table = rateTable(result)!;
    expect(table.columns[0]).toBe('scenario');
    expect(table.rows).toEqual([
      [
        'writer',
        `${RATE} ops/s`,
        arrival.scheduled.toLocaleString('en-US'),
        Math.round(w.opsPerSec.total).toLocaleString('en-US'),
        expect.stringMatching(/^\d+/),
        expect.stringMatching(/^\d+/),
      ],
    ]);
    expect(Math.round(w.opsPerSec.total)).toBeLessThanOrEqual(Math.ceil(RATE * 1.1));
    const [rate] = rateCharts([result]);
    const achieved = rate.series
      .find((s) => s.label === 'achieved (completed)')!
      .points.filter((p) => p.y !== null);
    expect(achieved.reduce((n, p) => n + (p.y ?? 0), 0)).toBe(
      w.ops.writes - (w.overrun?.writes ?? 0),
    );

    // Chart data: one line per scenario plus the total, and the events marked on both timelines.
    const chart = scenarioTimelineChart(result)!;
    expect(chart.series.map((s) => s.label)).toEqual(['writer', 'reader', 'all scenarios']);
    expect(chart.markers).toEqual([
      { label: 'createIndex · writer', start: createIndex.startedAt, end: createIndex.endedAt },
      {
        label: 'stopBalancer (failed) · writer',
        start: stopBalancer.startedAt,
        end: stopBalancer.endedAt,
        failed: true,
      },
    ]);
    const timeline = withEventMarkers(buildCharts([result]), [result]).find(
      (c) => c.file === 'timeline.png',
    )!;
    expect(timeline.markers).toEqual(chart.markers);
    expect(existsSync(join(out, SCENARIO_TIMELINE_FILE))).toBe(true);
  }, 60_000);
});

describe('scenarios: config errors name their path, before anything connects', () => {
  const base = { uri: 'mongodb://127.0.0.1:1' };
  const writer = { name: 'w', ops: [{ op: 'insert', doc: { a: 1 } }], rate: 10 };
  const message = (scenarios: unknown[], extra: object = {}) =>
    usageMessage(() => benchmarkOptions({ ...base, ...extra, scenarios }));

  it.each([
    [
      'an unknown key',
      [{ ...writer, clientz: 2 }],
      /^option scenarios\[0\]: unknown key "clientz" \(did you mean "clients"\?\)/,
    ],
    [
      'two scenarios with one name',
      [writer, { ...writer }],
      /^option scenarios\[1\]\.name: "w" is also the name of scenarios\[0\]/,
    ],
    [
      'clients and rate both',
      [writer, { ...writer, name: 'r', clients: 2 }],
      /^option scenarios\[1\]: give clients \(closed model\) or rate \(open model\), not both/,
    ],
    [
      'a negative start',
      [{ ...writer, start: -1 }],
      /^option scenarios\[0\]\.start: expected a duration/,
    ],
    [
      'a bad rate',
      [writer, { ...writer, name: 'r', rate: 'fast' }],
      /^option scenarios\[1\]\.rate: /,
    ],
    [
      'a share of the maximum',
      [{ ...writer, rate: '80%' }],
      /^option scenarios\[0\]\.rate: a share of the measured maximum \("80%"\) is not supported in a scenario/,
    ],
    [
      'an unknown event',
      [{ ...writer, events: [{ at: '1s', action: 'dropIndex' }] }],
      /^option scenarios\[0\]\.events\[0\]\.action: must be one of createIndex, stopBalancer, startBalancer, stepDown/,
    ],
    [
      'an event after the end',
      [{ ...writer, duration: '2s', events: [{ at: '5s', action: 'stopBalancer' }] }],
      /^option scenarios\[0\]\.events\[0\]\.at: 5 s is after the scenario ends/,
    ],
    ['a bad op', [{ ...writer, ops: [{ op: 'insert' }] }], /^option scenarios\[0\]\.ops\[0\]/],
    ['no ops', [{ name: 'x', clients: 1 }], /^option scenarios\[0\]: needs its ops/],
    [
      'a bad sweep',
      [{ ...writer, rate: undefined, clients: '1..0' }],
      /^option scenarios\[0\]\.clients: /,
    ],
  ])('%s', (_what, scenarios, expected) => {
    expect(message(scenarios)).toMatch(expected);
  });

  it("a rate that ramps through stages runs for the stages' length unless a duration is given", () => {
    const [ramp] = benchmarkOptions({
      ...base,
      scenarios: [
        {
          ...writer,
          rate: [
            { rate: 50, for: '2s' },
            { rate: 200, for: '1500ms' },
          ],
        },
      ],
    }).scenarios!;
    expect(ramp).toMatchObject({ rate: { kind: 'stages', startRate: 50 }, duration: 4 });
  });

  it('a top-level option a scenario gives for itself is refused', () => {
    expect(message([writer], { clients: [1, 2] })).toMatch(
      /^option clients: cannot be combined with scenarios/,
    );
  });

  it('--dry-run tells each scenario, its events and how long they run', () => {
    const plan = resolveRunPlan({
      uri: 'mongodb://127.0.0.1:1',
      dryRun: true,
      ...({
        scenarios: [
          { ...writer, duration: '4s', events: [{ at: '1s', action: 'stepDown' }] },
          { name: 'r', workload: 'read-only', clients: '1..4', start: '2s', duration: 1 },
        ],
      } as object),
    });
    const text = renderDryRun(plan);
    expect(text).toContain(
      'w (w, 1 op per pass): 10 ops/s on 16 connections, 4 s per step, from 0 s to 4 s',
    );
    expect(text).toContain('at 1 s: stepDown');
    expect(text).toContain(
      'r (read-only, 1 op per pass): clients 1, 2, 4, 1 s per step, from 2 s to 5 s',
    );
    expect(text).toContain('expected duration: 5 s of scenarios');
  });

  it('in a config file the error names the file, its line and the path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-scenarios-config-'));
    try {
      const file = join(dir, 'run.yaml');
      writeFileSync(
        file,
        [
          'docs: 100',
          'scenarios:',
          '  - { name: a, workload: read-only, clients: 1 }',
          '  - { name: b, workload: read-only, rate: "80%" }',
        ].join('\n'),
      );
      expect(
        usageMessage(() => resolveRunPlan({ config: file, uri: 'mongodb://127.0.0.1:1' })),
      ).toBe(
        `config file ${file}:4: scenarios[1].rate: a share of the measured maximum ("80%") is not supported in a scenario: give ops/s (e.g. 500) or stages`,
      );
      // An error in an event names the event's own line, not its scenario's.
      writeFileSync(
        file,
        [
          'docs: 100',
          'scenarios:',
          '  - name: a',
          '    workload: read-only',
          '    clients: 1',
          '    duration: 4s',
          '    events:',
          '      - { at: 1s, action: stepDown }',
          '      - { at: 9s, action: stepDown }',
        ].join('\n'),
      );
      expect(
        usageMessage(() => resolveRunPlan({ config: file, uri: 'mongodb://127.0.0.1:1' })),
      ).toMatch(
        new RegExp(
          `^config file ${file}:9: scenarios\\[0\\]\\.events\\[1\\]\\.at: 9 s is after the scenario ends`,
        ),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
