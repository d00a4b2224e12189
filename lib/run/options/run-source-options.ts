/**
 * Where run's options come from besides the flags, one row each: a config file (--config), a preset
 * (--preset), and --dry-run, which plans and starts nothing. Only the preset may sit in a config
 * file (run-plan.ts resolves all three: preset < config file < flags).
 */
import { z } from 'zod';
import { option, TableValues } from '../../config/option-table';
import { RUN_PRESET_NAMES } from './presets';

export const RUN_SOURCE_OPTIONS = {
  config: option({
    flag: '--config <file>',
    help: 'options from a JSON or YAML file (keys as the flags: maxClients or max-clients); flags override it',
    schema: z.string(),
  }),
  preset: option({
    flag: '--preset <name>',
    help: `a named set of options: ${RUN_PRESET_NAMES.join(', ')}`,
    schema: z.string(),
  }),
  dryRun: option({
    flag: '--dry-run',
    help: 'print the plan, the processes, the sweep and the expected duration; start and connect nothing',
    schema: z.boolean(),
  }),
};

export type RunSourceFlags = TableValues<typeof RUN_SOURCE_OPTIONS>;
