/**
 * One step across worker threads: each worker has its own client (either driver: ./op-client.ts) and runs a contiguous slice
 * of the step's clients (client i keeps index i and seed + i, so a run repeats with any worker
 * count). The parent waits until every worker is connected, hands them one start instant, merges
 * their ticks into one a second, and merges their measurements exactly (counts, histograms,
 * per-second buckets, errors). With one worker the step runs on this thread, as the engine always did.
 *
 * Every path ends with every worker thread gone: a failed or stopped step terminates the rest, and
 * the function returns (or throws) only after each worker's 'exit'.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { MongoClientOptions } from 'mongodb';
import { RunError } from '../../config/errors';
import {
  availableCores,
  ClientLoad,
  cpuPercentOf,
  LoadProbe,
  LoopReading,
} from '../../metrics/client-load';
import { emptyMeasurement } from '../../metrics/empty-measurement';
import { decodeMeasurement } from '../../metrics/measurement-codec';
import { StepMeasurement } from '../../metrics/measurement';
import { mergeConcurrentMeasurements } from '../../metrics/merge-measurements';
import { redactUri } from '../../security/redact';
import { bindWorkload } from './compile-ops';
import { runStep, StepCallbacks, StepPlan } from './engine';
import { Driver, EngineClient, openEngineClient } from './op-client';
import { FromWorker, ToWorker } from './worker-protocol';
import { TickMerger } from './worker-ticks';
import { startWorkerThread } from './worker-thread';
import { compileStepWorkload, encodeStepWorkload, StepWorkload } from './worker-workload';
import { dropUndefined, messageOf } from '../../common/values';

export type { StepWorkload } from './worker-workload';

export interface ParallelStepInput {
  /** The deployment; each worker connects to it with its own MongoClient. */
  uri: string;
  /** Credentials and TLS (lib/security's toMongoClientOptions): structured-cloneable, never logged. */
  clientOptions?: MongoClientOptions;
  /** The client the ops go through (./op-client.ts); default node. */
  driver?: Driver;
  workload: StepWorkload;
  plan: StepPlan;
  /** Worker threads to spread the clients over (at most one per client); 1 = this thread, no worker. */
  workers: number;
  /** Default 5000 ms. */
  serverSelectionTimeoutMS?: number;
  /** The per-op time limit (socketTimeoutMS, and maxTimeMS on reads), as `--op-timeout`. */
  opTimeoutMS?: number;
  /** Told the instant (this thread's performance.now()) the measured window will open, as soon as it is set. */
  onWindowOpen?: (atMs: number) => void;
  /**
   * The clients this process runs, when the step is shared with other processes (agents); default
   * all of `plan.clients`. Client i keeps index i and seed + i wherever it runs.
   */
  share?: { first: number; count: number };
  /**
   * Who sets the start: called once every client of this process is connected and warmed; returns
   * the start instant (this thread's performance.now()), or undefined to give the step up unmeasured.
   * Default: now plus a margin that lets every worker receive it.
   */
  startAt?: () => Promise<number | undefined>;
}

export type ParallelStepMeasurement = StepMeasurement & { client: ClientLoad };

/** Time between handing out the start instant and the start itself: every worker has it by then. */
const START_MARGIN_MS = 100;
/** How long a finished worker may take to close its client and end before it is terminated. */
const EXIT_GRACE_MS = 5000;
/** How long past the step's own overrun limit the parent waits for a worker before giving up on it. */
const WATCHDOG_GRACE_MS = 5000;

let liveThreads = 0;

/** Worker threads started and not yet ended (their 'exit' not yet seen): 0 between steps. */
export function liveWorkerThreads(): number {
  return liveThreads;
}

/**
 * The default worker count of a step: one per core, leaving one for the main thread (progress,
 * results) and never more than the clients; at least one.
 */
export function autoWorkers(clients: number, cores: number = availableCores()): number {
  return Math.max(1, Math.min(clients, cores - 1));
}

/** The workers a step actually uses: `requested` ('auto' or a count), at most one per client. */
export function workersForStep(
  clients: number,
  requested: number | 'auto',
  cores?: number,
): number {
  return requested === 'auto'
    ? autoWorkers(clients, cores)
    : Math.max(1, Math.min(clients, requested));
}

/** Contiguous slices of the clients, as even as can be: 10 over 4 = 2, 3, 2, 3. */
export function splitClients(clients: number, workers: number): { first: number; count: number }[] {
  const slices: { first: number; count: number }[] = [];
  for (let w = 0; w < workers; w++) {
    const first = Math.floor((w * clients) / workers);
    const next = Math.floor(((w + 1) * clients) / workers);
    if (next > first) slices.push({ first, count: next - first });
  }
  return slices;
}

/** The step's load as the main thread alone ran it (--workers 1). */
export function singleLoopLoad(reading: LoopReading | undefined): ClientLoad {
  return {
    workers: 1,
    eventLoopUtilization: reading ? [reading.eventLoopUtilization] : [],
    ...(reading?.pollingUtilization ? { pollingUtilization: [reading.pollingUtilization] } : {}),
    cpuPercent: reading ? cpuPercentOf(reading) : 0,
    cores: availableCores(),
  };
}

export async function runParallelStep(
  input: ParallelStepInput,
  callbacks: StepCallbacks = {},
): Promise<ParallelStepMeasurement> {
  const { plan } = input;
  if (!Number.isInteger(input.workers) || input.workers < 1)
    throw new RangeError(`workers must be an integer >= 1, got ${input.workers}`);
  const share = input.share ?? { first: 0, count: plan.clients };
  const workers = Math.min(input.workers, share.count);
  if (workers <= 1) return runOnThisThread(input, share, callbacks);
  const slices = splitClients(share.count, workers).map((s) => ({
    first: share.first + s.first,
    count: s.count,
  }));
  return runOnWorkers(input, slices, callbacks);
}

async function runOnThisThread(
  input: ParallelStepInput,
  share: { first: number; count: number },
  callbacks: StepCallbacks,
): Promise<ParallelStepMeasurement> {
  const prepared = compileStepWorkload(input.workload);
  const engine = openEngineClient(input.driver ?? 'node', input.uri, {
    serverSelectionTimeoutMS: input.serverSelectionTimeoutMS ?? 5000,
    maxClients: share.count,
    clientOptions: input.clientOptions,
    opTimeoutMS: input.opTimeoutMS,
  });
  try {
    await connect(engine, input.uri);
    await engine.warm(share.count);
    const ops = bindWorkload(prepared, engine.client, {
      writes: input.workload.writes,
      maxTimeMS: input.opTimeoutMS,
    });
    let plan = input.share ? { ...input.plan, clientSlice: share } : input.plan;
    if (input.startAt) {
      const startAt = await input.startAt();
      if (startAt === undefined) return emptyInterrupted(input.plan, 1);
      plan = { ...plan, startAt };
    }
    const m = await runStep(ops, prepared.scope, plan, callbacks);
    return { ...m, client: singleLoopLoad(m.load) };
  } finally {
    await engine.close().catch(() => undefined);
  }
}

async function connect(client: EngineClient, uri: string): Promise<void> {
  try {
    await client.connect();
  } catch (err) {
    throw new RunError(`cannot connect to ${redactUri(uri)}: ${redactUri(messageOf(err))}`);
  }
}

/** One worker thread and what it has said so far. */
class WorkerHandle {
  readonly ready: Promise<void>;
  readonly done: Promise<StepMeasurement>;
  readonly exited: Promise<void>;
  hasExited = false;
  private settle!: {
    ready: () => void;
    done: (m: StepMeasurement) => void;
    fail: (err: Error) => void;
  };

  constructor(
    readonly index: number,
    readonly worker: Worker,
    onTick: (index: number, message: Extract<FromWorker, { type: 'tick' }>) => void,
  ) {
    let readyResolve!: () => void;
    let doneResolve!: (m: StepMeasurement) => void;
    let readyReject!: (err: Error) => void;
    let doneReject!: (err: Error) => void;
    this.ready = new Promise<void>(
      (resolve, reject) => ((readyResolve = resolve), (readyReject = reject)),
    );
    this.done = new Promise<StepMeasurement>(
      (resolve, reject) => ((doneResolve = resolve), (doneReject = reject)),
    );
    // Awaited later (or never, when another worker failed first): not an unhandled rejection.
    this.ready.catch(() => undefined);
    this.done.catch(() => undefined);
    let finished = false;
    this.settle = {
      ready: readyResolve,
      done: (m) => ((finished = true), doneResolve(m)),
      fail: (err) => {
        if (finished) return;
        finished = true;
        readyReject(err);
        doneReject(err);
      },
    };
    const name = `worker ${index + 1}`;
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'ready') this.settle.ready();
      else if (message.type === 'tick') onTick(index, message);
      else if (message.type === 'done') this.settle.done(decodeMeasurement(message.measurement));
      else if (message.type === 'failed')
        this.settle.fail(new RunError(`${name}: ${message.message}`));
    });
    worker.on('error', (err) =>
      this.settle.fail(new RunError(`${name} failed: ${redactUri(err.message)}`)),
    );
    liveThreads++;
    this.exited = new Promise<void>((resolve) =>
      worker.once('exit', (code) => {
        liveThreads--;
        this.hasExited = true;
        this.settle.fail(
          new RunError(`${name} ended (exit code ${code}) before finishing its clients`),
        );
        resolve();
      }),
    );
  }

  post(message: ToWorker): void {
    if (!this.hasExited) this.worker.postMessage(message);
  }
}

async function runOnWorkers(
  input: ParallelStepInput,
  slices: { first: number; count: number }[],
  callbacks: StepCallbacks,
): Promise<ParallelStepMeasurement> {
  const { plan } = input;
  const signal = callbacks.signal;
  const workload = encodeStepWorkload(input.workload);
  const ticks = new TickMerger(slices.length, (tick) => callbacks.onTick?.(tick));
  const handles: WorkerHandle[] = [];
  const timers: NodeJS.Timeout[] = [];
  let probe: LoadProbe | undefined;
  let succeeded = false;
  const stopAll = () => handles.forEach((h) => h.post({ type: 'stop' }));
  try {
    slices.forEach((clientSlice, workerIndex) => {
      const worker = startWorkerThread({
        workerIndex,
        uri: input.uri,
        ...(input.driver ? { driver: input.driver } : {}),
        ...(input.clientOptions ? { clientOptions: input.clientOptions } : {}),
        serverSelectionTimeoutMS: input.serverSelectionTimeoutMS ?? 5000,
        ...dropUndefined({ opTimeoutMS: input.opTimeoutMS }),
        workload,
        plan: { ...withoutStart(plan), clientSlice },
      });
      handles.push(new WorkerHandle(workerIndex, worker, (i, m) => ticks.add(i, m.tick)));
    });

    // Connected and warmed, all of them (or stopped before the step began: nothing measured).
    const readyOrAborted = await untilAborted(Promise.all(handles.map((h) => h.ready)), signal);
    if (readyOrAborted === 'aborted') return emptyInterrupted(plan, slices.length);

    let startAt: number;
    if (input.startAt) {
      const given = await input.startAt();
      if (given === undefined) return emptyInterrupted(plan, slices.length);
      startAt = given;
    } else {
      startAt = performance.now() + START_MARGIN_MS;
    }
    handles.forEach((h) =>
      h.post({ type: 'start', startAtEpochMs: performance.timeOrigin + startAt }),
    );
    const measureStart = startAt + plan.warmupSeconds * 1000;
    input.onWindowOpen?.(measureStart);
    timers.push(
      setTimeout(() => (probe = new LoadProbe()), Math.max(0, measureStart - performance.now())),
    );
    signal?.addEventListener('abort', stopAll, { once: true });
    if (signal?.aborted) stopAll();

    const parts = handles.map((h) =>
      h.done.then((m) => {
        ticks.finished(h.index);
        return m;
      }),
    );
    const all = Promise.all(parts);
    let measurements: StepMeasurement[];
    if (plan.overrunLimitMs === undefined) {
      measurements = await all;
    } else {
      // Each worker cuts its own overrun; this catches a worker whose loop never yields again.
      const giveUpAt = measureStart + plan.seconds * 1000 + plan.overrunLimitMs + WATCHDOG_GRACE_MS;
      const watchdog = new Promise<never>((_, reject) => {
        timers.push(
          setTimeout(
            () =>
              reject(
                new RunError(
                  `a worker did not finish ${Math.round((plan.overrunLimitMs! + WATCHDOG_GRACE_MS) / 100) / 10} s after the measured window closed: terminated`,
                ),
              ),
            giveUpAt - performance.now(),
          ),
        );
      });
      measurements = await Promise.race([all, watchdog]);
    }
    // Every worker sent its final tick before its measurement: theirs go out as one.
    ticks.end();
    const cpu = probe?.read();
    const merged = mergeConcurrentMeasurements(measurements);
    succeeded = true;
    return {
      ...merged,
      client: {
        workers: measurements.length,
        eventLoopUtilization: measurements.map((m) => m.load?.eventLoopUtilization ?? 0),
        ...(measurements.some((m) => m.load?.pollingUtilization)
          ? { pollingUtilization: measurements.map((m) => m.load?.pollingUtilization ?? 0) }
          : {}),
        cpuPercent: cpu ? cpuPercentOf(cpu) : 0,
        cores: availableCores(),
      },
    };
  } finally {
    signal?.removeEventListener('abort', stopAll);
    timers.forEach((t) => clearTimeout(t));
    ticks.close();
    await endAll(handles, succeeded);
  }
}

/** Waits for every worker's exit: a finished worker gets time to close its client, any other is terminated now. */
async function endAll(handles: WorkerHandle[], gracefully: boolean): Promise<void> {
  let grace: NodeJS.Timeout | undefined;
  const terminate = () =>
    handles.forEach((h) => (h.hasExited ? undefined : void h.worker.terminate()));
  if (gracefully) grace = setTimeout(terminate, EXIT_GRACE_MS);
  else terminate();
  await Promise.all(handles.map((h) => h.exited));
  clearTimeout(grace);
}

function withoutStart(plan: StepPlan): Omit<StepPlan, 'startAt' | 'clientSlice'> {
  const { startAt: _startAt, clientSlice: _slice, ...rest } = plan;
  return rest;
}

function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | 'aborted'> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise<T | 'aborted'>((resolve, reject) => {
    const onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (err: unknown) => (signal.removeEventListener('abort', onAbort), reject(err)),
    );
  });
}

/** Stopped before the step began: nothing measured (the caller records no step). */
function emptyInterrupted(plan: StepPlan, workers: number): ParallelStepMeasurement {
  return {
    ...emptyMeasurement(plan),
    interrupted: true,
    client: { workers, eventLoopUtilization: [], cpuPercent: 0, cores: availableCores() },
  };
}
