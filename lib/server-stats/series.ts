/**
 * From a process's readings to its per-second points: pure. Counters become rates over the time
 * between the two grid readings they come from (a late reading widens one interval, it does not
 * double a rate); a failed reading is a gap and the next rate spans from the last good one; a
 * counter that went down (the process restarted) gives no rate for that interval. Boundary readings
 * (taken off the grid when a window opens or closes) serve the consistency check, not the series.
 */
import { ServerPoint } from '../result';
import { Reading, round3 } from './sampler';
import { OP_COUNTERS, OpCounterName, ServerSnapshot } from './snapshot';

const round4 = (n: number) => Math.round(n * 10000) / 10000;

function rate(
  now: number | undefined,
  before: number | undefined,
  seconds: number,
): number | undefined {
  if (now === undefined || before === undefined || now < before) return undefined;
  return round3((now - before) / seconds);
}

function share(part: number | undefined, max: number | undefined): number | undefined {
  return part !== undefined && max !== undefined && max > 0 ? round4(part / max) : undefined;
}

function withDefined(point: ServerPoint, fields: Partial<ServerPoint>): ServerPoint {
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined) (point as unknown as Record<string, unknown>)[key] = value;
  return point;
}

export function pointsFromReadings(readings: readonly Reading<ServerSnapshot>[]): ServerPoint[] {
  const points: ServerPoint[] = [];
  let last: Reading<ServerSnapshot> | undefined;
  for (const reading of readings) {
    if (reading.boundary) continue;
    if (reading.value === null) {
      points.push({ t: reading.t, gap: true });
      continue;
    }
    const now = reading.value;
    if (last !== undefined) {
      const before = last.value!;
      const seconds = reading.t - last.t;
      if (seconds > 0) {
        const ops: Partial<Record<OpCounterName, number>> = {};
        for (const name of OP_COUNTERS) {
          const r = rate(now.ops?.[name], before.ops?.[name], seconds);
          if (r !== undefined) ops[name] = r;
        }
        points.push(
          withDefined(
            { t: reading.t, seconds: round3(seconds) },
            {
              role: now.role,
              opsPerSec: Object.keys(ops).length > 0 ? ops : undefined,
              connections: now.connections,
              queuedReaders: now.queuedReaders,
              queuedWriters: now.queuedWriters,
              readTicketsOut: now.readTicketsOut,
              writeTicketsOut: now.writeTicketsOut,
              cacheUsedShare: share(now.cacheBytes, now.cacheMaxBytes),
              cacheDirtyShare: share(now.cacheDirtyBytes, now.cacheMaxBytes),
              pagesReadPerSec: rate(now.pagesRead, before.pagesRead, seconds),
              bytesInPerSec: rate(now.bytesIn, before.bytesIn, seconds),
              bytesOutPerSec: rate(now.bytesOut, before.bytesOut, seconds),
              lagSeconds: now.lagSeconds,
            },
          ),
        );
      }
    }
    last = reading;
  }
  return points;
}

/** Counter deltas between two readings; null when either failed. A counter that went down is left out. */
export function counterDeltas(
  open: Reading<ServerSnapshot> | undefined,
  close: Reading<ServerSnapshot> | undefined,
): Partial<Record<OpCounterName, number>> | null {
  if (!open?.value || !close?.value) return null;
  const out: Partial<Record<OpCounterName, number>> = {};
  for (const name of OP_COUNTERS) {
    const a = open.value.ops?.[name];
    const b = close.value.ops?.[name];
    if (a !== undefined && b !== undefined && b >= a) out[name] = b - a;
  }
  return out;
}
