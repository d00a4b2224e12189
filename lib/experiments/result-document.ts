/**
 * A configuration's measurement as a normal one-step result document (mongo-bench/result@1), so
 * `mongo-bench report` can render or compare it.
 */
import { StepMeasurement } from '../metrics/measurement';
import { RESULT_SCHEMA, ResultDocument } from '../result';
import { toolInfo } from '../common/version';
import { MatrixConfiguration } from './experiment';

export interface ResultContext {
  config: MatrixConfiguration;
  target: ResultDocument['target'];
  ns: string;
  startedAt: Date;
  finishedAt: Date;
  matrix: string;
}

export function errorTallies(
  count: number,
  example: string | undefined,
): StepMeasurement['errorTallies'] {
  return count > 0 ? [{ error: 'write failed', count, example: example ?? '' }] : [];
}

export function resultBase(
  ctx: ResultContext,
  workload: ResultDocument['workload'],
  config: Record<string, unknown>,
  interrupted: boolean,
): Omit<ResultDocument, 'steps'> {
  const doc: Omit<ResultDocument, 'steps'> = {
    schema: RESULT_SCHEMA,
    tool: toolInfo(),
    label: ctx.config.label,
    complete: !interrupted,
    startedAt: ctx.startedAt.toISOString(),
    finishedAt: ctx.finishedAt.toISOString(),
    target: ctx.target,
    workload,
    config: {
      matrix: ctx.matrix,
      writeConcern: ctx.config.writeConcern ?? null,
      capped: ctx.config.capped ?? false,
      readPreference: ctx.config.readPreference ?? 'primary',
      ns: ctx.ns,
      ...config,
    },
  };
  if (interrupted) doc.incompleteReason = 'interrupted';
  return doc;
}
