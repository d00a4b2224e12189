/**
 * `run --replay-rate Nx` over a captured per-second curve: the rate the source served in each second of
 * its log (a workload file's `capture.perSecond`, written by `mongo-bench capture`) becomes a schedule of
 * rate stages, scaled by N. The curve is a step function (a second's ops spread evenly over that second),
 * so each change of rate is a stage of 0 s (a jump) followed by a stage that holds the new rate.
 *
 * A run rarely lasts exactly as long as the capture: the schedule covers `spanSeconds` (the run's
 * warm-up plus its measured seconds). A longer capture is cut: its first `spanSeconds` are replayed. A
 * shorter one is repeated from its start until the span is covered, so the replay's average stays the
 * capture's average.
 */
import type { RateStage, ScheduledRate } from './rate-spec';

export interface CapturedCurve {
  /** ops/s in each bucket of the source's time span, from its first logged op on */
  perSecond: number[];
  /** width of each bucket in seconds (1 unless the span was too long to keep second by second) */
  bucketSeconds?: number;
}

/** The stages that replay `curve` at `multiple` times its rate for `spanSeconds`. */
export function replayStages(
  curve: CapturedCurve,
  multiple: number,
  spanSeconds: number,
): Extract<ScheduledRate, { kind: 'stages' }> {
  const bucket = curve.bucketSeconds ?? 1;
  const n = curve.perSecond.length;
  if (n === 0) throw new RangeError('a captured curve needs at least one bucket');
  if (!(spanSeconds > 0))
    throw new RangeError(`the span to replay must be > 0 s, got ${spanSeconds}`);
  const stages: RateStage[] = [];
  let covered = 0;
  for (let i = 0; covered < spanSeconds; i++) {
    const rate = curve.perSecond[i % n] * multiple;
    const seconds = Math.min(bucket, spanSeconds - covered);
    covered += seconds;
    const last = stages[stages.length - 1];
    if (last && last.rate === rate) last.seconds += seconds;
    else {
      if (last) stages.push({ rate, seconds: 0 }); // the jump
      stages.push({ rate, seconds });
    }
  }
  return { kind: 'stages', startRate: stages[0].rate, stages };
}
