/**
 * One step run by several event loops at once (worker threads, each with a share of the clients)
 * becomes one measurement: counts add, histograms add (percentiles come from the merged histogram,
 * never from averaging each worker's), per-second buckets add index by index (the workers share one
 * clock, so bucket t is the same second everywhere) and error tallies add by kind.
 */
import { LatencyRecorder, mergeRecorders } from './latency';
import {
  ArrivalMeasurement,
  BenchRunCounts,
  ErrorTally,
  LongestOp,
  MeasuredOutage,
  OpLatency,
  StepMeasurement,
  StepOverrun,
} from './measurement';
import { dropUndefined } from '../common/values';
import { addErrorsByClass } from './error-class';

/** As in the engine: more distinct error kinds than this fold into "other errors". */
const MAX_DISTINCT_ERRORS = 20;

function addSeries(parts: number[][]): number[] {
  const length = Math.max(0, ...parts.map((p) => p.length));
  const out = new Array<number>(length).fill(0);
  for (const p of parts) for (let t = 0; t < p.length; t++) out[t] += p[t];
  return out;
}

export function mergeErrorTallies(lists: ErrorTally[][]): ErrorTally[] {
  const byKind = new Map<string, ErrorTally>();
  for (const list of lists) {
    for (const tally of list) {
      const known =
        byKind.get(tally.error) ??
        (byKind.size >= MAX_DISTINCT_ERRORS ? byKind.get('other errors') : undefined);
      if (known) known.count += tally.count;
      else if (byKind.size < MAX_DISTINCT_ERRORS) byKind.set(tally.error, { ...tally });
      else
        byKind.set('other errors', {
          error: 'other errors',
          count: tally.count,
          example: tally.example,
        });
    }
  }
  return [...byKind.values()];
}

/** A weighted workload's per-op counts of several event loops (or trials), added op by op; undefined when none has them. */
export function addOpCounts(parts: (number[] | undefined)[]): number[] | undefined {
  const present = parts.filter((p): p is number[] => p !== undefined);
  if (present.length === 0) return undefined;
  const out = new Array<number>(Math.max(...present.map((p) => p.length))).fill(0);
  for (const p of present) p.forEach((n, i) => (out[i] += n));
  return out;
}

/**
 * The per-op latencies of several event loops (or trials) of one workload, merged op by op (index order);
 * undefined when one part lacks them or the parts' ops differ (not one workload).
 */
export function mergeOpLatencies(parts: (OpLatency[] | undefined)[]): OpLatency[] | undefined {
  if (parts.length === 0 || parts.some((p) => p === undefined)) return undefined;
  const lists = parts as OpLatency[][];
  const first = lists[0];
  const same = (list: OpLatency[]) =>
    list.length === first.length &&
    list.every(
      (o, i) => o.index === first[i].index && o.op === first[i].op && o.name === first[i].name,
    );
  if (!lists.every(same)) return undefined;
  return first.map((o, i) => ({
    index: o.index,
    op: o.op,
    name: o.name,
    recorder: mergeRecorders(lists.map((l) => l[i].recorder)),
  }));
}

/** benchRun's counts of several event loops (or trials) add up; undefined when none has them. */
export function addBenchRunCounts(
  parts: (BenchRunCounts | undefined)[],
): BenchRunCounts | undefined {
  const present = parts.filter((p): p is BenchRunCounts => p !== undefined);
  if (present.length === 0) return undefined;
  const out: BenchRunCounts = { totalOps: 0, errCount: 0, byOp: {} };
  for (const p of present) {
    out.totalOps += p.totalOps;
    out.errCount += p.errCount;
    for (const [type, c] of Object.entries(p.byOp)) {
      const known = (out.byOp[type] ??= { count: 0, micros: 0 });
      known.count += c.count;
      known.micros += c.micros;
    }
  }
  return out;
}

/**
 * Overruns of parts that ran at once (worker threads, agents on one clock): counts add; the overrun
 * lasted as long as the longest. Undefined when no part kept one.
 */
export function addConcurrentOverruns(parts: (StepOverrun | undefined)[]): StepOverrun | undefined {
  const present = parts.filter((p): p is StepOverrun => p !== undefined);
  if (present.length === 0) return undefined;
  return {
    reads: present.reduce((s, p) => s + p.reads, 0),
    writes: present.reduce((s, p) => s + p.writes, 0),
    errors: present.reduce((s, p) => s + p.errors, 0),
    seconds: Math.max(...present.map((p) => p.seconds)),
  };
}

/**
 * The waits of several arrival measurements together (none when no part recorded them): counts and sums
 * add, the lateness histograms add exactly, and the mode is the parts' (`exact` only when every part's was).
 */
export function sumTimerWaits(
  parts: ArrivalMeasurement[],
): Pick<ArrivalMeasurement, 'timerWaits' | 'timerLateMsSum' | 'waitLate' | 'arrivals'> {
  const counted = parts.filter((p) => p.timerWaits !== undefined);
  const modes = new Set(parts.map((p) => p.arrivals ?? 'timer'));
  const arrivals = parts.some((p) => p.arrivals !== undefined)
    ? { arrivals: modes.size === 1 && modes.has('exact') ? ('exact' as const) : ('timer' as const) }
    : {};
  if (counted.length === 0) return arrivals;
  const late = parts.flatMap((p) => (p.waitLate ? [LatencyRecorder.decode(p.waitLate)] : []));
  return {
    timerWaits: counted.reduce((s, p) => s + (p.timerWaits ?? 0), 0),
    timerLateMsSum: counted.reduce((s, p) => s + (p.timerLateMsSum ?? 0), 0),
    ...(late.length > 0 ? { waitLate: mergeRecorders(late).encode() } : {}),
    ...arrivals,
  };
}

/** The arrival counts of event loops that each held a share of one schedule: the series add. */
export function addConcurrentArrivals(
  parts: (ArrivalMeasurement | undefined)[],
): ArrivalMeasurement | undefined {
  const present = parts.filter((p): p is ArrivalMeasurement => p !== undefined);
  if (present.length === 0) return undefined;
  const { target, lateAfterMs, dropAfterMs } = present[0];
  return {
    target,
    lateAfterMs,
    dropAfterMs,
    scheduled: addSeries(present.map((p) => p.scheduled)),
    dropped: addSeries(present.map((p) => p.dropped)),
    late: addSeries(present.map((p) => p.late)),
    ...sumTimerWaits(present),
  };
}

/**
 * Merges the measurements of the event loops that ran one step together. The step lasted until the
 * last loop's last counted op (elapsedSeconds is the longest), and it was interrupted, lost the
 * server or was cut if any loop was.
 */
export function mergeConcurrentMeasurements(parts: StepMeasurement[]): StepMeasurement {
  if (parts.length === 0)
    throw new RangeError('mergeConcurrentMeasurements needs at least one measurement');
  const first = parts[0];
  const sum = (pick: (m: StepMeasurement) => number) => parts.reduce((s, m) => s + pick(m), 0);
  const opTypes = [...new Set(parts.flatMap((m) => [...m.latency.byOp.keys()]))];
  const byOp = new Map<string, LatencyRecorder>(
    opTypes.map((type) => [
      type,
      mergeRecorders(parts.map((m) => m.latency.byOp.get(type)).filter((r) => r !== undefined)),
    ]),
  );
  const byIndex = mergeOpLatencies(parts.map((m) => m.latency.byIndex));
  const lostServer = parts.find((m) => m.lostServer !== undefined)?.lostServer;
  const cut = parts.find((m) => m.cut !== undefined)?.cut;
  const benchRun = addBenchRunCounts(parts.map((m) => m.benchRun));
  const overrun = addConcurrentOverruns(parts.map((m) => m.overrun));
  const opCounts = addOpCounts(parts.map((m) => m.opCounts));
  const arrival = addConcurrentArrivals(parts.map((m) => m.arrival));
  const inFlightAtOpen = sum((m) => m.inFlightAtOpen ?? 0);
  return {
    clients: first.clients,
    // The same for every part, but with an op count (each part's window spans its own seconds).
    seconds: Math.max(...parts.map((m) => m.seconds)),
    elapsedSeconds: Math.max(...parts.map((m) => m.elapsedSeconds)),
    ...(parts.every((m) => m.windowSeconds !== undefined)
      ? { windowSeconds: Math.max(...parts.map((m) => m.windowSeconds as number)) }
      : {}),
    interrupted: parts.some((m) => m.interrupted),
    reads: sum((m) => m.reads),
    writes: sum((m) => m.writes),
    errors: sum((m) => m.errors),
    latency: {
      reads: mergeRecorders(parts.map((m) => m.latency.reads)),
      writes: mergeRecorders(parts.map((m) => m.latency.writes)),
      byOp,
      ...(byIndex ? { byIndex } : {}),
    },
    perSecond: {
      reads: addSeries(parts.map((m) => m.perSecond.reads)),
      writes: addSeries(parts.map((m) => m.perSecond.writes)),
      errors: addSeries(parts.map((m) => m.perSecond.errors)),
      ...(parts.every((m) => m.perSecond.latencyMicros)
        ? { latencyMicros: addSeries(parts.map((m) => m.perSecond.latencyMicros as number[])) }
        : {}),
    },
    errorTallies: mergeErrorTallies(parts.map((m) => m.errorTallies)),
    ...(benchRun ? { benchRun } : {}),
    ...(overrun ? { overrun } : {}),
    ...(opCounts ? { opCounts } : {}),
    ...(arrival ? { arrival } : {}),
    ...(inFlightAtOpen > 0 ? { inFlightAtOpen } : {}),
    ...dropUndefined({ lostServer }),
    ...mergedOutages(parts),
    ...mergedAvailability(parts),
    ...dropUndefined({ cut }),
  };
}

/**
 * Every loop's outages as one list, per kind: overlapping ones of a kind joined (a server gone is gone
 * for every loop; a kind out in any loop's clients is out for the application those clients are).
 */
function mergedOutages(parts: StepMeasurement[]): Pick<StepMeasurement, 'outages' | 'window'> {
  const window = parts.find((m) => m.window !== undefined)?.window;
  const all = parts.flatMap((m) => m.outages ?? []).sort((a, b) => a.start - b.start);
  if (all.length === 0) return window ? { window } : {};
  const out: MeasuredOutage[] = [];
  for (const kind of ['all', 'reads', 'writes'] as const) {
    const joined: MeasuredOutage[] = [];
    for (const o of all.filter((x) => (x.kind ?? 'all') === kind)) {
      const last = joined.at(-1);
      if (last && (last.end === undefined || o.start <= last.end)) {
        if (last.end !== undefined)
          last.end = o.end === undefined ? undefined : Math.max(last.end, o.end);
        if (last.end === undefined) delete last.end;
        const errorsByClass = addErrorsByClass(last.errorsByClass, o.errorsByClass);
        if (errorsByClass) last.errorsByClass = errorsByClass;
        last.opsFailed = (last.opsFailed ?? 0) + (o.opsFailed ?? 0);
      } else joined.push({ ...o });
    }
    out.push(...joined);
  }
  out.sort((a, b) => a.start - b.start);
  return { outages: out, ...(window ? { window } : {}) };
}

/** Delayed ops added, the slowest op of any loop, the stall threshold they share. */
function mergedAvailability(
  parts: StepMeasurement[],
): Pick<StepMeasurement, 'stallMs' | 'opsDelayed' | 'longestOp'> {
  const stallMs = parts.find((m) => m.stallMs !== undefined)?.stallMs;
  if (stallMs === undefined) return {};
  const longestOp = parts
    .map((m) => m.longestOp)
    .reduce<LongestOp | undefined>((a, b) => (b && (!a || b.micros > a.micros) ? b : a), undefined);
  return {
    stallMs,
    opsDelayed: parts.reduce((s, m) => s + (m.opsDelayed ?? 0), 0),
    ...(longestOp ? { longestOp } : {}),
  };
}
