/**
 * The matrix's plain data: a list of labelled configurations of one experiment and the rows of the
 * combined table. A configuration, its measures and charts are the experiments' shape (lib/experiments).
 */
import { MatrixConfiguration, RowStatus } from '../experiments/experiment';

export type {
  MatrixConfiguration,
  MatrixChartDefinition,
  MeasureDefinition,
  MeasureUnit,
  ReadPreferenceMode,
  RowStatus,
  WriteConcernSpec,
} from '../experiments/experiment';

/** An experiment's name, as the registry knows it (lib/experiments/registry.ts). */
export type ExperimentName = string;

export interface MatrixDefinition {
  /** Preset name, or the file's `name`. */
  name: string;
  experiment: ExperimentName;
  /** Experiment parameters shared by every configuration (validated by the experiment). */
  parameters: Record<string, unknown>;
  configurations: MatrixConfiguration[];
  /** Where the definition came from: "preset <name>" or "matrix file path/to/m.yaml". */
  source: string;
}

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
  /** With --trials N: each run of this configuration, in the order they ran; the row's measures are their medians. */
  trials?: MatrixTrial[];
}

/** One run of a configuration under --trials N (its files in the configuration's folder, trial-<n>/). */
export interface MatrixTrial {
  /** 1-based; trial n ran in round n. */
  trial: number;
  startedAt: string;
  seconds: number;
  status: RowStatus;
  reason?: string;
  measures: Record<string, number | null>;
  resultFile?: string;
}
