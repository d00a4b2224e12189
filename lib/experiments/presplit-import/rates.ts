/**
 * From counter readings to rates: pure functions over the sampler's timestamped readings.
 *
 * A rate is the counter's delta divided by the time between the two readings it comes from, so a
 * missed or late sample widens one interval instead of doubling a rate. A reading that failed (the
 * shard did not answer) is a gap: a null point, and the next good reading's rate covers the whole
 * span since the last good one. A counter that goes down (the process restarted) is a gap too.
 */
import { round3 } from '../../server-stats/sampler';

export interface CounterReading {
  /** Seconds since the sampler started, when the counter was read (midpoint of request and reply). */
  t: number;
  /** opcounters.insert, or null when the read failed. */
  value: number | null;
  error?: string;
}

export interface RatePoint {
  /** Seconds since the sampler started: the end of the interval the rate covers. */
  t: number;
  /** Inserts per second over the interval; null marks a gap. */
  perSec: number | null;
  /** Length of the interval in seconds, when the rate is not a gap. */
  seconds?: number;
}

export function ratesFromReadings(readings: readonly CounterReading[]): RatePoint[] {
  const points: RatePoint[] = [];
  let lastGood: CounterReading | undefined;
  for (const reading of readings) {
    if (reading.value === null) {
      points.push({ t: round3(reading.t), perSec: null });
      continue;
    }
    if (lastGood !== undefined) {
      const seconds = reading.t - lastGood.t;
      const delta = reading.value - lastGood.value!;
      if (delta < 0 || !(seconds > 0)) {
        points.push({ t: round3(reading.t), perSec: null });
      } else {
        points.push({
          t: round3(reading.t),
          perSec: round3(delta / seconds),
          seconds: round3(seconds),
        });
      }
    }
    lastGood = reading;
  }
  return points;
}

export interface CounterTotal {
  /** Sum of the non-negative deltas between good readings: what the counter grew by while sampled. */
  total: number;
  /** Readings that failed. */
  gaps: number;
  /** Seconds between the first and the last good reading (0 with fewer than two). */
  coveredSeconds: number;
}

export function counterTotal(readings: readonly CounterReading[]): CounterTotal {
  let total = 0;
  let gaps = 0;
  let first: CounterReading | undefined;
  let lastGood: CounterReading | undefined;
  for (const reading of readings) {
    if (reading.value === null) {
      gaps++;
      continue;
    }
    first ??= reading;
    if (lastGood !== undefined && reading.value >= lastGood.value!)
      total += reading.value - lastGood.value!;
    lastGood = reading;
  }
  return { total, gaps, coveredSeconds: first && lastGood ? round3(lastGood.t - first.t) : 0 };
}

/**
 * The client's own count, on the sampler's clock: acknowledged documents per interval of
 * `intervalSec`, the last interval ending at `endSec` (the end of the import).
 */
export function clientRates(
  acks: ReadonlyArray<{ t: number; docs: number }>,
  intervalSec: number,
  endSec: number,
): RatePoint[] {
  const buckets = Math.max(1, Math.ceil(endSec / intervalSec - 1e-9));
  const counts = new Array<number>(buckets).fill(0);
  for (const ack of acks)
    counts[Math.min(buckets - 1, Math.max(0, Math.floor(ack.t / intervalSec)))] += ack.docs;
  return counts.map((docs, i) => {
    const start = i * intervalSec;
    const end = i === buckets - 1 ? Math.max(endSec, start + 1e-3) : (i + 1) * intervalSec;
    return { t: round3(end), perSec: round3(docs / (end - start)), seconds: round3(end - start) };
  });
}

/**
 * How unevenly the inserts were spread over the shards, from each shard's total during the import.
 * `cv` (the coefficient of variation: population standard deviation / mean) is the headline: 0 is
 * perfectly even, sqrt(K - 1) is everything on one of K shards, and it is defined when a shard got
 * nothing. `ratio` is busiest / idlest, null when the idlest shard got no insert at all.
 */
export interface Spread {
  busiest: { shard: string; inserts: number };
  idlest: { shard: string; inserts: number };
  ratio: number | null;
  cv: number;
  /** The cv of everything on one shard, sqrt(K - 1): the scale's other end. */
  cvAllOnOne: number;
  /** The busiest shard's share of all inserts (1/K when even). */
  busiestShare: number;
}

export function spreadOf(perShard: Record<string, number>): Spread | null {
  const entries = Object.entries(perShard);
  if (entries.length === 0) return null;
  const sum = entries.reduce((s, [, v]) => s + v, 0);
  const mean = sum / entries.length;
  const variance = entries.reduce((s, [, v]) => s + (v - mean) ** 2, 0) / entries.length;
  let busiest = entries[0];
  let idlest = entries[0];
  for (const entry of entries) {
    if (entry[1] > busiest[1]) busiest = entry;
    if (entry[1] < idlest[1]) idlest = entry;
  }
  return {
    busiest: { shard: busiest[0], inserts: busiest[1] },
    idlest: { shard: idlest[0], inserts: idlest[1] },
    ratio: idlest[1] > 0 ? round3(busiest[1] / idlest[1]) : null,
    cv: mean > 0 ? round3(Math.sqrt(variance) / mean) : 0,
    cvAllOnOne: round3(Math.sqrt(entries.length - 1)),
    busiestShare: sum > 0 ? round3(busiest[1] / sum) : 0,
  };
}

/** The highest rate of a series (0 when it has none). */
export function peakRate(points: readonly RatePoint[]): number {
  return points.reduce((max, p) => (p.perSec !== null && p.perSec > max ? p.perSec : max), 0);
}

export { round3 };
