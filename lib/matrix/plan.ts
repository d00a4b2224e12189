/**
 * From a matrix definition and the command line to the list of configurations to run, each with its
 * validated parameters (seed size x scale, then the definition's, the command line's and the
 * configuration's own overrides). Everything here happens before connecting, so bad input fails fast.
 */
import { UsageError } from '../config/errors';
import { TargetPlan } from '../run/run-plan';
import { PARAMETER_SCHEMAS, scaledDefaults, SIZING } from './parameters';
import { checkPresplitConfiguration, describeWay, setupRefusal } from './presplit-import';
import { describeSettings, slug } from './settings';
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
  /** Database the experiments write to (dropped collections only: most, insertTest, softlayer). */
  db: string;
  scale: number;
  /** Parameter overrides from the command line (win over the definition's). */
  overrides: Record<string, unknown>;
  /** softlayer: one configuration per ratio of the server's RAM. */
  datasetRatios?: number[];
  outDir: string;
  serverSelectionTimeoutMS: number;
  testDouble?: boolean;
  /** The user allowed changes to the target's setup (--setup): presplit-import shards, splits and moves chunks. */
  allowSetup?: boolean;
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

function validate(experiment: MatrixDefinition['experiment'], raw: Record<string, unknown>, where: string): Record<string, unknown> {
  const result = PARAMETER_SCHEMAS[experiment].safeParse(raw);
  if (result.success) return result.data as Record<string, unknown>;
  throw new UsageError(result.error.issues.map((i) => `${where}${i.path.length ? `.${i.path.join('.')}` : ''}: ${i.message}`).join('\n'));
}

/** softlayer with --dataset-ratio: each configuration once per ratio. */
function expandRatios(configs: MatrixConfiguration[], ratios: number[] | undefined): MatrixConfiguration[] {
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
  if (!(options.scale > 0) || !Number.isFinite(options.scale)) throw new UsageError(`option --scale: must be a number > 0, got ${options.scale}`);
  if (options.datasetRatios && definition.experiment !== 'softlayer') throw new UsageError(`option --dataset-ratio: only the softlayer experiment sizes data by RAM (this matrix runs ${definition.experiment})`);
  const experiment = definition.experiment;
  const parameters = validate(experiment, { ...scaledDefaults(experiment, options.scale), ...definition.parameters, ...options.overrides }, `${definition.source}: parameters`);
  // Checked before anything connects: the experiment would change an existing cluster's distribution.
  if (experiment === 'presplit-import' && !options.allowSetup) throw new UsageError(setupRefusal(options.uri, options.db, parameters));
  const configs = expandRatios(definition.configurations, options.datasetRatios);
  const width = String(configs.length).length;
  const configurations = configs.map((config, i) => {
    const where = `${definition.source}: configurations[${i}].parameters`;
    const own = validate(experiment, { ...parameters, ...config.parameters }, where);
    if (experiment === 'presplit-import') checkPresplitConfiguration(options.uri, options.db, own, config, where);
    return {
      config,
      parameters: own,
      dir: `${String(i + 1).padStart(Math.max(2, width), '0')}-${slug(config.label)}`,
      settings: experiment === 'presplit-import' ? describeWay(own, config) : describeSettings(config),
      group: config.group ?? config.label,
      series: config.series ?? (config.group ? config.label : definition.name),
    };
  });
  const scaled = SIZING[experiment].scaled;
  const overridden =
    scaled in definition.parameters ||
    scaled in options.overrides ||
    (options.datasetRatios?.length ?? 0) > 0 ||
    definition.configurations.some((c) => c.parameters !== undefined && scaled in c.parameters);
  const scaleNote = overridden ? `${SIZING[experiment].scaleNote}; not applied here: ${scaled} was given` : SIZING[experiment].scaleNote;
  return { parameters, configurations, scaleNote, scaleApplied: !overridden };
}
