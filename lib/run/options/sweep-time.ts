/**
 * How long a sweep takes, as the options describe it: the estimate the dry run prints and the progress
 * bar counts down from, and the way both write a duration.
 */

export interface SweepShape {
  clients: number[];
  trials: number;
  seconds: number;
  warmupSeconds: number;
}

/** Seconds of sweep: every trial of every client count, warm-up included (connection set-up and loading are extra). */
export function sweepSeconds(s: SweepShape): number {
  return s.clients.length * s.trials * (s.seconds + s.warmupSeconds);
}

/** 75 -> "1m15s", 3700 -> "1h01m" */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
