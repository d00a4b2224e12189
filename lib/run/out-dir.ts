/**
 * The output folder must be creatable and writable before anything starts: a run that measures
 * for an hour and then cannot write its results has lost the hour. lib/common/dir-check does the
 * checking (bounded, leaving no trace, never hanging on /proc).
 */
import { UsageError } from '../config/errors';
import { dirProblem } from '../common/dir-check';

/** Throws a UsageError (exit 2) naming `option` and the place that refused when `dir` cannot be created or written to. */
export function assertWritableDir(dir: string, option: string): void {
  const problem = dirProblem(dir);
  if (problem) throw new UsageError(`${option}: cannot use ${dir}: ${problem}`);
}
