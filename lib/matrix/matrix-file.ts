/**
 * `--matrix FILE`: a custom list of configurations of one registered experiment (JSON or YAML; the
 * format is in docs/matrix.md). Every error names the file and the path inside it, e.g.
 * `matrix file m.yaml: configurations[2].writeConcern.w: ...`.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  MAX_YAML_ALIASES,
  tooDeep,
  tooDeepText,
  withoutBom,
  yamlAliasProblem,
} from '../config/input-limits';
import { z } from 'zod';
import { UsageError } from '../config/errors';
import { closest } from '../config/validate';
import { Experiment } from '../experiments/experiment';
import { experimentNames, findExperiment } from '../experiments/registry';
import { MatrixDefinition } from './types';
import { messageOf } from '../common/values';

const READ_PREFERENCES = [
  'primary',
  'primaryPreferred',
  'secondary',
  'secondaryPreferred',
  'nearest',
] as const;

const W_EXPECTED = 'expected a number of members (0, 1, 2, ...), "majority" or a tag-set name';

const writeConcernSchema = z
  .object({
    w: z.union([z.number().int(W_EXPECTED).min(0, W_EXPECTED), z.string().min(1, W_EXPECTED)], {
      error: W_EXPECTED,
    }),
    j: z.boolean({ error: 'expected true or false' }),
    wtimeoutMS: z
      .number({ error: 'expected milliseconds' })
      .int('expected whole milliseconds')
      .min(0, 'must be >= 0'),
  })
  .partial()
  .strict();

function configurationSchema(experiment: Experiment) {
  return z
    .object({
      label: z
        .string({ error: 'required: a name for this configuration' })
        .min(1, 'must not be empty'),
      description: z.string().optional(),
      writeConcern: writeConcernSchema.optional(),
      capped: z.boolean({ error: 'expected true or false' }).optional(),
      readPreference: z
        .enum(READ_PREFERENCES, { error: `expected one of ${READ_PREFERENCES.join(', ')}` })
        .optional(),
      parameters: experiment.parameters.partial().optional(),
      group: z.string().min(1).optional(),
      series: z.string().min(1).optional(),
    })
    .strict();
}

function fileSchema(experiment: Experiment) {
  return z
    .object({
      schema: z
        .literal('mongo-bench/matrix-file@1', {
          error: 'expected "mongo-bench/matrix-file@1" (or leave it out)',
        })
        .optional(),
      name: z.string().min(1, 'must not be empty').optional(),
      experiment: z.string(),
      parameters: experiment.parameters.partial().optional(),
      configurations: z
        .array(configurationSchema(experiment), { error: 'required: a list of configurations' })
        .min(1, 'expected at least one configuration'),
    })
    .strict()
    .superRefine((doc, ctx) => {
      const seen = new Map<string, number>();
      doc.configurations.forEach((c, i) => {
        const first = seen.get(c.label);
        if (first !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['configurations', i, 'label'],
            message: `duplicate label "${c.label}" (also configurations[${first}])`,
          });
        else seen.set(c.label, i);
      });
    });
}

/** "configurations[2].writeConcern.w" */
function pathText(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path)
    out += typeof part === 'number' ? `[${part}]` : out ? `.${String(part)}` : String(part);
  return out;
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const where = pathText(issue.path);
    return issue.keys.map((key) => `${where ? `${where}.` : ''}${key}: unknown key`).join('; ');
  }
  return `${pathText(issue.path) || '(top level)'}: ${issue.message}`;
}

/** Validates a parsed matrix document; `where` prefixes every message (the file's name). */
export function parseMatrixDocument(raw: unknown, where: string): MatrixDefinition {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new UsageError(`${where}: expected an object with "experiment" and "configurations"`);
  const experiment = (raw as Record<string, unknown>).experiment;
  const chosen = typeof experiment === 'string' ? findExperiment(experiment) : undefined;
  if (!chosen) {
    const names = experimentNames();
    const suggestion = typeof experiment === 'string' ? closest(experiment, names) : undefined;
    const got = experiment === undefined ? 'missing' : `got ${JSON.stringify(experiment)}`;
    throw new UsageError(
      `${where}: experiment: expected one of ${names.join(', ')} (${got})${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
    );
  }
  const result = fileSchema(chosen).safeParse(raw);
  if (!result.success)
    throw new UsageError(
      result.error.issues.map((issue) => `${where}: ${issueText(issue)}`).join('\n'),
    );
  const doc = result.data;
  return {
    name: doc.name ?? chosen.name,
    experiment: chosen.name,
    parameters: doc.parameters ?? {},
    configurations: doc.configurations,
    source: `matrix file ${where.replace(/^matrix file /, '')}`,
  };
}

export function readMatrixFile(path: string): MatrixDefinition {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(
      `option --matrix: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? messageOf(err)}`,
    );
  }
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(path)
      ? parseYaml(text, { maxAliasCount: MAX_YAML_ALIASES })
      : JSON.parse(withoutBom(text));
  } catch (err) {
    throw new UsageError(
      `matrix file ${path}: ${yamlAliasProblem(err) ?? `not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${messageOf(err)}`}`,
    );
  }
  const deep = tooDeep(raw);
  if (deep !== undefined) throw new UsageError(`matrix file ${path}: ${tooDeepText(deep)}`);
  const definition = parseMatrixDocument(raw, `matrix file ${path}`);
  return {
    ...definition,
    name:
      definition.name === definition.experiment && !(raw as { name?: string }).name
        ? basename(path).replace(/\.[^.]+$/, '')
        : definition.name,
  };
}
