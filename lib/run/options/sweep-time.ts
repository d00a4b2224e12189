/**
 * How long a sweep takes, as the options describe it: the estimate the dry run prints and the progress
 * bar counts down from, and the way both write a duration.
 */

export interface SweepShape {
  clients: number[];
  trials: number;
  seconds: number;
  warmupSeconds: number;
  /** --warmup auto: the cap (--warmup-max). Each warm-up lasts until steady, up to this: the estimates count the cap. */
  warmupMax?: number;
}

/** The warm-up seconds a step may take: the fixed warm-up, or with --warmup auto its cap. */
export function warmupUpTo(s: Pick<SweepShape, 'warmupSeconds' | 'warmupMax'>): number {
  return s.warmupMax ?? s.warmupSeconds;
}

/** "2 s warm-up", or with --warmup auto "up to 60 s warm-up" (a warm-up until steady, at most its cap). */
export function describeWarmup(s: Pick<SweepShape, 'warmupSeconds' | 'warmupMax'>): string {
  return s.warmupMax !== undefined
    ? `up to ${s.warmupMax} s warm-up`
    : `${s.warmupSeconds} s warm-up`;
}

/**
 * Seconds of sweep: every trial of every client count, warm-up included (connection set-up and loading are
 * extra). With --warmup auto, an upper bound: every warm-up counted at its cap.
 */
export function sweepSeconds(s: SweepShape): number {
  return s.clients.length * s.trials * (s.seconds + warmupUpTo(s));
}

/** 75 -> "1m15s", 3700 -> "1h01m" */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
