/**
 * How a sweep that ran to its end (or was interrupted between trials) ends: the objectives scoped
 * @best judged once every step is in, then complete, interrupted, or failed (--on-error continue
 * with failed steps). ../run-lifecycle.ts's end does the rest.
 */
import { addBestVerdicts } from '../../slo/check';
import type { RunEnding } from '../run-lifecycle';
import type { SweepState } from './state';

export function endSweep(state: SweepState): RunEnding {
  const { options, failedSteps } = state;
  const { result, resultsPath } = state.run;
  const signal = state.hooks.signal;
  // Objectives scoped @best: judged on the sweep's best step, once every step is in.
  if (result.slo && options.slo) addBestVerdicts(result.slo, options.slo, result.steps);
  if (failedSteps.length > 0 && !signal?.aborted) {
    // --on-error continue: every step ran, but not every step measured what it should have.
    return {
      failed: `${failedSteps.length} step${failedSteps.length === 1 ? '' : 's'} failed (--on-error continue: the others ran): ${failedSteps.join('; ')}${resultsPath ? ` (results in ${resultsPath})` : ''}`,
    };
  }
  if (signal?.aborted) return { incomplete: `interrupted (${abortReason(signal)})` };
  return { complete: true };
}

/** The signal's reason as the result's incompleteReason says it. */
export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'aborted';
}
