/**
 * A step in which most ops failed measured the failures, not the server: it is a failed step (exit 1),
 * however long it ran. The line is --max-error-rate (default 50%); the `errors` warning starts at 1%.
 */
import type { StepResult } from '../result';

/** Why the step failed by its share of failed ops, or undefined when the share is within `maxErrorRate` (0..1). */
export function errorRateFailure(
  step: Pick<StepResult, 'ops' | 'errorSamples'>,
  maxErrorRate: number,
): string | undefined {
  const attempts = step.ops.reads + step.ops.writes + step.ops.errors;
  if (attempts === 0 || step.ops.errors / attempts <= maxErrorRate) return undefined;
  const share = Math.round((step.ops.errors / attempts) * 1000) / 10;
  const first = step.errorSamples?.[0];
  const limit = Math.round(maxErrorRate * 1000) / 10;
  return (
    `${step.ops.errors.toLocaleString('en-US')} of ${attempts.toLocaleString('en-US')} ops failed (${share}%, more than --max-error-rate ${limit}%)` +
    (first ? `; first error: ${first.error}: ${first.example}` : '')
  );
}
