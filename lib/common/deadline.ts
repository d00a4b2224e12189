/**
 * Work that must not hold the run: a reading after a step, on a connection the network may have left
 * half open (no reply and no close: the driver then waits its socket timeout, the op timeout, for each
 * command). Past the deadline the caller goes on with `onLate()`; the work's own failure, when it comes
 * later, is dropped (its client's close ends it).
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, onLate: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onLate()), ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
