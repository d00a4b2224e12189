/**
 * Faults a run makes (a proxy down, a toxic, a member frozen) and their undo. A fault is made at its
 * time, held for its `for` (a freeze: its seconds, the server's own end) or until the end of what its
 * event belongs to (the step's measured window, the scenarios), then undone. Every fault in force is
 * also in the run's FaultKeeper, whose undoAll runs on every way a run ends (a normal end, a failure,
 * the first Ctrl-C or SIGTERM: runBenchmark's `finally`), each undo bounded in time (a proxy left down
 * is harm). A run killed outright leaves its toxics named `mongo-bench-<run id>-<n>`: the next run with
 * the same Toxiproxy removes them (./fault-start.ts) and says so.
 */
import type { MongoClient, MongoClientOptions } from 'mongodb';
import type { ScenarioEvent } from '../../result';
import type { BackgroundEventSpec } from './event-spec';
import { Toxiproxy, TOXIC_PREFIX } from './toxiproxy';

/** What the events of a run need beyond its client. */
export interface FaultContext {
  /** The run's Toxiproxy (`--toxiproxy`); absent without one (no proxy event is then accepted). */
  toxiproxy?: Toxiproxy;
  /** Faults in force, and the run's id that names its toxics. */
  keeper: FaultKeeper;
  /** Aborts at the end of what the events belong to (a step's window, the scenarios, the run stopped). */
  until: AbortSignal;
  /** A direct connection's options (freeze's `host`): the target's credentials and TLS. */
  clientOptions?: MongoClientOptions;
}

type UndoRecord = NonNullable<ScenarioEvent['undo']>;

interface Held {
  what: string;
  undo: () => Promise<void>;
  done?: Promise<UndoRecord>;
}

/** The run's faults in force, each undone once: at its end, or by undoAll. */
export class FaultKeeper {
  private readonly held = new Set<Held>();
  private count = 0;

  /** `runId`: names this run's toxics, `mongo-bench-<runId>-<n>`. */
  constructor(readonly runId: string) {}

  toxicName(): string {
    this.count += 1;
    return `${TOXIC_PREFIX}${this.runId}-${this.count}`;
  }

  /** Registers a fault in force; the returned function undoes it (once; later calls get the first outcome). */
  hold(what: string, undo: () => Promise<void>): () => Promise<UndoRecord> {
    const entry: Held = { what, undo };
    this.held.add(entry);
    return () => this.release(entry);
  }

  /** How many faults are in force. */
  get inForce(): number {
    return this.held.size;
  }

  /** Undoes every fault still in force, the last made first (a run's end, its failure, an interrupt); returns the outcomes. */
  async undoAll(): Promise<UndoRecord[]> {
    const outcomes: UndoRecord[] = [];
    for (const entry of [...this.held].reverse()) outcomes.push(await this.release(entry));
    return outcomes;
  }

  private release(entry: Held): Promise<UndoRecord> {
    entry.done ??= entry.undo().then(
      (): UndoRecord => {
        this.held.delete(entry);
        return { ok: true, what: entry.what };
      },
      (err: unknown): UndoRecord => {
        this.held.delete(entry);
        return {
          ok: false,
          what: entry.what,
          error: err instanceof Error ? err.message : String(err),
        };
      },
    );
    return entry.done;
  }
}

/** Resolves after `ms` (never, when undefined) or when `signal` aborts, whichever is first. */
function hold(ms: number | undefined, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (timer) clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = ms === undefined ? undefined : setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}

interface HoldInput {
  client: MongoClient;
  /** Seconds on the event's clock now. */
  seconds: () => number;
  context: FaultContext;
  sendFreeze: (
    client: MongoClient,
    seconds: number,
    host: string | undefined,
    options: MongoClientOptions | undefined,
  ) => Promise<void>;
}

/** Makes the fault, holds it, undoes it; fills `record` (ok, error, toxic, undo, endedAt). Never rejects. */
export async function holdFault(
  event: BackgroundEventSpec,
  record: ScenarioEvent,
  input: HoldInput,
): Promise<void> {
  const { context, seconds } = input;
  let made: { what: string; undo: () => Promise<void>; lasts?: number } | undefined;
  try {
    made = await makeFault(event, record, input);
    record.ok = true;
  } catch (err) {
    record.error = (err instanceof Error ? err.message : String(err)).slice(0, 300);
  }
  if (!made) {
    record.endedAt = seconds();
    return;
  }
  const release = context.keeper.hold(made.what, made.undo);
  const lasts = made.lasts;
  await hold(lasts === undefined ? undefined : lasts * 1000, context.until);
  // A freeze that ran its seconds ended on the server: nothing left to undo.
  const expired = event.action === 'freeze' && !context.until.aborted;
  record.undo = expired
    ? (await release().catch(() => undefined),
      { ok: true, what: `ended on the server after ${lasts} s` })
    : await release();
  record.endedAt = seconds();
}

async function makeFault(
  event: BackgroundEventSpec,
  record: ScenarioEvent,
  input: HoldInput,
): Promise<{ what: string; undo: () => Promise<void>; lasts?: number }> {
  const { context, client } = input;
  if (event.action === 'freeze') {
    const host = event.host;
    await input.sendFreeze(client, event.seconds, host, context.clientOptions);
    return {
      what: `replSetFreeze: 0 sent to ${host ?? 'the same server'} (unfrozen)`,
      // At its end the server unfreezes it; only an earlier end sends replSetFreeze: 0.
      undo: async () => {
        if (context.until.aborted) await input.sendFreeze(client, 0, host, context.clientOptions);
      },
      lasts: event.seconds,
    };
  }
  const proxy = context.toxiproxy;
  if (!proxy) throw new Error('not sent: the run has no Toxiproxy (--toxiproxy URL)');
  if (event.action === 'proxyDown') {
    await proxy.setEnabled(event.proxy, false);
    return {
      what: `proxy ${event.proxy} enabled again`,
      undo: () => proxy.setEnabled(event.proxy, true),
      lasts: event.for,
    };
  }
  if (event.action !== 'toxic') throw new Error(`${event.action} is not a fault`);
  const toxic = { name: context.keeper.toxicName(), ...event.toxic };
  record.toxic = toxic;
  await proxy.addToxic(event.proxy, toxic);
  return {
    what: `toxic ${toxic.name} removed from proxy ${event.proxy}`,
    undo: () => proxy.removeToxic(event.proxy, toxic.name),
    lasts: event.for,
  };
}
