/**
 * Resolves at `at` (performance.now() time), or at once when it has passed or `signal` aborts; the
 * timer and the abort listener are both removed whichever comes first.
 */
export function sleepUntil(at: number, signal: AbortSignal | undefined): Promise<void> {
  const ms = at - performance.now();
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
