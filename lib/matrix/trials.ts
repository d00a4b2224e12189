/**
 * `matrix --trials N`: every configuration runs N times, in rounds, and the order turns each round (round
 * r starts at configuration r: A B C, B C A, C A B, ...), so a drift of the machine or the server over the
 * matrix (a cache warming, a neighbour's load) falls on every configuration alike instead of on the last
 * ones. A row's figures are the medians of its trials.
 */
import { median } from '../metrics/trial-stats';
import { MatrixRow, MatrixTrial } from './types';

/** The configurations' indices in the order each round runs them. */
export function interleavedRounds(configurations: number, trials: number): number[][] {
  return Array.from({ length: trials }, (_, round) =>
    Array.from({ length: configurations }, (_, k) => (round + k) % Math.max(1, configurations)),
  );
}

export function interleavingNote(trials: number): string {
  return (
    `Each configuration ran ${trials} times, in interleaved rounds (round r starts at configuration r and goes round the list), ` +
    "so a drift over the run falls on every configuration alike. Each figure is the median of its trials; each trial's " +
    "figures and start time are in matrix.json (rows[].trials), its files in the configuration's trial-<n>/ folder. " +
    "Charts that draw configurations together use each one's first trial."
  );
}

/** A row's status, figures and time from its trials: medians of the trials that finished ok. */
export function summariseTrials(
  trials: readonly MatrixTrial[],
): Pick<MatrixRow, 'status' | 'reason' | 'measures' | 'seconds' | 'resultFile'> {
  const ok = trials.filter((t) => t.status === 'ok');
  const keys = [...new Set(trials.flatMap((t) => Object.keys(t.measures)))];
  const measures: Record<string, number | null> = {};
  for (const key of keys) {
    const values = ok
      .map((t) => t.measures[key])
      .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    measures[key] = values.length > 0 ? median(values) : null;
  }
  // A failed or interrupted trial marks the row, naming the trial; a remark of an ok trial is kept the same way.
  const marked =
    trials.find((t) => t.status === 'failed') ??
    trials.find((t) => t.status === 'interrupted') ??
    trials.find((t) => t.reason);
  const seconds = Math.round(trials.reduce((sum, t) => sum + t.seconds, 0) * 100) / 100;
  const summary: Pick<MatrixRow, 'status' | 'reason' | 'measures' | 'seconds' | 'resultFile'> = {
    status: marked && marked.status !== 'ok' ? marked.status : 'ok',
    measures,
    seconds,
  };
  if (marked?.reason) summary.reason = `trial ${marked.trial}: ${marked.reason}`;
  const withFile = ok.find((t) => t.resultFile) ?? trials.find((t) => t.resultFile);
  if (withFile?.resultFile) summary.resultFile = withFile.resultFile;
  return summary;
}

/** How one trial reads in a progress line: its own status, figures and time. */
export function trialView(
  trial: MatrixTrial,
): Pick<MatrixRow, 'status' | 'reason' | 'measures' | 'seconds'> {
  return {
    status: trial.status,
    reason: trial.reason,
    measures: trial.measures,
    seconds: trial.seconds,
  };
}
