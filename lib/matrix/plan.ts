/**
 * From a matrix definition and the command line to the list of configurations to run, each with its
 * validated parameters (seed size x scale, then the definition's, the command line's and the
 * configuration's own overrides). Everything here happens before connecting, so bad input fails fast.
 */
import { UsageError } from '../config/errors';
import { TargetPlan } from '../deployment/plan';
import { describeSettings } from '../experiments/configuration';
import { Experiment } from '../experiments/experiment';
import { allExperiments, findExperiment } from '../experiments/registry';
import { MatrixConfiguration, MatrixDefinition } from './types';

export interface MatrixRunOptions {
  definition: MatrixDefinition;
  /**
   * Where the matrix connects. With a target other than --uri: what the target will be (the launched
   * plan's URI; a placeholder for the embedded server), replaced by the real one once it is started.
   */
  uri: string;
  /** Where the server comes from (lib/run's choice); absent means the existing deployment at `uri`. */
  target?: TargetPlan;
  /** Doubts about the target's plan (even member counts, ...), said before it starts. */
  targetWarnings?: string[];
  /** The command line as typed, credentials removed (for command-log.txt). */
  commandLine?: string;
  /** --dry-run: say what would run, connect nothing. */
  dryRun?: boolean;
  /** Database the experiments write to (each drops its own collections). */
  db: string;
  scale: number;
  /** Parameter overrides from the command line (win over the definition's). */
  overrides: Record<string, unknown>;
  /** One configuration per ratio of the server's RAM (experiments with a datasetRatio parameter). */
  datasetRatios?: number[];
  outDir: string;
  /** --force: files in outDir that mongo-bench did not write may be replaced (lib/common/file-plan.ts). */
  force?: boolean;
  /** --trials N: run every configuration N times in interleaved rounds (absent: once). */
  trials?: number;
  serverSelectionTimeoutMS: number;
  testDouble?: boolean;
  /** The user allowed changes to the target's setup (--setup), for experiments that change it. */
  allowSetup?: boolean;
  /**
   * --drop: the experiments may replace their collections in `db` even when those hold documents
   * mongo-bench did not load (on --uri; a server the matrix starts is its own).
   */
  drop?: boolean;
}

export interface PlannedConfiguration {
  config: MatrixConfiguration;
  /** Validated parameters of this configuration. */
  parameters: Record<string, unknown>;
  /** Its folder inside the output folder, e.g. "03-journaled-w-1-j-true". */
  dir: string;
  settings: string;
  group: string;
  series: string;
}

export interface MatrixPlan {
  parameters: Record<string, unknown>;
  configurations: PlannedConfiguration[];
  scaleNote: string;
  /** False when the scaled parameter (e.g. docs) was given explicitly, so --scale changed nothing. */
  scaleApplied: boolean;
}

/** The registered experiment of a definition (files and presets are checked against the registry when read). */
export function experimentOf(definition: MatrixDefinition): Experiment {
  const experiment = findExperiment(definition.experiment);
  if (!experiment)
    throw new UsageError(`${definition.source}: unknown experiment "${definition.experiment}"`);
  return experiment;
}

/** "--dataset-ratio" applies to experiments that size their data by the server's RAM. */
export function ratioRefusal(experiment: string): string {
  const sizers = allExperiments()
    .filter((e) => 'datasetRatio' in e.parameters.shape)
    .map((e) => e.name);
  return `option --dataset-ratio: only the ${sizers.join(', ')} experiment sizes data by RAM (this matrix runs ${experiment})`;
}

/** The seed's parameters scaled: the scaled parameter is multiplied and rounded, at least 1. */
export function scaledDefaults(experiment: Experiment, scale: number): Record<string, unknown> {
  const { full, scaled } = experiment.sizing;
  return { ...full, [scaled]: Math.max(1, Math.round((full[scaled] as number) * scale)) };
}

/** Folder-safe slug of a label: "SAFE (w:1), capped" -> "safe-w-1-capped". */
export function slug(label: string): string {
  return (
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'config'
  );
}

function validate(
  experiment: Experiment,
  raw: Record<string, unknown>,
  where: string,
): Record<string, unknown> {
  const result = experiment.parameters.safeParse(raw);
  if (result.success) return result.data as Record<string, unknown>;
  throw new UsageError(
    result.error.issues
      .map((i) => `${where}${i.path.length ? `.${i.path.join('.')}` : ''}: ${i.message}`)
      .join('\n'),
  );
}

/** --dataset-ratio: each configuration once per ratio. */
function expandRatios(
  configs: MatrixConfiguration[],
  ratios: number[] | undefined,
): MatrixConfiguration[] {
  if (!ratios || ratios.length === 0) return configs;
  return configs.flatMap((c) =>
    ratios.map((ratio) => ({
      ...c,
      label: configs.length === 1 ? `data = ${ratio} x RAM` : `${c.label}, data = ${ratio} x RAM`,
      parameters: { ...c.parameters, datasetRatio: ratio },
      group: `${ratio} x RAM`,
      series: c.series ?? c.label,
    })),
  );
}

export function planMatrix(options: MatrixRunOptions): MatrixPlan {
  const { definition } = options;
  if (!(options.scale > 0) || !Number.isFinite(options.scale))
    throw new UsageError(`option --scale: must be a number > 0, got ${options.scale}`);
  const experiment = experimentOf(definition);
  if (options.datasetRatios && !('datasetRatio' in experiment.parameters.shape))
    throw new UsageError(ratioRefusal(definition.experiment));
  const parameters = validate(
    experiment,
    {
      ...scaledDefaults(experiment, options.scale),
      ...definition.parameters,
      ...options.overrides,
    },
    `${definition.source}: parameters`,
  );
  const planContext = { uri: options.uri, db: options.db, allowSetup: options.allowSetup === true };
  experiment.checkParameters?.(parameters, planContext);
  const configs = expandRatios(definition.configurations, options.datasetRatios);
  const width = String(configs.length).length;
  const configurations = configs.map((config, i) => {
    const where = `${definition.source}: configurations[${i}].parameters`;
    const own = validate(experiment, { ...parameters, ...config.parameters }, where);
    experiment.checkConfiguration?.(own, config, where, planContext);
    return {
      config,
      parameters: own,
      dir: `${String(i + 1).padStart(Math.max(2, width), '0')}-${slug(config.label)}`,
      settings: experiment.describeSettings
        ? experiment.describeSettings(own, config)
        : describeSettings(config),
      group: config.group ?? config.label,
      series: config.series ?? (config.group ? config.label : definition.name),
    };
  });
  const { scaled, scaleNote } = experiment.sizing;
  const overridden =
    scaled in definition.parameters ||
    scaled in options.overrides ||
    (options.datasetRatios?.length ?? 0) > 0 ||
    definition.configurations.some((c) => c.parameters !== undefined && scaled in c.parameters);
  return {
    parameters,
    configurations,
    scaleNote: overridden ? `${scaleNote}; not applied here: ${scaled} was given` : scaleNote,
    scaleApplied: !overridden,
  };
}
