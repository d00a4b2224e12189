import { setTimeout as delay } from 'node:timers/promises';

/** Waiting between polls of the control database, cut short by an abort. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(ms, undefined, signal ? { signal } : {}).catch(() => undefined);
}

/** Age in ms of a server-time stamp, against the server's clock as this machine estimates it. */
export function ageMs(stamp: Date | undefined, serverNow: number): number {
  return stamp instanceof Date ? serverNow - stamp.getTime() : Number.POSITIVE_INFINITY;
}
