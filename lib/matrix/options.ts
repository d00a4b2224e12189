/**
 * Options of `mongo-bench matrix`: the flags commander hands over, validated (each error names its
 * option), resolved into MatrixRunOptions. Experiment flags (--writers, --inserts, --max-clients, ...)
 * apply only to the experiment that has the parameter; anything else is a usage error.
 */
import { z } from 'zod';
import { UsageError } from '../config/errors';
import { kebab, parseOptions } from '../config/validate';
import { parsePresplit } from '../topology/options';
import { readMatrixFile } from './matrix-file';
import { allExperiments, experimentNames } from '../experiments/registry';
import { experimentOf, MatrixRunOptions, ratioRefusal, slug } from './plan';
import { matrixPreset } from './presets';
import { resolveMatrixTarget } from './matrix-target';
import { pickTopologyFlags, TopologyFlags } from '../deployment/target-options';
import { TargetPlan } from '../deployment/plan';
import { fileTimestamp } from '../common/values';

import { MATRIX_DEFAULTS, matrixShape } from '../experiments/matrix-flags';

export { MATRIX_DEFAULTS, numberListArg } from '../experiments/matrix-flags';

const flagsSchema = z
  .object({
    ...matrixShape,
    // run's topology flags: checked by lib/run's resolveRunPlan, which names them.
    topology: z.string().optional(),
    replicas: z.number().optional(),
    shards: z.number().optional(),
    configServers: z.number().optional(),
    mongos: z.number().optional(),
    mongodBin: z.string().min(1, 'must not be empty').optional(),
    binDir: z.string().min(1, 'must not be empty').optional(),
    basePort: z.number().optional(),
    dataDir: z.string().min(1, 'must not be empty').optional(),
    keepData: z.boolean().optional(),
    readyTimeout: z.number().optional(),
    serverVersion: z.string().optional(),
  })
  .strict();

/** The flags commander hands over (its own; run's topology flags are typed by TopologyFlags). */
export type MatrixFlags = Omit<z.input<typeof flagsSchema>, keyof TopologyFlags>;
/** Everything `mongo-bench matrix` takes: its own flags and run's topology flags. */
export type MatrixCliFlags = MatrixFlags & TopologyFlags;

/** Command-line option (commander's key) -> the experiment parameter it sets (in --help's order). */
const PARAMETER_FLAGS: Record<string, string> = {
  ...same(
    'docs',
    'docSize',
    'batchSize',
    'writers',
    'readers',
    'readStart',
    'inserts',
    'rounds',
    'maxClients',
    'seconds',
    'warmup',
    'shardKey',
  ),
  presplit: 'range',
  ...same('chunkSize', 'hashedKey'),
  sampleInterval: 'sampleIntervalMs',
  maxSeconds: 'maxSecondsPerWay',
};

function same(...keys: string[]): Record<string, string> {
  return Object.fromEntries(keys.map((k) => [k, k]));
}

export interface ResolveMatrixContext {
  env?: Readonly<Record<string, string | undefined>>;
  commandLine?: string;
}

export function resolveMatrixOptions(
  raw: MatrixCliFlags,
  now: Date = new Date(),
  ctx: ResolveMatrixContext = {},
): MatrixRunOptions {
  const flags = parseOptions(
    flagsSchema,
    Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)),
  );
  if (flags.preset !== undefined && flags.matrix !== undefined)
    throw new UsageError(
      'options --preset and --matrix cannot be combined: choose a preset or a file',
    );
  if (flags.preset === undefined && flags.matrix === undefined)
    throw new UsageError(
      `option --preset or --matrix: required (presets: ${experimentNames().join(', ')})`,
    );
  const definition =
    flags.preset !== undefined
      ? matrixPreset(flags.preset)
      : readMatrixFile(flags.matrix as string);
  const experiment = definition.experiment;
  const chosen = experimentOf(definition);
  const known = chosen.parameters.shape as Record<string, unknown>;

  const overrides: Record<string, unknown> = {};
  const applicable = Object.entries(PARAMETER_FLAGS)
    .filter(([, parameter]) => parameter in known)
    .map(([key]) => `--${kebab(key)}`);
  for (const [key, parameter] of Object.entries(PARAMETER_FLAGS)) {
    const value = flags[key as keyof typeof flags];
    if (value === undefined) continue;
    const flag = `--${kebab(key)}`;
    if (!(parameter in known))
      throw new UsageError(
        `option ${flag}: does not apply to the ${experiment} experiment (its options: ${applicable.join(', ')})`,
      );
    overrides[parameter] = value;
  }
  // The range's own checks (numbers, MIN < MAX) name the flag here; the configurations would name the parameter.
  if (flags.presplit !== undefined && 'range' in known)
    parsePresplit(flags.presplit, 'option --presplit');
  if (flags.setup && !chosen.needs?.setup) {
    const changers = allExperiments()
      .filter((e) => e.needs?.setup)
      .map((e) => e.name);
    throw new UsageError(
      `option --setup: only ${changers.join(', ')} changes the target's setup (this matrix runs ${experiment})`,
    );
  }
  if (flags.seed !== undefined) {
    if (!('randomSeed' in known))
      throw new UsageError(`option --seed: does not apply to the ${experiment} experiment`);
    overrides.randomSeed = flags.seed;
  }
  if (flags.datasetRatio !== undefined) {
    if (!('datasetRatio' in known)) throw new UsageError(ratioRefusal(experiment));
    if (flags.docs !== undefined)
      throw new UsageError(
        "options --docs and --dataset-ratio cannot be combined: give a document count or a ratio of the server's RAM",
      );
  }
  const scale = flags.scale ?? chosen.sizing.defaultScale;
  const db = flags.db ?? MATRIX_DEFAULTS.db;
  const target = resolveMatrixTarget(flags.uri, pickTopologyFlags(flags), {
    db,
    experiment: chosen,
    env: ctx.env,
    now,
  });
  return {
    definition,
    uri: targetUri(target.plan),
    target: target.plan,
    targetWarnings: target.warnings,
    ...(ctx.commandLine ? { commandLine: ctx.commandLine } : {}),
    dryRun: flags.dryRun === true,
    db,
    scale,
    overrides,
    datasetRatios: flags.datasetRatio,
    outDir: flags.out ?? `reports/${fileTimestamp(now)}-matrix-${slug(definition.name)}`,
    force: flags.force === true,
    ...(flags.trials !== undefined && flags.trials > 1 ? { trials: flags.trials } : {}),
    serverSelectionTimeoutMS:
      flags.serverSelectionTimeout ?? MATRIX_DEFAULTS.serverSelectionTimeout,
    testDouble: flags.testDouble,
    // A server the matrix starts is its own to change: no --setup needed there.
    allowSetup: flags.setup === true || target.plan.kind !== 'uri',
    drop: flags.drop === true,
  };
}

/** The URI the plan knows before anything starts (the embedded server's comes when it has started). */
function targetUri(plan: TargetPlan): string {
  if (plan.kind === 'uri') return plan.uri;
  if (plan.kind === 'launched') return plan.plan.topology.uri;
  return EMBEDDED_URI_PLACEHOLDER;
}

export const EMBEDDED_URI_PLACEHOLDER = 'mongodb://127.0.0.1/';
