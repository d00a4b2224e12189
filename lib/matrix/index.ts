// The matrix's public surface: presets, matrix files, the runner, the combined report.
export { runMatrix, JOURNAL_NOTE, MAPPING_NOTE } from './runner';
export type { MatrixEvent, MatrixHooks } from './runner';
export { planMatrix, scaledDefaults } from './plan';
export type { MatrixRunOptions, MatrixPlan, PlannedConfiguration } from './plan';
export {
  matrixPreset,
  isMatrixPreset,
  MATRIX_PRESET_NAMES,
  MATRIX_PRESET_DESCRIPTIONS,
} from './presets';
export type { MatrixPresetName } from './presets';
export { readMatrixFile, parseMatrixDocument } from './matrix-file';
export { MATRIX_SCHEMA, MATRIX_FILE, writeMatrixFile, readMatrixDocument } from './matrix-document';
export type { MatrixDocument } from './matrix-document';
export { writeMatrixReport, MATRIX_SUMMARY_FILE, MATRIX_CSV_FILE } from './write-matrix-report';
export { barChartSpec, renderBarChart } from './bar-chart';
export type { BarChartSpec, BarDataset } from './bar-chart';
export {
  matrixTable,
  renderMatrixMarkdown,
  renderMatrixCsv,
  formatMeasure,
  columnTitle,
} from './table';
export { skipReason } from './feasibility';
export type * from './types';
export { resolveMatrixTarget, acquireMatrixTarget } from './matrix-target';
export type { MatrixTarget } from './matrix-target';
export { TOPOLOGY_FLAG_KEYS } from '../deployment/target-options';
export type { TopologyFlags } from '../deployment/target-options';
export { renderMatrixDryRun } from './dry-run';
