export { eDivisive, energyStatistics, tStatistics, E_DIVISIVE_DEFAULTS } from './e-divisive';
export type { ChangePoint, EDivisiveOptions } from './e-divisive';
export {
  buildHistory,
  analyseSeries,
  gatedMetrics,
  HISTORY_DEFAULTS,
  HISTORY_SCHEMA,
  DEFAULT_GATED,
  GATE_CHOICES,
} from './history';
export { newestRunCheck, NEWEST_RUN_BASELINE, E_DIVISIVE_MIN_RUNS } from './newest-run';
export type { NewestRunCheck } from './newest-run';
export type { HistoryDocument, HistorySeries, HistoryChangePoint, HistoryOptions } from './history';
export { HISTORY_METRICS, seriesOf } from './series';
export { renderHistoryMarkdown } from './render-md';
export { renderTrendChart, trendChartConfiguration } from './chart';
export { writeHistory, HISTORY_FILES } from './write';
