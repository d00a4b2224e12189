// Comparing two result documents: ratios, a verdict that accounts for noise, text, Markdown and a chart.
export {
  compareResults,
  perSecondRates,
  smallestPossibleP,
  COMPARE_DEFAULTS,
  METHOD_DESCRIPTION,
} from './compare';
export type { Comparison, CompareOptions, StepComparison, Verdict, LatencyRatios } from './compare';
export { mannWhitneyU, exactUCounts } from './mann-whitney';
export { normalUpperTail } from '../metrics/normal-tail';
export {
  minDetectableChange,
  detectableShift,
  criticalU,
  pooledLogSpread,
  DETECTION_POWER,
} from './power';
export type { DetectableChange, DetectableOptions } from './power';
export type { MannWhitneyResult, MannWhitneyMethod } from './mann-whitney';
export {
  renderComparisonText,
  renderComparisonMarkdown,
  comparisonTable,
  conclusion,
  formatRatio,
  COMPARE_MD,
  COMPARE_PNG,
  COMPARE_JSON,
} from './render-text';
export { renderComparisonChart } from './chart';
export { writeComparison } from './write';
export { renderComparePage, comparePageModel, ratioChart, COMPARE_PAGE } from './page';
export { sideTrend, roundRatioTrend, resultTrend, TREND_ALPHA } from './trend-check';
