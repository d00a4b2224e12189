/**
 * The chart registry against the page: every chart the report makes is placed on index.html exactly
 * once (none silently missing), every registry entry is exercised here (a new entry needs a result
 * below that makes it), and compare's page shows the entries marked for it and no other.
 */
import { comparePageModel } from '../../lib/compare/page';
import { compareResults } from '../../lib/compare';
import { ChartSpec } from '../../lib/report/chart-data';
import { buildEntry, pngCharts, REPORT_CHARTS } from '../../lib/report/chart-registry';
import { reportPageModel, sectionsLeftOut } from '../../lib/report/index-html';
import { REPORT_PNG_FILES } from '../../lib/report/write-report';
import { PageBlock } from '../../lib/report/page/page';
import { ResultDocument, resultDocumentSchema } from '../../lib/result';
import { REPLICA_SET, withServerSection } from '../support/server-results';
import { COMPARISON, fixture } from './helpers';

/** The servers' side and the load machine's load on every step. */
function rich(): ResultDocument {
  const base = withServerSection(fixture('result-complete.json'), {
    label: 'rs',
    topology: 'replica set rs0 (3 members)',
    processes: REPLICA_SET,
  });
  return {
    ...base,
    steps: base.steps.map((s) => ({
      ...s,
      client: { workers: 1, eventLoopUtilization: [0.5], cpuPercent: 40, cores: 2 },
    })),
  };
}

/** The first step run at a constant rate (rate.png). */
function rated(): ResultDocument {
  const result = structuredClone(fixture('result-complete.json'));
  const step = result.steps[0];
  step.perSecond = step.perSecond.map((s) => ({ ...s, scheduled: 1000, dropped: 0, late: 0 }));
  step.arrival = {
    target: { kind: 'constant', opsPerSecond: 1000 },
    lateAfterMs: 5,
    dropAfterMs: 500,
    scheduled: 1000 * step.perSecond.length,
    dropped: 0,
    late: 0,
  };
  return resultDocumentSchema.parse(result);
}

/** Two scenarios on one clock, one background event (scenarios-timeline.png). */
function scenarios(): ResultDocument {
  const base = fixture('result-complete.json');
  const [first] = base.steps;
  const step = (startSecond: number) => ({ ...first, startSecond });
  return resultDocumentSchema.parse({
    ...base,
    steps: [first],
    scenarios: [
      {
        name: 'reads',
        workload: { name: 'read-only', ops: [] },
        clients: [1],
        start: 0,
        duration: 10,
        steps: [step(0)],
        events: [{ action: 'createIndex', at: 2, startedAt: 2, endedAt: 4, ok: true }],
      },
      {
        name: 'writes',
        workload: { name: 'write-only', ops: [] },
        clients: [1],
        start: 0,
        duration: 10,
        steps: [step(0)],
      },
    ],
  });
}

const CASES: Array<[string, ResultDocument[]]> = [
  ['one result', [fixture('result-complete.json')]],
  ['an incomplete result', [fixture('result-incomplete.json')]],
  ['a comparison of three', COMPARISON.map(fixture)],
  ['one result with servers and the load machine', [rich()]],
  [
    'two results with servers overlaid',
    [rich(), { ...fixture('compare-w1.json'), label: 'w:1 other' }],
  ],
  ['a run at a rate', [rated()]],
  ['a run of scenarios', [scenarios()]],
];

function placed(blocks: readonly PageBlock[]): ChartSpec[] {
  return blocks.flatMap((b) =>
    b.kind === 'chart'
      ? [b.spec]
      : b.kind === 'grid' || b.kind === 'section'
        ? placed(b.blocks)
        : [],
  );
}

const key = (c: ChartSpec) => `${c.file} · ${c.title}`;

describe('the chart registry', () => {
  it('has one entry per id', () => {
    const ids = REPORT_CHARTS.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(CASES)(
    '%s: index.html places every chart made once, or leaves its section out on purpose',
    (_name, results) => {
      const charts = pngCharts(results);
      expect(charts.length).toBeGreaterThan(0);
      const leftOut = sectionsLeftOut(results);
      const onPage = placed(reportPageModel(results, charts).blocks).map(key);
      for (const c of charts) {
        const entry = REPORT_CHARTS.find((e) => e.id === c.chart);
        expect(entry).toBeDefined();
        expect(onPage.filter((k) => k === key(c))).toEqual(
          leftOut.includes(entry!.section) ? [] : [key(c)],
        );
      }
    },
  );

  it('every entry makes a chart for one of the results above (a new entry needs its case here)', () => {
    // The PNG charts for all the results of a case; the page-only ones (the load machine) for each result alone, as the page builds them.
    const made = CASES.flatMap(([, results]) => [
      ...pngCharts(results),
      ...results.flatMap((r) =>
        REPORT_CHARTS.filter((e) => !e.png).flatMap((e) => buildEntry(e, [r])),
      ),
    ]);
    for (const entry of REPORT_CHARTS) expect(made.map((c) => c.chart)).toContain(entry.id);
  });

  it.each(CASES)(
    '%s: every PNG drawn is one of REPORT_PNG_FILES (the names a run checks before it starts)',
    (_name, results) => {
      for (const chart of pngCharts(results)) expect(REPORT_PNG_FILES).toContain(chart.file);
    },
  );

  it("the page's data holds the specs as drawn, without the registry's id", () => {
    const results = [rich()];
    const specs = placed(reportPageModel(results, pngCharts(results)).blocks);
    expect(specs.length).toBeGreaterThan(0);
    for (const s of specs) expect(s).not.toHaveProperty('chart');
  });

  it("compare's page overlays exactly the entries marked for it", () => {
    const a = rich();
    const b = { ...rich(), label: 'rs again' };
    const model = comparePageModel(compareResults(a, b), [a, b]);
    const titles = placed(model.blocks).map((s) => s.title);
    const marked = REPORT_CHARTS.filter((e) => e.png && e.comparePage).flatMap((e) =>
      e.build([a, b]),
    );
    expect(marked.length).toBeGreaterThan(0);
    for (const c of marked) expect(titles).toContain(c.title);
    const unmarked = REPORT_CHARTS.filter((e) => e.png && !e.comparePage).flatMap((e) =>
      e.build([a, b]),
    );
    for (const c of unmarked) expect(titles).not.toContain(c.title);
  });
});
