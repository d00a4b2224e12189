/**
 * Latency recording: an HdrHistogram of microseconds (fixed size, so memory stays flat however long
 * the run) plus an exact sum for the average.
 */
import * as hdr from 'hdr-histogram-js';
import { LatencySummary } from '../result';
import { round1 } from './client-load';

/** One hour in microseconds: slower operations are recorded as one hour. */
export const HIGHEST_TRACKABLE_MICROS = 3_600_000_000;

/** What LatencyRecorder.encode produces. */
export interface EncodedLatency {
  /** HdrHistogram's compressed V2 encoding, base64. */
  histogram: string;
  /** The exact sum of the recorded values, for the average. */
  sumMicros: number;
  /** The largest value as recorded: a decoded histogram knows only its bucket's upper edge. */
  maxMicros: number;
  /** The smallest value, exact (absent from recorders encoded before it was kept). */
  minMicros?: number;
}

export class LatencyRecorder {
  readonly histogram: hdr.Histogram;
  private sumMicros = 0;
  private maxMicros = 0;
  private minMicros = Infinity;

  constructor() {
    this.histogram = hdr.build({
      bitBucketSize: 32,
      autoResize: false,
      lowestDiscernibleValue: 1,
      highestTrackableValue: HIGHEST_TRACKABLE_MICROS,
      numberOfSignificantValueDigits: 3,
    });
  }

  /**
   * Records one latency in microseconds (fractions allowed; stored in the histogram rounded, at least 1;
   * the sum and the minimum keep the exact value). An op cannot end before it began or was due: a latency
   * that is not a positive number is a timing bug, thrown as a RangeError rather than clamped into the figures.
   */
  record(micros: number): void {
    if (!(micros > 0) || !Number.isFinite(micros))
      throw new RangeError(
        `a latency must be a positive number of microseconds, got ${micros}: the op was timed from after it ended`,
      );
    this.sumMicros += micros;
    if (micros < this.minMicros) this.minMicros = micros;
    const v =
      micros < 1
        ? 1
        : micros > HIGHEST_TRACKABLE_MICROS
          ? HIGHEST_TRACKABLE_MICROS
          : Math.round(micros);
    this.histogram.recordValue(v);
    if (v > this.maxMicros) this.maxMicros = v;
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  get sum(): number {
    return this.sumMicros;
  }

  /** The smallest value recorded, exact; undefined when none was (or a decoded recorder did not carry it). */
  get min(): number | undefined {
    return Number.isFinite(this.minMicros) ? this.minMicros : undefined;
  }

  /** The largest value recorded (as stored: rounded, within 1 µs .. one hour). */
  get max(): number {
    return this.maxMicros;
  }

  /**
   * The recorder as plain, structured-cloneable data (a worker thread sends this to the parent):
   * the histogram in HdrHistogram's compressed encoding, so the parent adds counts exactly.
   */
  encode(): EncodedLatency {
    const encoded: EncodedLatency = {
      histogram: hdr.encodeIntoCompressedBase64(this.histogram),
      sumMicros: this.sumMicros,
      maxMicros: this.maxMicros,
    };
    if (Number.isFinite(this.minMicros)) encoded.minMicros = this.minMicros;
    return encoded;
  }

  static decode(encoded: EncodedLatency): LatencyRecorder {
    const recorder = new LatencyRecorder();
    const decoded = hdr.decodeFromCompressedBase64(encoded.histogram, 32);
    recorder.histogram.add(decoded);
    decoded.destroy();
    recorder.sumMicros = encoded.sumMicros;
    recorder.maxMicros = encoded.maxMicros;
    if (encoded.minMicros !== undefined) recorder.minMicros = encoded.minMicros;
    return recorder;
  }

  /** Adds another recorder's values (e.g. merging trials). */
  add(other: LatencyRecorder): void {
    this.histogram.add(other.histogram);
    this.sumMicros += other.sumMicros;
    if (other.maxMicros > this.maxMicros) this.maxMicros = other.maxMicros;
    if (other.minMicros < this.minMicros) this.minMicros = other.minMicros;
  }

  summary(): LatencySummary {
    return summarize(this);
  }
}

export function summarize(recorder: LatencyRecorder): LatencySummary {
  const h = recorder.histogram;
  const count = h.totalCount;
  if (count === 0) return { avg: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, count: 0 };
  const max = recorder.max;
  // A percentile is reported as its bucket's highest equivalent value, which can pass the true max.
  const at = (p: number) => Math.min(h.getValueAtPercentile(p), max);
  const summary: LatencySummary = {
    avg: round1(recorder.sum / count),
    p50: at(50),
    p95: at(95),
    p99: at(99),
    p999: at(99.9),
    max,
    count,
  };
  // The true minimum, to the nanosecond (a histogram bucket would round it).
  const min = recorder.min;
  if (min !== undefined) summary.min = Math.round(min * 1000) / 1000;
  return summary;
}

/** Merges several recorders into a new one. */
export function mergeRecorders(recorders: LatencyRecorder[]): LatencyRecorder {
  const merged = new LatencyRecorder();
  for (const r of recorders) merged.add(r);
  return merged;
}
