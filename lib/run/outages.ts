/**
 * When the server stops answering during a step. The engine opens an outage at the first network
 * error (from the last answer before it) and closes it at the first answer after it; here the run
 * announces it at once, waits at most one server-selection timeout past the window for an answer
 * (only then is the step failed), and writes it into the step's `availability`. Only a failed step
 * leaves its dead seconds out of its ops/s; one whose outage ended keeps its whole window.
 */
import type { MongoClient } from 'mongodb';
import type { StepMeasurement } from '../metrics/measurement';
import type { StepResult } from '../result';
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
): { onNoAnswer(since: number): void; onTick(tick: TickEvent): void } {
  let open: number | undefined;
  const onNoAnswer = (since: number) => {
    if (open !== undefined) return;
    open = since;
    emit({ type: 'outage', clients, trial, since });
  };
  return {
    onNoAnswer,
    onTick(tick) {
      if (tick.noAnswerSince !== undefined) onNoAnswer(tick.noAnswerSince);
      else open = undefined;
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
  const open = m.outages?.at(-1);
  if (open && open.end === undefined) open.end = Date.now();
  return true;
}

/**
 * The step's `availability` from its measurements' outages; a failed step's rates are divided by
 * its window less the dead seconds in it (said in `opsPerSecExcludesSeconds`). Mutates `step`.
 */
export function addAvailability(step: StepResult, measurements: StepMeasurement[]): void {
  const outages = measurements.flatMap((m) => m.outages ?? []);
  if (outages.length === 0) return;
  const now = Date.now();
  step.availability = {
    outages: outages.map((o) => ({
      start: new Date(o.start).toISOString(),
      ...(o.end !== undefined ? { end: new Date(o.end).toISOString() } : {}),
      seconds: Math.round((o.end ?? now) - o.start) / 1000,
    })),
  };
  if (step.status !== 'failed') return;
  // Dead seconds inside what was measured (the window's opening to the last counted op): from each
  // outage's start to its end, or to the end of the measurement when no answer came.
  let dead = 0;
  for (const m of measurements) {
    if (!m.window) continue;
    const measuredEnd = m.window.start + m.elapsedSeconds * 1000;
    for (const o of m.outages ?? []) {
      const from = Math.max(o.start, m.window.start);
      const to = Math.min(o.end ?? measuredEnd, measuredEnd);
      if (to > from) dead += (to - from) / 1000;
    }
  }
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
  step.availability.opsPerSecExcludesSeconds = Math.round(dead * 1000) / 1000;
}
