/**
 * Every chart of a report, one entry each: its id, the section of the page it goes in, whether it is
 * drawn as a PNG, whether the compare page shows it, and its build (results in, ChartSpecs out: none
 * when there is nothing to draw). writeReport draws the PNG ones in this order (summary.md links them
 * in it too), index.html places each chart by its entry's section, and compare's page overlays the
 * entries marked for it. A chart's spec carries its entry's id (`chart`).
 *
 * Adding a chart: its builder, one entry here (a new section also needs its place in index-html.ts),
 * its row in docs/report.md, its test; test/report/chart-registry.test.ts fails while the page does
 * not place it.
 */
import { ResultDocument } from '../result';
import { ChartSpec, latencyCharts, throughputCharts, timelineCharts } from './chart-data';
import { loadMachineChart } from './load-machine-chart';
import { rateCharts } from './rate-chart';
import { buildScenarioCharts, withEventMarkers } from './scenario-report';
import { buildServerCharts } from './server-charts';

/** Where index.html places a chart. */
export type ChartSection =
  /** By concurrent clients: the SoftLayer four. */
  | 'throughput'
  /** By concurrent clients: latency percentiles. */
  | 'latency'
  /** Over time, the clients' view (beside the servers' ops). */
  | 'timeline'
  /** Over time, ops/s on the servers. */
  | 'server-ops'
  /** Over time, the servers' state (cache, queues, lag), below. */
  | 'server-other'
  /** A run of scenarios: its own section. */
  | 'scenarios'
  /** In each result's "Load machine" section (built for one result at a time). */
  | 'load-machine';

export interface ReportChart {
  id: string;
  section: ChartSection;
  /** Drawn as a PNG by writeReport (and linked from summary.md); otherwise a live chart of the page only. */
  png: boolean;
  /** Shown on compare's page, which overlays the two results as `report A B` does. */
  comparePage: boolean;
  build(results: readonly ResultDocument[]): ChartSpec[];
}

export const REPORT_CHARTS: readonly ReportChart[] = [
  {
    id: 'throughput',
    section: 'throughput',
    png: true,
    comparePage: true,
    build: throughputCharts,
  },
  { id: 'latency', section: 'latency', png: true, comparePage: true, build: latencyCharts },
  {
    id: 'timeline',
    section: 'timeline',
    png: true,
    comparePage: true,
    build: (results) => withEventMarkers(timelineCharts(results), results),
  },
  {
    id: 'scenarios-timeline',
    section: 'scenarios',
    png: true,
    comparePage: false,
    build: buildScenarioCharts,
  },
  { id: 'rate', section: 'timeline', png: true, comparePage: false, build: rateCharts },
  {
    id: 'server-ops',
    section: 'server-ops',
    png: true,
    comparePage: true,
    build: (results) => buildServerCharts(results, 'ops'),
  },
  {
    id: 'server-state',
    section: 'server-other',
    png: true,
    comparePage: true,
    build: (results) => buildServerCharts(results, 'state'),
  },
  {
    id: 'load-machine',
    section: 'load-machine',
    png: false,
    comparePage: true,
    build: (results) => {
      const spec = results.length === 1 ? loadMachineChart(results[0]) : undefined;
      return spec ? [spec] : [];
    },
  },
];

/** An entry's charts for these results, each carrying the entry's id. */
export function buildEntry(entry: ReportChart, results: readonly ResultDocument[]): ChartSpec[] {
  return entry.build(results).map((spec) => ({ ...spec, chart: entry.id }));
}

/** The charts of the entries chosen, in the registry's order. */
export function buildReportCharts(
  results: readonly ResultDocument[],
  which: (entry: ReportChart) => boolean,
): ChartSpec[] {
  return REPORT_CHARTS.filter(which).flatMap((entry) => buildEntry(entry, results));
}

/** The report's PNG charts, in the order they are written and linked. */
export function pngCharts(results: readonly ResultDocument[]): ChartSpec[] {
  return buildReportCharts(results, (entry) => entry.png);
}

const BY_CLIENTS = new Set(['throughput', 'latency', 'timeline']);

/** The charts of the steps' own figures: the SoftLayer four, latency and the timeline (no scenario, rate or server chart). */
export function buildCharts(results: readonly ResultDocument[]): ChartSpec[] {
  return buildReportCharts(results, (entry) => BY_CLIENTS.has(entry.id));
}

/** The registry entry that made a chart, if any. */
export function chartEntry(spec: ChartSpec): ReportChart | undefined {
  return REPORT_CHARTS.find((entry) => entry.id === spec.chart);
}
