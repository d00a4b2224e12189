// The report module's public surface: load result files, build chart data, write the report.
export { loadResult, parseResult } from '../result';
export { writeReport, SUMMARY_FILE, CSV_FILE, INDEX_FILE } from './write-report';
export {
  throughputChart,
  latencyChart,
  latencyComparisonChart,
  timelineChart,
  timelineSegments,
} from './chart-data';
export { buildCharts } from './chart-registry';
export type { ChartSpec, Series, Point, StepSegment } from './chart-data';
export { renderChart, CHART_WIDTH, CHART_HEIGHT } from './render-chart';
export { renderSummaryMarkdown } from './summary-md';
export { renderResultsCsv } from './results-csv';
export { renderIndexHtml } from './index-html';
// The interactive page: index.html, the compare page, and any other page (a history) built as a PageModel.
export {
  renderPage,
  htmlTable,
  embedJson,
  CONTENT_SECURITY_POLICY,
  SERVED_CONTENT_SECURITY_POLICY,
} from './page/page';
export type { RenderOptions } from './page/page';
// JUnit XML for CI (run, compare and history --junit): the writer and run's cases.
export { renderJunit, writeJunit, runJunitSuite, redactSuite } from './junit';
export type { JunitSuite, JunitCase, JunitOutcome } from './junit';
export type {
  PageModel,
  PageBlock,
  ChartBlock,
  TableBlock,
  TextBlock,
  ListBlock,
  FactsBlock,
  GridBlock,
  SectionBlock,
} from './page/page';
export { reportPageModel } from './index-html';
export { loadMachineChart } from './load-machine-chart';
