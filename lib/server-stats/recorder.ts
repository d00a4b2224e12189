/**
 * The run's server sampler: discovers the deployment's processes, reads serverStatus from each once
 * an interval (and replSetGetStatus on each replica set's primary, for the lag), takes boundary
 * readings when a measured window opens and closes, and hands back the result's `server` section.
 * Never fails the run: a process that cannot be read is a gap, a user without the clusterMonitor
 * role gets one warning and no sampling.
 */
import { ServerProcess, ConnectProcess, discoverProcesses, ProcessConnection } from './processes';
import { messageOf } from '../common/values';
import { counterDeltas, pointsFromReadings } from './series';
import { Reading, Sampler, SampleSource } from './sampler';
import { ConsistencyCheck, ServerSection, ServerWindow } from '../result';
import { lagFromReplSetStatus, ServerSnapshot, snapshotOf } from './snapshot';

type Doc = Record<string, unknown>;

/** Leave out the expensive sections (metrics, locks, ...); unknown names are ignored by the server. */
export const SAMPLER_SERVER_STATUS: Doc = {
  serverStatus: 1,
  metrics: 0,
  locks: 0,
  tcmalloc: 0,
  transactions: 0,
  mirroredReads: 0,
};

export const DEFAULT_SAMPLE_INTERVAL_MS = 1000;

/** Which features a realistic serverStatus has, named for the "could not sample" note. */
const FEATURES: Array<[string, (s: ServerSnapshot) => boolean]> = [
  ['opcounters', (s) => s.ops !== undefined],
  ['connections', (s) => s.connections !== undefined],
  ['globalLock.currentQueue', (s) => s.queuedReaders !== undefined],
  ['tickets in use', (s) => s.readTicketsOut !== undefined],
  ['WiredTiger cache', (s) => s.cacheMaxBytes !== undefined],
  ['network bytes', (s) => s.bytesIn !== undefined],
];

function processSource(
  p: ServerProcess,
  connection: ProcessConnection,
): SampleSource<ServerSnapshot> {
  return {
    id: p.id,
    read: async () => {
      const snapshot = snapshotOf(await connection.command(SAMPLER_SERVER_STATUS));
      if (snapshot.role === 'primary' && p.set) {
        // The lag is optional: a failure leaves it out of this reading.
        const lag = await connection
          .command({ replSetGetStatus: 1 })
          .then(lagFromReplSetStatus, () => undefined);
        if (lag) snapshot.lagSeconds = lag;
      }
      return snapshot;
    },
  };
}

function isUnauthorized(error: string | undefined): boolean {
  return error !== undefined && /not authorized|unauthorized|requires authentication/i.test(error);
}

export interface StartOptions {
  intervalMs?: number;
  connect: ConnectProcess;
}

export type StartOutcome =
  | { recorder: ServerStatsRecorder; warnings: string[] }
  | { recorder?: undefined; warnings: string[] };

/** Discovers the processes and takes the baseline reading; never throws. */
export async function startServerStats(
  admin: (command: Doc) => Promise<Doc>,
  seedHosts: readonly string[],
  options: StartOptions,
): Promise<StartOutcome> {
  let discovered;
  try {
    discovered = await discoverProcesses(admin, seedHosts);
  } catch (err) {
    return {
      warnings: [`server stats off: could not find the deployment's processes (${messageOf(err)})`],
    };
  }
  if (discovered.processes.length === 0)
    return { warnings: ['server stats off: no process to sample'] };
  const connections = discovered.processes.map((p) => options.connect(p.id));
  const sampler = new Sampler(
    discovered.processes.map((p, i) => processSource(p, connections[i])),
    { intervalMs: options.intervalMs ?? DEFAULT_SAMPLE_INTERVAL_MS },
  );
  const startedAt = new Date();
  await sampler.start();
  const baseline = sampler.snapshot();
  const first = discovered.processes.map((p) => baseline[p.id][0]);
  if (first.every((r) => r.value === null && isUnauthorized(r.error))) {
    await sampler.stop({ finalSample: false });
    await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
    return {
      warnings: [
        `server stats off: serverStatus was refused (${first[0].error}); the user needs the clusterMonitor role`,
      ],
    };
  }
  const notes = [...discovered.notes];
  discovered.processes.forEach((p, i) => {
    if (first[i].value === null)
      notes.push(
        `${p.id}: no answer to serverStatus at the start (${first[i].error ?? 'unknown error'})`,
      );
  });
  const answered = first.flatMap((r) => (r.value ? [r.value] : []));
  const missing = FEATURES.filter(([, has]) => answered.length > 0 && !answered.some(has)).map(
    ([name]) => name,
  );
  if (missing.length > 0)
    notes.push(
      `the server reports no ${missing.join(', ')} in serverStatus: those series are absent${missing.includes('opcounters') ? ', and the consistency check cannot run' : ''}`,
    );
  const recorder = new ServerStatsRecorder(
    sampler,
    discovered.processes,
    connections,
    startedAt,
    notes,
  );
  return { recorder, warnings: notes.map((n) => `server stats: ${n}`) };
}

/** The section of a run whose servers could not be sampled at all: only why. */
export function unsampledSection(
  notes: readonly string[],
  intervalMs = DEFAULT_SAMPLE_INTERVAL_MS,
): ServerSection {
  return {
    intervalMs,
    startedAt: new Date().toISOString(),
    processes: [],
    notes: [...notes],
    series: {},
    windows: [],
    checks: [],
  };
}

export class ServerStatsRecorder {
  private readonly windows: ServerWindow[] = [];
  private readonly checks: ConsistencyCheck[] = [];
  private open:
    | {
        clients: number;
        trial: number;
        at: number;
        readings: Promise<Record<string, Reading<ServerSnapshot>>>;
        timer?: NodeJS.Timeout;
      }
    | undefined;
  private stopped: ServerSection | undefined;

  constructor(
    private readonly sampler: Sampler<ServerSnapshot>,
    readonly processes: readonly ServerProcess[],
    private readonly connections: readonly ProcessConnection[],
    private readonly startedAt: Date,
    readonly notes: string[],
  ) {}

  /**
   * Runs `fn` against each sampled process over its own connection (e.g. to read what it says about
   * itself, or its oplog on database `local`).
   */
  eachProcess<T>(
    fn: (
      command: (command: Record<string, unknown>, db?: string) => Promise<Record<string, unknown>>,
      process: ServerProcess,
    ) => Promise<T>,
  ): Promise<T[]> {
    return Promise.all(
      this.processes.map((p, i) =>
        fn((command, db) => this.connections[i].command(command, db), p),
      ),
    );
  }

  /**
   * The window of (clients, trial) opens at `atMs` (this thread's performance.now()): the opening
   * reading is taken then, not on the grid.
   */
  windowOpensAt(atMs: number, clients: number, trial: number): void {
    this.cancelOpen();
    let resolve!: (r: Record<string, Reading<ServerSnapshot>>) => void;
    const readings = new Promise<Record<string, Reading<ServerSnapshot>>>((r) => (resolve = r));
    const at = (atMs - this.sampler.originMs) / 1000;
    const timer = setTimeout(
      () => void this.sampler.sampleNow().then(resolve),
      Math.max(0, atMs - performance.now()),
    );
    this.open = { clients, trial, at, readings, timer };
  }

  /** The window closed now (its last counted op done): take the closing reading and keep the window. */
  async windowClosed(): Promise<void> {
    const open = this.open;
    this.open = undefined;
    if (!open || this.stopped) return;
    const opening = await open.readings;
    const closing = await this.sampler.sampleNow();
    const all = this.sampler.snapshot();
    const window: ServerWindow = {
      clients: open.clients,
      trial: open.trial,
      open: open.at,
      close: this.sampler.now(),
      counted: {},
      roles: {},
      samplerCommands: {},
    };
    for (const p of this.processes) {
      window.counted[p.id] = counterDeltas(opening[p.id], closing[p.id]);
      const role = closing[p.id]?.value?.role;
      if (role) window.roles[p.id] = role;
      const from = opening[p.id]?.t ?? open.at;
      const to = closing[p.id]?.t ?? window.close;
      // Each reading is one serverStatus; a primary of a set adds replSetGetStatus.
      window.samplerCommands[p.id] = all[p.id]
        .filter((r) => r.t > from && r.t <= to)
        .reduce((n, r) => n + (r.value?.lagSeconds ? 2 : 1), 0);
    }
    window.open = Math.round(window.open * 1000) / 1000;
    window.close = Math.round(window.close * 1000) / 1000;
    this.windows.push(window);
  }

  /** A window opened but the step ended without measuring (stopped before it began): forget it. */
  cancelOpen(): void {
    if (this.open?.timer) clearTimeout(this.open.timer);
    this.open = undefined;
  }

  addCheck(check: ConsistencyCheck): void {
    this.checks.push(check);
  }

  windowsSoFar(): readonly ServerWindow[] {
    return this.windows;
  }

  /** Each process's latest reading (for the metrics endpoint, read at every scrape). */
  latest(): Map<string, ServerSnapshot> {
    return this.sampler.latest();
  }

  /** The section so far (the run saves it after every step). */
  section(): ServerSection {
    if (this.stopped) return this.stopped;
    return this.build(this.sampler.snapshot());
  }

  /** Stops sampling and closes every connection; safe to call twice. */
  async stop(): Promise<ServerSection> {
    if (this.stopped) return this.stopped;
    this.cancelOpen();
    const readings = await this.sampler.stop({ finalSample: false });
    await Promise.all(this.connections.map((c) => c.close().catch(() => undefined)));
    this.stopped = this.build(readings);
    return this.stopped;
  }

  private build(readings: Record<string, Reading<ServerSnapshot>[]>): ServerSection {
    const series: ServerSection['series'] = {};
    for (const p of this.processes) series[p.id] = pointsFromReadings(readings[p.id] ?? []);
    return {
      intervalMs: this.sampler.intervalMs,
      startedAt: this.startedAt.toISOString(),
      processes: this.processes.map((p) => ({ ...p })),
      notes: [...this.notes],
      series,
      windows: this.windows.map((w) => ({ ...w })),
      checks: [...this.checks],
    };
  }
}
