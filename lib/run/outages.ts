/**
 * When the server stops answering during a step. The engine opens an outage at the first network
 * error (from the last answer before it) and closes it at the first answer after it; here the run
 * announces it at once, waits at most one server-selection timeout past the window for an answer
 * (only then is the step failed), and writes it into the step's `availability`. Only a failed step
 * leaves its dead seconds out of its ops/s; one whose outage ended keeps its whole window.
 */
import type { MongoClient } from 'mongodb';
import { addErrorsByClass } from '../metrics/error-class';
import type { LongestOp, MeasuredOutage, StepMeasurement } from '../metrics/measurement';
import type { ErrorsByClass, Outage, OutageKind, StepAvailability, StepResult } from '../result';
import type { TickEvent } from '../workload/engine/engine';
import type { BenchmarkEvent } from './events';

/** HH:MM:SS on the load machine's clock. */
export function clockTime(epochMs: number): string {
  return new Date(epochMs).toTimeString().slice(0, 8);
}

/** Announces each outage once: at the engine's first network error, or from a tick (worker threads). */
export function outageAnnouncer(
  emit: (e: BenchmarkEvent) => void,
  clients: number,
  trial: number,
): { onNoAnswer(since: number): void; onTick(tick: TickEvent): void; finish(): void } {
  let open: number | undefined;
  const onNoAnswer = (since: number) => {
    if (open !== undefined) return;
    open = since;
    emit({ type: 'outage', clients, trial, since });
  };
  // A kind out (a stall, a failover's writes): said at the first tick that sees it, and when it is over;
  // not while the server is lost (that outage, said already, holds every kind).
  const kindOpen: { reads?: number; writes?: number } = {};
  const back = (kind: 'reads' | 'writes') => {
    const since = kindOpen[kind];
    if (since === undefined) return;
    delete kindOpen[kind];
    emit({ type: 'outage', clients, trial, since, end: Date.now(), kind });
  };
  return {
    onNoAnswer,
    /** The step ended: a kind still said out is over (its record is in the result). */
    finish() {
      back('reads');
      back('writes');
    },
    onTick(tick) {
      // The step's final tick: finish() and the measurement say how it ended.
      if (tick.final) return;
      if (tick.noAnswerSince !== undefined) onNoAnswer(tick.noAnswerSince);
      else open = undefined;
      for (const kind of ['reads', 'writes'] as const) {
        const since = tick.stalled?.[kind];
        const was = kindOpen[kind];
        if (since !== undefined && was === undefined && open === undefined) {
          kindOpen[kind] = since;
          emit({ type: 'outage', clients, trial, since, kind });
        } else if (since === undefined && was !== undefined) back(kind);
      }
    },
  };
}

/** The least time the closing ping gets, when the step's own ops already waited out the deadline. */
const LAST_PING_MS = 1000;

/**
 * A step that ended with no answer since its last network error: asks the server (ping, on a fresh
 * client: the run's own may still hold the server as unknown) until the window's end plus one
 * server-selection timeout (at least a second). Answered: the outage closes then and the step is not
 * failed for it. Returns whether the server answered.
 */
export async function awaitAnswer(
  m: StepMeasurement,
  connect: (timeoutMS: number) => MongoClient,
  serverSelectionTimeoutMS: number,
): Promise<boolean> {
  const deadline = (m.window?.end ?? Date.now()) + serverSelectionTimeoutMS;
  const left = Math.max(LAST_PING_MS, deadline - Date.now());
  const client = connect(left);
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    client
      .db('admin')
      .command({ ping: 1 })
      .then(() => true)
      .catch(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), left))),
  ]);
  clearTimeout(timer);
  await client.close().catch(() => undefined);
  if (!answered) return false;
  const open = lastLostServerOutage(m);
  if (open && open.end === undefined) open.end = Date.now();
  return true;
}

/** The last lost-server (`all`) outage of a measurement: the one an answer closes. */
export function lastLostServerOutage(m: StepMeasurement): MeasuredOutage | undefined {
  return m.outages?.filter((o) => (o.kind ?? 'all') === 'all').at(-1);
}

/** An outage of the measurement and the per-kind spans inside it, in epoch ms; `end` undefined: open. */
interface Placed {
  start: number;
  end?: number;
  kind: OutageKind;
  spans?: MeasuredOutage[];
  errorsByClass?: ErrorsByClass;
  opsFailed?: number;
}

/**
 * One trial's outages as the result has them (docs/reliability.md): a span shorter than stallMs is
 * none; a kind's outage within a lost-server one is a span of it; where a reads and a writes outage
 * overlap for stallMs or more, the overlap is an `all` outage with both as its spans.
 */
function placeOutages(m: StepMeasurement, stallMs: number): Placed[] {
  const now = Date.now();
  const endOf = (o: { end?: number }) => o.end ?? now;
  const raw = (m.outages ?? []).filter((o) => o.end === undefined || o.end - o.start >= stallMs);
  const lost = raw.filter((o) => (o.kind ?? 'all') === 'all');
  const kinds = raw.filter((o) => o.kind === 'reads' || o.kind === 'writes');
  const used = new Set<MeasuredOutage>();
  const overlap = (a: MeasuredOutage, b: MeasuredOutage) =>
    Math.min(endOf(a), endOf(b)) - Math.max(a.start, b.start);
  const placed: Placed[] = lost.map((a) => {
    const spans = kinds.filter((k) => !used.has(k) && overlap(a, k) > 0);
    for (const k of spans) used.add(k);
    return { ...a, kind: 'all', ...(spans.length > 0 ? { spans } : {}) };
  });
  for (const r of kinds) {
    if (r.kind !== 'reads' || used.has(r)) continue;
    const w = kinds.find((k) => k.kind === 'writes' && !used.has(k) && overlap(r, k) >= stallMs);
    if (!w) continue;
    used.add(r).add(w);
    const end =
      r.end === undefined && w.end === undefined ? undefined : Math.min(endOf(r), endOf(w));
    const errorsByClass = addErrorsByClass(r.errorsByClass, w.errorsByClass);
    placed.push({
      start: Math.max(r.start, w.start),
      ...(end !== undefined ? { end } : {}),
      kind: 'all',
      spans: [r, w],
      ...(errorsByClass ? { errorsByClass } : {}),
      opsFailed: (r.opsFailed ?? 0) + (w.opsFailed ?? 0),
    });
  }
  for (const k of kinds) if (!used.has(k)) placed.push({ ...k, kind: k.kind ?? 'all' });
  return placed.sort((a, b) => a.start - b.start);
}

/** Seconds covered by any of the intervals (overlaps once). */
function unionSeconds(intervals: [number, number][]): number {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0;
  let from = -Infinity;
  let to = -Infinity;
  for (const [a, b] of sorted) {
    if (a > to) {
      if (to > from) total += to - from;
      from = a;
      to = b;
    } else to = Math.max(to, b);
  }
  if (to > from) total += to - from;
  return total / 1000;
}

const iso = (ms: number) => new Date(ms).toISOString();
const secondsOf = (start: number, end: number) => Math.round(end - start) / 1000;

/**
 * The step's `availability` from its measurements' outages, and when its window opened; a failed step's
 * rates are divided by its window less the dead seconds of its `all` outages in it (said in
 * `opsPerSecExcludesSeconds`): a kind's outage alone never does. Mutates `step`.
 */
export function addAvailability(step: StepResult, measurements: StepMeasurement[]): void {
  const opened = measurements.find((m) => m.window !== undefined)?.window;
  if (opened) step.windowStartedAt = iso(opened.start);
  const recorded = measurements.some((m) => m.stallMs !== undefined || m.outages !== undefined);
  if (!recorded) return;
  const stallMs = measurements.find((m) => m.stallMs !== undefined)?.stallMs ?? 0;
  const outages: Outage[] = [];
  const placedByTrial: Placed[][] = [];
  let unavailable = 0;
  measurements.forEach((m, i) => {
    const placed = placeOutages(m, stallMs);
    placedByTrial.push(placed);
    const now = Date.now();
    const endOf = (o: { end?: number }) => o.end ?? now;
    const windowStart = m.window?.start;
    const intervals: [number, number][] = [];
    for (const o of placed) {
      intervals.push([o.start, endOf(o)]);
      for (const s of o.spans ?? []) intervals.push([s.start, endOf(s)]);
    }
    unavailable += unionSeconds(
      intervals.map(([a, b]) => [windowStart !== undefined ? Math.max(a, windowStart) : a, b]),
    );
    for (const o of placed)
      outages.push({
        start: iso(o.start),
        ...(o.end !== undefined ? { end: iso(o.end) } : {}),
        seconds: secondsOf(o.start, endOf(o)),
        kind: o.kind,
        ...(windowStart !== undefined ? { at: Math.round(o.start - windowStart) / 1000 } : {}),
        ...(measurements.length > 1 ? { trial: i + 1 } : {}),
        ...(o.spans
          ? {
              spans: o.spans.map((s) => ({
                kind: s.kind === 'writes' ? ('writes' as const) : ('reads' as const),
                start: iso(s.start),
                ...(s.end !== undefined ? { end: iso(s.end) } : {}),
                seconds: secondsOf(s.start, endOf(s)),
                ...(s.errorsByClass ? { errorsByClass: s.errorsByClass } : {}),
                ...(s.opsFailed !== undefined ? { opsFailed: s.opsFailed } : {}),
              })),
            }
          : {}),
        ...(o.errorsByClass ? { errorsByClass: o.errorsByClass } : {}),
        ...(o.opsFailed !== undefined ? { opsFailed: o.opsFailed } : {}),
      });
  });
  const longest = measurements
    .map((m) => m.longestOp)
    .reduce<LongestOp | undefined>((a, b) => (b && (!a || b.micros > a.micros) ? b : a), undefined);
  const availability: StepAvailability = {
    outages,
    unavailableSeconds: Math.round(unavailable * 1000) / 1000,
    opsDelayed: measurements.reduce((s, m) => s + (m.opsDelayed ?? 0), 0),
    ...(stallMs > 0 ? { stallMs } : {}),
    ...(longest
      ? {
          longestOp: {
            kind: longest.kind,
            op: longest.op ?? String(longest.index),
            seconds: Math.round(longest.micros / 1000) / 1000,
            ...(longest.failed ? { failed: true } : {}),
          },
        }
      : {}),
  };
  step.availability = availability;
  if (step.status !== 'failed') return;
  // Dead seconds inside what was measured (the window's opening to the last counted op): from each
  // `all` outage's start to its end, or to the end of the measurement when no answer came.
  let dead = 0;
  measurements.forEach((m, i) => {
    if (!m.window) return;
    const measuredEnd = m.window.start + m.elapsedSeconds * 1000;
    const intervals: [number, number][] = placedByTrial[i]
      .filter((o) => o.kind === 'all')
      .map((o) => [
        Math.max(o.start, m.window!.start),
        Math.min(o.end ?? measuredEnd, measuredEnd),
      ]);
    dead += unionSeconds(intervals);
  });
  const elapsed = step.elapsedSeconds ?? step.seconds * Math.max(1, step.trials);
  const alive = elapsed - dead;
  if (dead <= 0 || alive <= 0) return;
  const scale = elapsed / alive;
  const rescale = (r: StepResult['opsPerSec']) => ({
    total: r.total * scale,
    reads: r.reads * scale,
    writes: r.writes * scale,
  });
  step.opsPerSec = rescale(step.opsPerSec);
  availability.opsPerSecExcludesSeconds = Math.round(dead * 1000) / 1000;
}
