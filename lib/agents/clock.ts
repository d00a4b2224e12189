/**
 * Each machine's clock against the control server's: a few `isMaster` round trips (mongo-java-server
 * has no `hello`; every mongod still answers isMaster), the server's `localTime` compared with the
 * midpoint of the round trip, keeping the sample with the shortest trip (its error is at most half
 * of it, plus the 1 ms resolution of localTime). Start instants are set on the control server's
 * clock and each machine converts them with its offset, so everyone's second t is the same second.
 */
import { performance } from 'node:perf_hooks';
import { Db } from 'mongodb';

export interface ClockOffset {
  /** Control server's clock minus this machine's, in ms. */
  offsetMs: number;
  /** The round trip of the sample kept: the offset is good to about half of it. */
  rttMs: number;
}

const SAMPLES = 5;

/** This machine's clock in ms since the epoch (monotonic between two readings). */
export function localNowMs(): number {
  return performance.timeOrigin + performance.now();
}

export async function measureClockOffset(db: Db, samples: number = SAMPLES): Promise<ClockOffset> {
  let best: ClockOffset | undefined;
  for (let i = 0; i < samples; i++) {
    const sent = localNowMs();
    const reply = await db.admin().command({ isMaster: 1 });
    const received = localNowMs();
    const serverTime = reply.localTime instanceof Date ? reply.localTime.getTime() : Number.NaN;
    if (!Number.isFinite(serverTime))
      throw new Error('the control server did not report its localTime (isMaster)');
    const rttMs = received - sent;
    const sample = { offsetMs: serverTime - (sent + received) / 2, rttMs };
    if (!best || sample.rttMs < best.rttMs) best = sample;
  }
  return { offsetMs: round1(best!.offsetMs), rttMs: round1(best!.rttMs) };
}

/** The control server's clock now, as this machine estimates it. */
export function serverNowMs(offset: ClockOffset): number {
  return localNowMs() + offset.offsetMs;
}

/** A control-server instant as this thread's performance.now() (what the engine's startAt takes). */
export function serverInstantToPerformance(serverMs: number, offset: ClockOffset): number {
  return serverMs - offset.offsetMs - performance.timeOrigin;
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
