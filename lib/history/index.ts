export { eDivisive, energyStatistics, tStatistics, E_DIVISIVE_DEFAULTS } from './e-divisive';
export type { ChangePoint, EDivisiveOptions } from './e-divisive';
export { buildHistory, analyseSeries, HISTORY_DEFAULTS, HISTORY_SCHEMA } from './history';
export type { HistoryDocument, HistorySeries, HistoryChangePoint, HistoryOptions } from './history';
export { HISTORY_METRICS, seriesOf } from './series';
export { renderHistoryMarkdown } from './render-md';
export { renderTrendChart, trendChartConfiguration } from './chart';
export { writeHistory, HISTORY_FILES } from './write';
