import { EXIT, worstExit } from '../config/errors';
import type { ResultDocument } from '../result';
import { describeVerdict } from './check';

/** k6's exit code when a threshold fails, so CI habits carry over. */
export const SLO_EXIT_CODE = EXIT.objectiveFailed;

/**
 * The exit code and message once the objectives are in: 99 when one failed and the run itself went
 * well (or --slo-abort stopped it); a run that failed otherwise (1, 130, 143, 2) keeps its own code.
 */
export function sloOutcome(
  result: ResultDocument | undefined,
  exitCode: number,
): { exitCode: number; message?: string } {
  const slo = result?.slo;
  if (!slo || slo.pass) return { exitCode };
  const failed = slo.verdicts.filter((v) => v.pass === false);
  const message = `objectives failed (exit ${SLO_EXIT_CODE}): ${failed.map(describeVerdict).join('; ')}${slo.aborted ? ' (--slo-abort: the sweep stopped at the first failure)' : ''}`;
  // --slo-abort ends the run early (marked incomplete): its code is the objective's. Otherwise the worse code wins (EXIT_PRECEDENCE).
  return {
    exitCode:
      exitCode === 0 || slo.aborted === true ? SLO_EXIT_CODE : worstExit(exitCode, SLO_EXIT_CODE),
    message,
  };
}
