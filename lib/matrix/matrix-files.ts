/**
 * Every file a matrix may write, relative to its folder, known from the plan before anything starts:
 * matrix.json, the combined report (summary.md, results.csv, the experiment's bar charts), command-log.txt
 * and setup.js, each configuration's files in its folder (per trial with --trials), and what the
 * experiment's finish draws (comparison/). runMatrix judges them (lib/common/file-plan.ts) before the
 * target is acquired.
 */
import { COMMAND_LOG_FILE, SETUP_FILE } from '../deployment/command-log';
import { MATRIX_FILE } from './matrix-document';
import { experimentOf, MatrixPlan, MatrixRunOptions } from './plan';
import { MATRIX_CSV_FILE, MATRIX_SUMMARY_FILE } from './write-matrix-report';

export function matrixFileNames(
  options: Pick<MatrixRunOptions, 'definition' | 'trials'>,
  plan: Pick<MatrixPlan, 'configurations'>,
): string[] {
  const experiment = experimentOf(options.definition);
  const trials = options.trials ?? 1;
  // As run-configurations names them: the configuration's folder, or with --trials N its trial-<n>/ folders.
  const folders = plan.configurations.flatMap((planned) =>
    trials > 1
      ? Array.from({ length: trials }, (_, i) => `${planned.dir}/trial-${i + 1}`)
      : [planned.dir],
  );
  return [
    MATRIX_FILE,
    MATRIX_SUMMARY_FILE,
    MATRIX_CSV_FILE,
    COMMAND_LOG_FILE,
    SETUP_FILE,
    ...experiment.charts.map((chart) => chart.file),
    ...folders.flatMap((dir) => experiment.files.configuration.map((name) => `${dir}/${name}`)),
    ...(experiment.files.finish ?? []),
  ];
}
