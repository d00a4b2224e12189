/**
 * A test-only pause at the start of a phase, so a test can send a signal while the phase is under
 * way (the fake servers answer setup commands in microseconds, and the report takes a moment):
 * MONGO_BENCH_HOLD_PHASE="setup:3000" waits 3 s (or until the run is interrupted) when the setup
 * phase begins. Read once per phase start, never in the hot path; unset, it costs nothing.
 */
export const HOLD_PHASE_ENV = 'MONGO_BENCH_HOLD_PHASE';

export type HoldablePhase = 'setup' | 'report';

export function holdPhase(
  phase: HoldablePhase,
  signal: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const spec = env[HOLD_PHASE_ENV];
  if (!spec) return Promise.resolve();
  const [name, ms] = spec.split(':');
  const wait = Number(ms);
  if (name !== phase || !Number.isFinite(wait) || wait <= 0 || signal.aborted)
    return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, wait);
    signal.addEventListener('abort', done, { once: true });
  });
}
