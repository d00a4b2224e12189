/**
 * The last stretch of an exact arrival (`--arrivals exact`): Node's timers wake in whole milliseconds on
 * libuv's cached loop clock, so a client waits on a timer only until about EXACT_WAKE_AHEAD_MS before its
 * op is due, and hands the rest of the wait to this poller, which checks performance.now() once per turn
 * of the event loop (setImmediate) and wakes each client as its due time passes. Replies of other clients
 * are handled between the checks, so the loop is never blocked; it never idles either while anyone is
 * waiting here, which is the cost: a core kept busy in that stretch.
 *
 * One poller per event loop (module state is per thread: each worker thread has its own), however many
 * clients and steps wait on it. The time it spends polling is kept apart (pollingMs) so the load probe
 * can leave it out of the event-loop utilization that marks a step client-bound: polling is waiting, not work.
 */

/** A client's timer wakes it this long before its op is due; the poller waits out the rest. */
export const EXACT_WAKE_AHEAD_MS = 1.5;

/**
 * One turn of the loop while polling takes a few µs when nothing else runs; a longer turn ran other
 * work (a reply, a tick), which is counted as work: only this much of each turn is polling.
 */
const POLL_TURN_CAP_MS = 0.05;

export interface PollEntry {
  readonly due: number;
  readonly wake: () => void;
}

export class DuePoller {
  private entries: PollEntry[] = [];
  private polling = false;
  private lastTurn = 0;
  private polledMs = 0;

  /** Polling time so far on this loop (ms): the turns spent only checking the clock. */
  get pollingMs(): number {
    return this.polledMs;
  }

  /** Wakes `wake` on the first turn of the loop at or after `due` (performance.now()). */
  add(due: number, wake: () => void): PollEntry {
    const entry = { due, wake };
    this.entries.push(entry);
    if (!this.polling) {
      this.polling = true;
      this.lastTurn = performance.now();
      setImmediate(this.turn);
    }
    return entry;
  }

  /** Forgets an entry not yet woken (its client was woken otherwise: an abort). */
  remove(entry: PollEntry): void {
    const at = this.entries.indexOf(entry);
    if (at >= 0) this.entries.splice(at, 1);
  }

  private readonly turn = (): void => {
    const now = performance.now();
    this.polledMs += Math.min(now - this.lastTurn, POLL_TURN_CAP_MS);
    this.lastTurn = now;
    let due: PollEntry[] | undefined;
    const waiting: PollEntry[] = [];
    for (const entry of this.entries) {
      if (entry.due <= now) (due ??= []).push(entry);
      else waiting.push(entry);
    }
    if (due) {
      this.entries = waiting;
      // The oldest first: with several due in one turn, the one due earliest starts first.
      if (due.length > 1) due.sort((a, b) => a.due - b.due);
      for (const entry of due) entry.wake();
    }
    if (this.entries.length > 0) setImmediate(this.turn);
    else this.polling = false;
  };
}

/** This event loop's poller (a worker thread loads its own copy of this module). */
export const duePoller = new DuePoller();
