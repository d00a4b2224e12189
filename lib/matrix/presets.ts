/**
 * Presets: each registered experiment's own list of configurations (the seed's table). The old driver
 * options map to today's write concerns: NORMAL = w:0, SAFE = w:1, FSYNC_SAFE / --journal = j:true
 * (WiredTiger always journals), REPLICA_SAFE(n) = w:n, slaveOk = readPreference "secondary".
 */
import { UsageError } from '../config/errors';
import { closest } from '../config/validate';
import { allExperiments, experimentNames, findExperiment } from '../experiments/registry';
import { MatrixDefinition } from './types';

/** The presets when this module loaded; experimentNames() also has any registered later. */
export const MATRIX_PRESET_NAMES: readonly string[] = experimentNames();
export const MATRIX_PRESET_DESCRIPTIONS: Readonly<Record<string, string>> = Object.fromEntries(
  allExperiments().map((e) => [e.name, e.description]),
);
export type MatrixPresetName = string;

export function isMatrixPreset(name: string): boolean {
  return findExperiment(name) !== undefined;
}

/** The preset's definition; an unknown name is a UsageError suggesting the closest one. */
export function matrixPreset(name: string): MatrixDefinition {
  const experiment = findExperiment(name);
  if (!experiment) {
    const names = experimentNames();
    const suggestion = closest(name, names);
    throw new UsageError(
      `option --preset: unknown preset "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; presets: ${names.join(', ')}`,
    );
  }
  return {
    name,
    experiment: name,
    parameters: {},
    configurations: experiment.preset,
    source: `preset ${name}`,
  };
}
