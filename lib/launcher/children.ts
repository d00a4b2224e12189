/**
 * Child processes we started, and how they end: SIGTERM, then SIGKILL after a grace period.
 * A process 'exit' hook kills whatever is still running so no child outlives Node, also after an
 * uncaught error or process.exit(). (A SIGKILL of Node itself cannot be caught; see docs/launcher.md.)
 */
import type { ChildProcess } from 'node:child_process';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface TrackedChild {
  child: ChildProcess;
  /** Resolves once the process has exited (never rejects). */
  exited: Promise<ExitInfo>;
  /** Set once it has exited. */
  exit?: ExitInfo;
}

const live = new Set<ChildProcess>();

function killAllNow(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
  live.clear();
}

function forget(child: ChildProcess): void {
  live.delete(child);
  if (live.size === 0) process.removeListener('exit', killAllNow);
}

/** Starts watching a freshly spawned child: exit promise, safety net. */
export function track(child: ChildProcess): TrackedChild {
  if (live.size === 0) process.on('exit', killAllNow);
  live.add(child);
  const tracked: TrackedChild = {
    child,
    exited: new Promise<ExitInfo>((resolve) => {
      const finish = (info: ExitInfo) => {
        if (tracked.exit) return;
        tracked.exit = info;
        forget(child);
        resolve(info);
      };
      child.once('exit', (code, signal) => finish({ code, signal }));
      // A spawn failure (ENOENT, EACCES) emits 'error' and may never emit 'exit'.
      child.once('error', () => {
        if (child.pid === undefined) finish({ code: null, signal: null });
      });
    }),
  };
  return tracked;
}

export interface StopResult {
  /** How it ended. */
  exit: ExitInfo;
  /** True when SIGTERM was not enough and SIGKILL was sent. */
  killed: boolean;
}

/** SIGTERM, wait up to graceMs, then SIGKILL and wait for the exit. */
export async function terminate(tracked: TrackedChild, graceMs: number): Promise<StopResult> {
  if (tracked.exit) return { exit: tracked.exit, killed: false };
  signal(tracked.child, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const first = await Promise.race([
    tracked.exited,
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), graceMs))),
  ]);
  clearTimeout(timer);
  if (first) return { exit: first, killed: false };
  signal(tracked.child, 'SIGKILL');
  return { exit: await tracked.exited, killed: true };
}

function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    child.kill(name);
  } catch {
    // Exited meanwhile: the exit promise settles on its own.
  }
}

/** For tests: how many children the safety net is currently guarding. */
export function liveChildCount(): number {
  return live.size;
}
