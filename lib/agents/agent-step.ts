/**
 * One agent's share of one step: connect to the target and warm its share's connections (on worker
 * threads, as a local run does), say 'ready', wait for the common start instant (control server's
 * clock, converted with this agent's offset), run the engine on the clients of its share (client i
 * keeps index i and seed + i), report a tick a second as progress, and write the encoded
 * measurement (the worker threads' codec).
 * It stops early when the coordinator says stop (Ctrl-C there), the run ends, or this agent is stopped.
 */
import { addTickLatency, TickLatencyDelta } from '../metrics/tick-latency';
import { encodeMeasurement } from '../metrics/measurement-codec';
import { redactUri } from '../security/redact';
import { TickEvent } from '../workload/engine/engine';
import { runParallelStep, workersForStep } from '../workload/engine/parallel-step';
import { decodeStepWorkload } from '../workload/engine/worker-workload';
import { ClockOffset, serverInstantToPerformance } from './clock';
import {
  ControlCollections,
  measurementId,
  MeasurementDoc,
  StepDoc,
  StepProgress,
} from './control';
import { sleep } from './poll';
import { RunSpec } from './run-spec';
import { AgentShare } from './shares';
import { Target } from '../server/target';
import { dropUndefined } from '../common/values';

export interface ShareContext {
  control: ControlCollections;
  runId: string;
  agent: string;
  spec: RunSpec;
  /** The target as this agent reaches it (the published URI, or --uri), with this agent's credentials and TLS. */
  target: Target;
  clock: ClockOffset;
  /** Worker threads for this agent's share: 'auto' (one per core but one, at most one per client) or a count. */
  workers: number | 'auto';
  /** This agent is being stopped (Ctrl-C). */
  signal: AbortSignal;
  /** True while the run is still on (polled from the run document). */
  runIsOn: () => Promise<boolean>;
  pollMs: number;
}

export type ShareResult = 'done' | 'failed' | 'stopped';

export async function runShare(
  ctx: ShareContext,
  step: StepDoc,
  share: AgentShare,
): Promise<ShareResult> {
  const id = measurementId(ctx.runId, step.seq, ctx.agent);
  const write = (fields: Partial<MeasurementDoc>) =>
    ctx.control.measurements.updateOne(
      { _id: id },
      {
        $set: {
          runId: ctx.runId,
          seq: step.seq,
          agent: ctx.agent,
          clockOffsetMs: ctx.clock.offsetMs,
          ...fields,
        },
        $currentDate: { touchedAt: true },
      },
      { upsert: true },
    );
  // Stops the step's clients when the coordinator says stop (Ctrl-C there), the run ends, or this agent is stopped.
  const stop = new AbortController();
  let watcher: Promise<void> | undefined;
  let progress = Promise.resolve();
  let latency: TickLatencyDelta | undefined;
  const onTick = (tick: TickEvent) => {
    latency = addTickLatency(latency, tick.latency);
    const p: StepProgress = { phase: tick.phase, second: tick.second, measured: tick.measured };
    if (latency) p.latency = latency;
    // One write at a time, in order; a lost write only delays the coordinator's progress line.
    progress = progress
      .then(() => write({ state: 'running', progress: p }))
      .then(
        () => undefined,
        () => undefined,
      );
  };
  // Called once this agent's clients are connected and warmed, on every worker thread.
  const startAt = async (): Promise<number | undefined> => {
    await write({ state: 'ready' });
    const startAtServerMs = await waitForStart(ctx, step._id);
    if (startAtServerMs === undefined) return undefined;
    watcher = watchForStop(ctx, step._id, stop);
    return serverInstantToPerformance(startAtServerMs, ctx.clock);
  };
  try {
    const m = await runParallelStep(
      {
        uri: ctx.target.uri,
        clientOptions: ctx.target.clientOptions,
        workload: decodeStepWorkload(ctx.spec.workload),
        plan: { clients: step.clients, ...step.plan },
        workers: workersForStep(share.count, ctx.workers),
        serverSelectionTimeoutMS: ctx.spec.serverSelectionTimeoutMS,
        ...dropUndefined({ opTimeoutMS: ctx.spec.opTimeoutMS, driver: ctx.spec.driver }),
        share: { first: share.first, count: share.count },
        startAt,
      },
      { signal: stop.signal, onTick },
    );
    stop.abort('finished');
    await watcher;
    await progress;
    if (m.interrupted && m.elapsedSeconds <= 0 && watcher === undefined) return 'stopped'; // never started
    await write({ state: 'done', measurement: JSON.stringify(encodeMeasurement(m)) });
    return 'done';
  } catch (err) {
    stop.abort('failed');
    await watcher?.catch(() => undefined);
    await progress;
    await write({
      state: 'failed',
      error: redactUri((err as Error)?.message ?? String(err)),
    }).catch(() => undefined);
    return 'failed';
  }
}

/** The start instant, or undefined when the step was stopped (or this agent, or the run) first. */
async function waitForStart(ctx: ShareContext, id: string): Promise<number | undefined> {
  for (;;) {
    if (ctx.signal.aborted) return undefined;
    const step = await ctx.control.steps.findOne({ _id: id });
    if (!step || step.state === 'stop') return undefined;
    if (step.state === 'start' && typeof step.startAtServerMs === 'number')
      return step.startAtServerMs;
    if (!(await ctx.runIsOn())) return undefined;
    await sleep(Math.min(ctx.pollMs, 50), ctx.signal);
  }
}

/** Aborts `stop` when the coordinator stops the step, the run ends, or this agent is stopped. */
async function watchForStop(ctx: ShareContext, id: string, stop: AbortController): Promise<void> {
  const onLocal = () => stop.abort('agent stopped');
  ctx.signal.addEventListener('abort', onLocal, { once: true });
  try {
    while (!stop.signal.aborted) {
      await sleep(250, stop.signal);
      if (stop.signal.aborted) break;
      const step = await ctx.control.steps.findOne({ _id: id }).catch(() => undefined);
      if (step?.state === 'stop' || !(await ctx.runIsOn().catch(() => true)))
        stop.abort('stopped by the coordinator');
    }
  } finally {
    ctx.signal.removeEventListener('abort', onLocal);
  }
}
