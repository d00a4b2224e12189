/** The open model in the report: rate.png's series and summary.md's totals, only for runs with a rate. */
import { rateCharts, RATE_CHART_FILE } from '../../lib/report/rate-chart';
import { renderSummaryMarkdown } from '../../lib/report/summary-md';
import { renderChart } from '../../lib/report/render-chart';
import { ResultDocument, resultDocumentSchema } from '../../lib/result';
import { fixture, pngSize } from './helpers';

/** The complete fixture's first step, measured at a constant 1000 ops/s with some ops dropped and late. */
function withRate(): ResultDocument {
  const result = structuredClone(fixture('result-complete.json'));
  const step = result.steps[0];
  step.perSecond = step.perSecond.map((s, t) => ({
    ...s,
    scheduled: 1000,
    dropped: t === 1 ? 400 : 0,
    late: t === 1 ? 50 : 3,
  }));
  const sum = (pick: (s: (typeof step.perSecond)[number]) => number | undefined) =>
    step.perSecond.reduce((n, s) => n + (pick(s) ?? 0), 0);
  step.arrival = {
    target: { kind: 'constant', opsPerSecond: 1000 },
    lateAfterMs: 5,
    dropAfterMs: 500,
    scheduled: sum((s) => s.scheduled),
    dropped: sum((s) => s.dropped),
    late: sum((s) => s.late),
  };
  return resultDocumentSchema.parse(result);
}

describe('the open model in the report', () => {
  it('a run without a rate gets no rate chart and no open-model section', () => {
    const plain = fixture('result-complete.json');
    expect(rateCharts([plain])).toEqual([]);
    expect(renderSummaryMarkdown([plain], [])).not.toContain('Open model');
  });

  it('rate.png plots target, achieved and dropped (and late) per second of the rated step', async () => {
    const result = withRate();
    const [spec] = rateCharts([result]);
    expect(spec.file).toBe(RATE_CHART_FILE);
    const byLabel = Object.fromEntries(
      spec.series.map((s) => [s.label, s.points.filter((p) => p.y !== null).map((p) => p.y)]),
    );
    const step = result.steps[0];
    expect(byLabel['target (ops due)']).toEqual(step.perSecond.map(() => 1000));
    expect(byLabel['achieved (completed)']).toEqual(step.perSecond.map((s) => s.reads + s.writes));
    expect(byLabel['dropped']).toEqual(step.perSecond.map((s) => s.dropped));
    expect(byLabel['late (started after their due time)']).toEqual(
      step.perSecond.map((s) => s.late),
    );
    const png = await renderChart(spec);
    expect(pngSize(png).width).toBeGreaterThan(0);
    // Compared runs get no rate chart (one target per run would not share an axis meaningfully).
    expect(rateCharts([result, result])).toEqual([]);
  });

  it('summary.md gives the dropped and late totals', () => {
    const result = withRate();
    const md = renderSummaryMarkdown([result], []);
    const a = result.steps[0].arrival!;
    expect(md).toContain('### Open model (--rate)');
    expect(md).toContain(`**Dropped: ${a.dropped.toLocaleString('en-US')}**`);
    expect(md).toContain(`**late: ${a.late.toLocaleString('en-US')}**`);
    expect(md).toContain('1,000 ops/s');
    // Older results recorded no lateness: no line for it.
    expect(md).not.toContain('started this late');
  });

  it("summary.md gives each step's start lateness (p50, p99) where the result recorded it", () => {
    const result = withRate();
    const [step] = result.steps;
    step.arrival = {
      ...step.arrival!,
      arrivals: 'exact',
      timerWaits: 900,
      timerLateMicrosAvg: 40,
      waitLateMicros: { avg: 40, p50: 7, p95: 300, p99: 1036, p999: 2000, max: 2400, count: 900 },
    };
    const md = renderSummaryMarkdown([result], []);
    expect(md).toContain('(--arrivals exact) and started this late after it');
    expect(md).toContain(`${step.clients}: p50 7 µs, p99 1,036 µs`);
  });
});
