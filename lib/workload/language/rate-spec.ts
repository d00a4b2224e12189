/**
 * An arrival rate for the open model: ops are scheduled to start at set times whether or not the server
 * keeps up, so a slow server shows as latency (measured from each op's intended start) and as ops that
 * could not start in time, never as a quietly lower load.
 *
 * Forms, the same on the command line, in a config file and through the API:
 * - `500` or `"500"`: a constant 500 ops/s;
 * - `"80%"`: a share of the maximum measured first by a short closed sweep (genny's `GlobalRate: 80%`,
 *   mongodb/genny src/gennylib/include/gennylib/v1/RateLimiter.hpp / docs);
 * - stages `[{ rate: 100, for: '30s' }, { rate: 2000, for: '2m' }]`: each stage ends at its `rate`, ramping
 *   linearly from the rate the previous stage ended at (k6's ramping-arrival-rate executor,
 *   grafana/k6 lib/executor/ramping_arrival_rate.go); the first stage starts at `startRate`, by default its
 *   own rate, so the example holds 100 ops/s for 30 s, then ramps to 2000 ops/s over 2 minutes. A stage
 *   `for: '0s'` jumps.
 */
import { z } from 'zod';
import { UsageError } from '../../config/errors';

export interface RateStage {
  /** ops/s reached at the end of the stage */
  rate: number;
  seconds: number;
}

export type RateSpec =
  | { kind: 'constant'; opsPerSecond: number }
  | { kind: 'shareOfMax'; share: number }
  | { kind: 'stages'; startRate: number; stages: RateStage[] };

/** A rate that can be scheduled: a share of the maximum is resolved first (resolveShareOfMax). */
export type ScheduledRate = Exclude<RateSpec, { kind: 'shareOfMax' }>;

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/** "1500ms", "30s", "2m", "1h", or a number of seconds. */
export function parseDurationSeconds(value: unknown, where: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string') {
    const m = DURATION.exec(value.trim());
    if (m) return Number(m[1]) * UNIT_SECONDS[m[2]];
  }
  throw new UsageError(
    `${where}: expected a duration such as 30s, 2m or 1500ms, got ${JSON.stringify(value)}`,
  );
}

const stageInput = z
  .object({ rate: z.union([z.number(), z.string()]), for: z.union([z.number(), z.string()]) })
  .strict();
const stagesInput = z
  .object({
    startRate: z.union([z.number(), z.string()]).optional(),
    stages: z.array(stageInput).min(1),
  })
  .strict();

function positiveRate(value: unknown, where: string, allowZero: boolean): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || (!allowZero && n === 0)) {
    throw new UsageError(
      `${where}: expected a rate in ops/s ${allowZero ? '>= 0' : '> 0'}, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/**
 * Reads a rate in any of its forms; `where` names the option or config path in errors
 * (e.g. "option --rate", "scenarios[1].rate").
 */
export function parseRateSpec(value: unknown, where: string): RateSpec {
  if (typeof value === 'string' && value.trim().endsWith('%')) {
    const share = Number(value.trim().slice(0, -1)) / 100;
    if (!Number.isFinite(share) || share <= 0 || share > 1) {
      throw new UsageError(
        `${where}: a share of the measured maximum must lie in (0%, 100%], got "${value}"`,
      );
    }
    return { kind: 'shareOfMax', share };
  }
  if (typeof value === 'number' || typeof value === 'string') {
    return { kind: 'constant', opsPerSecond: positiveRate(value, where, false) };
  }
  const stagesValue = Array.isArray(value) ? { stages: value } : value;
  const parsed = stagesInput.safeParse(stagesValue);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue.path.length ? `.${issue.path.join('.')}` : '';
    throw new UsageError(
      `${where}${path}: ${issue.message}; a rate is a number of ops/s, a share such as "80%", or stages [{ rate: 100, for: '30s' }, ...]`,
    );
  }
  const stages = parsed.data.stages.map((s, i) => ({
    rate: positiveRate(s.rate, `${where}[${i}].rate`, true),
    seconds: parseDurationSeconds(s.for, `${where}[${i}].for`),
  }));
  if (stages.reduce((sum, s) => sum + s.seconds, 0) <= 0)
    throw new UsageError(`${where}: the stages last 0 s in all`);
  const startRate =
    parsed.data.startRate === undefined
      ? stages[0].rate
      : positiveRate(parsed.data.startRate, `${where}.startRate`, true);
  return { kind: 'stages', startRate, stages };
}

/** "80%" of a measured maximum becomes a constant rate. */
export function resolveShareOfMax(spec: RateSpec, maxOpsPerSecond: number): ScheduledRate {
  if (spec.kind !== 'shareOfMax') return spec;
  if (!(maxOpsPerSecond > 0))
    throw new RangeError(`the measured maximum must be > 0 ops/s, got ${maxOpsPerSecond}`);
  return { kind: 'constant', opsPerSecond: spec.share * maxOpsPerSecond };
}

/** How long the stages last, in seconds; undefined for a constant rate (it lasts as long as it is run). */
export function rateDurationSeconds(spec: ScheduledRate): number | undefined {
  return spec.kind === 'stages' ? spec.stages.reduce((sum, s) => sum + s.seconds, 0) : undefined;
}

/** The rate in ops/s at `t` seconds after the start; after the last stage, its end rate. */
export function rateAt(spec: ScheduledRate, t: number): number {
  if (spec.kind === 'constant') return spec.opsPerSecond;
  let from = spec.startRate;
  let begin = 0;
  for (const stage of spec.stages) {
    if (t < begin + stage.seconds)
      return from + ((stage.rate - from) * (t - begin)) / stage.seconds;
    from = stage.rate;
    begin += stage.seconds;
  }
  return from;
}

/**
 * The arrival times (seconds after the start) of ops 0, 1, 2, ...: op k is due when the integral of the
 * rate reaches k, so the first is due at once. Exact for linear ramps (solves the quadratic), so a ramp's achieved per-second counts
 * follow its stages without drift. Ends after `untilSeconds`.
 */
export function* arrivalTimes(spec: ScheduledRate, untilSeconds: number): Generator<number> {
  if (spec.kind === 'constant') {
    for (let k = 0; k / spec.opsPerSecond < untilSeconds; k++) yield k / spec.opsPerSecond;
    return;
  }
  const segments = spec.stages.map((s, i) => ({
    from: i === 0 ? spec.startRate : spec.stages[i - 1].rate,
    to: s.rate,
    seconds: s.seconds,
  }));
  const last = spec.stages[spec.stages.length - 1].rate;
  segments.push({ from: last, to: last, seconds: Infinity });
  let begin = 0;
  let doneBefore = 0; // ops due before this segment began (a real number: the integral)
  let k = 0;
  for (const seg of segments) {
    if (begin >= untilSeconds) return;
    const slope =
      seg.seconds === Infinity || seg.seconds === 0 ? 0 : (seg.to - seg.from) / seg.seconds;
    const inSegment =
      seg.seconds === Infinity
        ? Infinity
        : seg.from * seg.seconds + (slope * seg.seconds * seg.seconds) / 2;
    while (k - doneBefore < inSegment) {
      const need = k - doneBefore;
      // from*x + slope/2*x^2 = need
      const x =
        slope === 0
          ? need / seg.from
          : (-seg.from + Math.sqrt(seg.from * seg.from + 2 * slope * need)) / slope;
      const at = begin + x;
      if (at >= untilSeconds || !Number.isFinite(at)) return;
      yield at;
      k++;
    }
    doneBefore += inSegment;
    begin += seg.seconds;
  }
}

/**
 * The command line's text forms: `500`, `80%`, or stages `RATE:DURATION,...` such as `100:30s,2000:2m`
 * (each stage ends at its rate, ramping from the previous one, as in a config file's
 * `[{ rate: 100, for: '30s' }, { rate: 2000, for: '2m' }]`). A number (a config file's) is a constant rate.
 */
export function parseRateText(value: unknown, where: string): RateSpec {
  if (typeof value !== 'string' || !value.includes(':')) return parseRateSpec(value, where);
  const stages = value.split(',').map((part, i) => {
    const m = /^\s*([^:\s]+)\s*:\s*(\S+)\s*$/.exec(part);
    if (!m)
      throw new UsageError(
        `${where}: stage ${i + 1} "${part}": expected RATE:DURATION such as 2000:2m (stages: 100:30s,2000:2m)`,
      );
    return { rate: m[1], for: m[2] };
  });
  return parseRateSpec(stages, where);
}
