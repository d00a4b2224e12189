/**
 * The matrix's plain data: a list of labelled configurations (what differs between them), the measures
 * an experiment reports, and the rows of the combined table.
 */

/** The measurement loops a matrix can run (lib/experiments/*, or the engine's sweep for softlayer). */
export const EXPERIMENTS = ['most', 'write-concern-latency', 'softlayer', 'presplit-import'] as const;
export type ExperimentName = (typeof EXPERIMENTS)[number];

/** A write concern as the user writes it: `w` (a member count, "majority" or a tag), `j`, `wtimeoutMS`. */
export interface WriteConcernSpec {
  w?: number | string;
  j?: boolean;
  wtimeoutMS?: number;
}

export type ReadPreferenceMode = 'primary' | 'primaryPreferred' | 'secondary' | 'secondaryPreferred' | 'nearest';

/** One labelled configuration: what differs from the experiment's defaults. */
export interface MatrixConfiguration {
  label: string;
  /** One line for the table (e.g. the seed's wording: "NORMAL, no capped"). */
  description?: string;
  writeConcern?: WriteConcernSpec;
  /** A capped collection sized to hold the whole test (MOST). */
  capped?: boolean;
  /** Where reads go (the old slaveOk = "secondary"). */
  readPreference?: ReadPreferenceMode;
  /** Per-configuration overrides of the experiment's parameters (docs, writers, inserts, ...). */
  parameters?: Record<string, unknown>;
  /** Grouped bar charts: the x-axis group and the bar within the group (default: label, one bar). */
  group?: string;
  series?: string;
}

export interface MatrixDefinition {
  /** Preset name, or the file's `name`. */
  name: string;
  experiment: ExperimentName;
  /** Experiment parameters shared by every configuration (validated by the experiment). */
  parameters: Record<string, unknown>;
  configurations: MatrixConfiguration[];
  /** Where the definition came from: "preset most" or "matrix file path/to/m.yaml". */
  source: string;
}

/** 's' = seconds; 'ratio' has no unit (a coefficient of variation, busiest/idlest). */
export type MeasureUnit = 'MiB/s' | '%' | 'ms' | 'ops/s' | 'docs' | 'MiB' | 'count' | 's' | 'ratio';

/** One column of the combined table; `key` indexes MatrixRow.measures. */
export interface MeasureDefinition {
  key: string;
  /** Column name in results.csv (snake_case, unit included). */
  csv: string;
  title: string;
  unit: MeasureUnit;
}

/** One grouped bar chart. One measure: x = configuration groups, bars = series. Several (same unit): x = configurations, bars = measures. */
export interface MatrixChartDefinition {
  file: string;
  title: string;
  yTitle: string;
  measures: string[];
  scale: 'linear' | 'log';
}

export type RowStatus = 'ok' | 'skipped' | 'failed' | 'interrupted' | 'not-run';

export interface MatrixRow {
  label: string;
  description?: string;
  /** What this configuration sets, in words ("w:1, capped"), for the table's settings column. */
  settings: string;
  status: RowStatus;
  /** Why it was skipped, failed or not run. */
  reason?: string;
  /** null = not measured (skipped, failed, or nothing to measure). */
  measures: Record<string, number | null>;
  /** This configuration's result document, relative to the matrix folder. */
  resultFile?: string;
  /** This configuration's effective experiment parameters. */
  parameters?: Record<string, unknown>;
  /** Experiment facts worth keeping (docs written, misses, seconds, ...). */
  details?: Record<string, unknown>;
  group: string;
  series: string;
  startedAt?: string;
  seconds?: number;
}
