/**
 * The coordinator's side (`mongo-bench run --agents N --control-uri URI`): it publishes the run,
 * waits for N agents to claim it, and runs each step through them: shares of the clients, a common
 * start instant on the control server's clock, then the agents' measurements merged exactly. It is
 * the StepExecutor that runBenchmark drives for agents, so loading, the sweep, results and reports are the
 * ones of an ordinary run.
 */
import { addTickLatency, subtractTickLatency, TickLatencyDelta } from '../metrics/tick-latency';
import { randomBytes } from 'node:crypto';
import { MongoClient, MongoClientOptions } from 'mongodb';
import { RunError, UsageError } from '../config/errors';
import { claimRole } from '../server/role-check';
import { decodeMeasurement, EncodedMeasurement } from '../metrics/measurement-codec';
import type { StepMeasurement } from '../metrics/measurement';
import { ResultDocument, StepResult, AgentInfo, AgentStepFigures } from '../result';
import { redactUri } from '../security/redact';
import { toolInfo } from '../common/version';
import { StepPlan, TickEvent } from '../workload/engine/engine';
import { StepExecutor, StepExecutorCallbacks, StepOutcome } from '../workload/engine/step-executor';
import { ClockOffset, measureClockOffset, serverInstantToPerformance, serverNowMs } from './clock';
import {
  AgentDoc,
  ControlCollections,
  controlCollections,
  controlRole,
  DEFAULT_CONTROL_DB,
  ensureControlIndexes,
  HEARTBEAT_MS,
  MeasurementDoc,
  RunStatus,
  stepId,
} from './control';
import { AgentOutcome, mergeAgentOutcomes } from './merge';
import { ageMs, sleep } from './poll';
import { RunSpec, serializeSpec } from './run-spec';
import { AgentShare, shareClients } from './shares';
import { dropUndefined, messageOf } from '../common/values';
import { clientTimeouts } from '../common/client-timeouts';

export interface CoordinatorOptions {
  controlUri: string;
  controlDb?: string;
  /** Credentials and TLS for the control connection (the run's own when the control server is the target). */
  clientOptions?: MongoClientOptions;
  agents: number;
  /** How long to wait for the agents to join. */
  waitMs: number;
  /** An agent silent this long (no heartbeat) is lost. */
  lostAfterMs: number;
  pollMs?: number;
}

/** Between setting the start instant and the start itself: every agent polls it and gets ready by then. */
const START_MARGIN_MS = 1000;
/** How long agents have to connect and warm their share before the step gives up on them. */
const PREPARE_LIMIT_MS = 60_000;
/** After a stop, how long interrupted agents have to write what they measured. */
const STOP_GRACE_MS = 10_000;

export class Coordinator implements StepExecutor {
  private seq = 0;
  private joined: { name: string; instance: string }[] = [];
  private info: AgentInfo[] = [];
  private pendingFigures: AgentStepFigures[] = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private runId = '';
  private ended = false;

  private constructor(
    private readonly client: MongoClient,
    private readonly control: ControlCollections,
    private readonly options: CoordinatorOptions,
    readonly clock: ClockOffset,
  ) {}

  static async open(options: CoordinatorOptions): Promise<Coordinator> {
    const client = new MongoClient(options.controlUri, {
      ...clientTimeouts(),
      ...options.clientOptions,
    });
    try {
      await client.connect();
      const control = controlCollections(client, options.controlDb ?? DEFAULT_CONTROL_DB);
      // Absent, empty or already a control database (then marked one), never a user's: before any write.
      await claimRole(client, controlRole(control.db.databaseName, options.controlUri));
      await ensureControlIndexes(control);
      const clock = await measureClockOffset(control.db);
      return new Coordinator(client, control, options, clock);
    } catch (err) {
      await client.close().catch(() => undefined);
      if (err instanceof UsageError) throw err;
      throw new RunError(
        `option --control-uri: cannot use the control database at ${redactUri(options.controlUri)}: ${redactUri(messageOf(err))}`,
      );
    }
  }

  get id(): string {
    return this.runId;
  }

  /** Publishes the run (one insert: an agent sees all of it or nothing) and starts its heartbeat. */
  async publish(spec: RunSpec): Promise<string> {
    this.runId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`;
    const now = new Date(serverNowMs(this.clock));
    await this.control.runs.insertOne({
      _id: this.runId,
      version: toolInfo().version,
      status: 'open',
      wanted: this.options.agents,
      openSlots: this.options.agents,
      joined: [],
      refused: [],
      ...serializeSpec(spec),
      heartbeatAt: now,
      createdAt: now,
      touchedAt: now,
    });
    const beat = () =>
      void this.control.runs
        .updateOne({ _id: this.runId }, { $currentDate: { heartbeatAt: true, touchedAt: true } })
        .catch(() => undefined);
    this.heartbeat = setInterval(beat, HEARTBEAT_MS);
    return this.runId;
  }

  /** Until N agents joined; past the time limit a RunError names who is missing. Aborting stops the wait (returns false). */
  async waitForAgents(signal?: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      const run = await this.control.runs.findOne({ _id: this.runId });
      if (run && run.joined.length >= this.options.agents) break;
      if (signal?.aborted) return false;
      if (Date.now() >= deadline) {
        const message = await this.missingMessage(run?.joined ?? [], run?.refused ?? []);
        await this.end('failed', message);
        throw new RunError(message);
      }
      await sleep(this.options.pollMs ?? 200, signal);
    }
    await this.control.runs.updateOne(
      { _id: this.runId },
      { $set: { status: 'running' }, $currentDate: { touchedAt: true } },
    );
    const run = await this.control.runs.findOne({ _id: this.runId });
    // By name, not by who claimed first: the same agents get the same clients in every run.
    const names = run!.joined.slice(0, this.options.agents).sort();
    const docs = await this.control.agents.find({ _id: { $in: names } }).toArray();
    const byName = new Map(docs.map((d) => [d._id, d]));
    this.joined = names.map((name) => ({ name, instance: byName.get(name)?.instance ?? '' }));
    this.info = names.map((name) => agentInfo(name, byName.get(name)));
    return true;
  }

  agents(): AgentInfo[] {
    return this.info;
  }

  describeRun(result: ResultDocument): void {
    result.agents = {
      controlUri: redactUri(this.options.controlUri),
      controlDb: this.control.db.databaseName,
      runId: this.runId,
      coordinatorClockOffsetMs: this.clock.offsetMs,
      agents: this.info,
    };
  }

  describeStep(step: StepResult): void {
    if (this.pendingFigures.length > 0) step.agents = this.pendingFigures;
    this.pendingFigures = [];
  }

  async runStep(
    plan: StepPlan,
    trial: number,
    callbacks: StepExecutorCallbacks,
  ): Promise<StepOutcome> {
    const seq = ++this.seq;
    const shares = shareClients(
      plan.clients,
      this.joined.map((a) => a.name),
    );
    const active = shares.filter((s) => s.count > 0);
    const id = stepId(this.runId, seq);
    const stepPlan = {
      seconds: plan.seconds,
      warmupSeconds: plan.warmupSeconds,
      randomSeed: plan.randomSeed,
      ...dropUndefined({ rate: plan.rate }),
      ...dropUndefined({ overrunLimitMs: plan.overrunLimitMs }),
      ...dropUndefined({ stallMs: plan.stallMs }),
      ...dropUndefined({ arrivals: plan.arrivals }),
      ...dropUndefined({ ops: plan.ops }),
    };
    await this.control.steps.insertOne({
      _id: id,
      runId: this.runId,
      seq,
      clients: plan.clients,
      trial,
      plan: stepPlan,
      shares,
      state: 'prepare',
      touchedAt: new Date(serverNowMs(this.clock)),
    });
    const stop = () =>
      this.control.steps.updateOne(
        { _id: id },
        { $set: { state: 'stop' }, $currentDate: { touchedAt: true } },
      );

    // Every share connected and warmed (or a problem, or a stop before anything was measured).
    const prepared = await this.watch(
      seq,
      active,
      (doc) => doc !== undefined,
      Date.now() + PREPARE_LIMIT_MS,
      callbacks.signal,
    );
    if (callbacks.signal?.aborted || prepared.problems.size > 0) {
      await stop();
      if (prepared.problems.size === 0)
        return { measurement: { ...mergeAgentOutcomes([], plan).measurement, interrupted: true } };
      return this.outcome(active, prepared.docs, prepared.problems, plan, trial);
    }

    const startAtServerMs = Math.round(serverNowMs(this.clock) + START_MARGIN_MS);
    await this.control.steps.updateOne(
      { _id: id },
      { $set: { state: 'start', startAtServerMs }, $currentDate: { touchedAt: true } },
    );
    callbacks.onWindowOpen?.(
      serverInstantToPerformance(startAtServerMs, this.clock) + plan.warmupSeconds * 1000,
    );

    const windowEnds = Date.now() + START_MARGIN_MS + (plan.warmupSeconds + plan.seconds) * 1000;
    // An op count has no window's end: the agents are awaited while they live (a lost one is still found by its heartbeat).
    const giveUpAt =
      plan.ops !== undefined
        ? Infinity
        : windowEnds + (plan.overrunLimitMs ?? 0) + this.options.lostAfterMs + STOP_GRACE_MS;
    const ticks = new ProgressTicks((tick) => callbacks.onTick?.(tick));
    const finished = await this.watch(
      seq,
      active,
      (doc) => isFinal(doc?.state),
      giveUpAt,
      callbacks.signal,
      {
        onDocs: (docs) => ticks.update(active.map((s) => docs.get(s.agent))),
        onAbort: async () => {
          await stop();
          return Date.now() + STOP_GRACE_MS;
        },
      },
    );
    return this.outcome(active, finished.docs, finished.problems, plan, trial);
  }

  /** Marks the run ended for the agents (they go back to waiting, or exit with --once). */
  async end(
    status: Extract<RunStatus, 'done' | 'failed' | 'cancelled'>,
    reason?: string,
  ): Promise<void> {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    // The first end says how the run ended; a later one (the CLI's clean-up) changes nothing.
    if (!this.runId || this.ended) return;
    this.ended = true;
    await this.control.runs
      .updateOne(
        { _id: this.runId },
        {
          $set: { status, ...(reason ? { reason } : {}), openSlots: 0 },
          $currentDate: { touchedAt: true },
        },
      )
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.client.close().catch(() => undefined);
  }

  /**
   * Polls the step's measurement documents and the agents' heartbeats until every agent's document
   * is `settled`, an agent fails or is lost, or the time limit passes (those not settled by then are
   * problems). With onAbort (the measuring phase) an abort stops the agents and waits a little for
   * what they measured, and a lost agent does not stop the wait for the others' figures.
   */
  private async watch(
    seq: number,
    active: AgentShare[],
    settled: (doc: MeasurementDoc | undefined) => boolean,
    giveUpAt: number,
    signal: AbortSignal | undefined,
    on: {
      onDocs?: (docs: Map<string, MeasurementDoc>) => void;
      onAbort?: () => Promise<number>;
    } = {},
  ): Promise<{ docs: Map<string, MeasurementDoc>; problems: Map<string, string> }> {
    const problems = new Map<string, string>();
    let stopped = false;
    for (;;) {
      const found = await this.control.measurements.find({ runId: this.runId, seq }).toArray();
      const docs = new Map(found.map((d) => [d.agent, d]));
      on.onDocs?.(docs);
      for (const s of active) {
        const d = docs.get(s.agent);
        if (d?.state === 'failed') problems.set(s.agent, d.error ?? 'failed');
      }
      for (const [agent, why] of await this.lostAgents(
        active.filter((s) => !isFinal(docs.get(s.agent)?.state)),
      ))
        problems.set(agent, why);
      if (active.every((s) => settled(docs.get(s.agent))) || (problems.size > 0 && !on.onAbort))
        return { docs, problems };
      if (
        problems.size > 0 &&
        active.every((s) => problems.has(s.agent) || settled(docs.get(s.agent)))
      )
        return { docs, problems };
      if (signal?.aborted && !on.onAbort) return { docs, problems };
      if (signal?.aborted && !stopped && on.onAbort) {
        stopped = true;
        giveUpAt = Math.min(giveUpAt, await on.onAbort());
      }
      if (Date.now() >= giveUpAt) {
        for (const s of active)
          if (!settled(docs.get(s.agent)) && !problems.has(s.agent))
            problems.set(s.agent, `did not report within the step's time limit`);
        return { docs, problems };
      }
      await sleep(this.options.pollMs ?? 100, stopped ? undefined : signal);
    }
  }

  /** The agents among these whose heartbeat stopped (or that were restarted), with why. */
  private async lostAgents(shares: AgentShare[]): Promise<Map<string, string>> {
    const lost = new Map<string, string>();
    if (shares.length === 0) return lost;
    const docs = await this.control.agents
      .find({ _id: { $in: shares.map((s) => s.agent) } })
      .toArray();
    const byName = new Map(docs.map((d) => [d._id, d]));
    const now = serverNowMs(this.clock);
    for (const s of shares) {
      const doc = byName.get(s.agent);
      const joined = this.joined.find((a) => a.name === s.agent);
      const age = ageMs(doc?.heartbeatAt, now);
      if (!doc) lost.set(s.agent, 'lost mid-step: it deregistered or its document is gone');
      else if (joined && doc.instance !== joined.instance)
        lost.set(s.agent, 'lost mid-step: it was restarted');
      else if (age > this.options.lostAfterMs)
        lost.set(s.agent, `lost mid-step: no heartbeat for ${Math.round(age / 100) / 10} s`);
    }
    return lost;
  }

  private outcome(
    active: AgentShare[],
    docs: Map<string, MeasurementDoc>,
    problems: Map<string, string>,
    plan: StepPlan,
    trial: number,
  ): StepOutcome {
    const outcomes: AgentOutcome[] = active.map((share) => {
      const doc = docs.get(share.agent);
      if (doc?.state === 'done' && doc.measurement) {
        return {
          share,
          state: 'done',
          // The agent's instants onto this coordinator's clock: both offsets are to the control server's.
          measurement: shiftClock(
            decodeMeasurement(JSON.parse(doc.measurement) as EncodedMeasurement),
            (doc.clockOffsetMs ?? 0) - this.clock.offsetMs,
          ),
        };
      }
      const why = problems.get(share.agent) ?? doc?.error ?? 'no measurement';
      return {
        share,
        state: doc?.state === 'failed' ? 'failed' : 'lost',
        error: why,
        ...(doc?.progress ? { progress: doc.progress } : {}),
      };
    });
    const merged = mergeAgentOutcomes(outcomes, plan, trial);
    this.pendingFigures.push(...merged.figures);
    return {
      measurement: merged.measurement,
      ...(merged.failure ? { failure: merged.failure } : {}),
    };
  }

  private async missingMessage(
    joined: string[],
    refused: { agent: string; reason: string }[],
  ): Promise<string> {
    const want = this.options.agents;
    const now = serverNowMs(this.clock);
    const live = (await this.control.agents.find({}).toArray()).filter(
      (a) => ageMs(a.heartbeatAt, now) <= this.options.lostAfterMs && !joined.includes(a._id),
    );
    const parts = [
      `waited ${Math.round(this.options.waitMs / 1000)} s for ${want} agent${want === 1 ? '' : 's'} (option --agent-wait): ${joined.length} joined${joined.length > 0 ? ` (${joined.join(', ')})` : ''}, ${want - joined.length} missing`,
    ];
    if (refused.length > 0)
      parts.push(`refused: ${refused.map((r) => `${r.agent} (${r.reason})`).join(', ')}`);
    const busy = live.filter((a) => !refused.some((r) => r.agent === a._id));
    if (busy.length > 0)
      parts.push(
        `alive but not joined: ${busy.map((a) => `${a._id} (${a.state === 'running' ? `busy with run ${a.runId ?? '?'}` : a.state})`).join(', ')}`,
      );
    parts.push(
      `start the missing ones with: mongo-bench agent --control-uri ${redactUri(this.options.controlUri)}`,
    );
    return parts.join('; ');
  }
}

/** A measurement's instants (outages, window; epoch ms) moved by `shiftMs`: an agent's clock onto the coordinator's. */
export function shiftClock(m: StepMeasurement, shiftMs: number): StepMeasurement {
  if (shiftMs === 0) return m;
  const at = (t: number) => t + shiftMs;
  return {
    ...m,
    ...(m.outages
      ? {
          outages: m.outages.map((o) => ({
            ...o,
            start: at(o.start),
            ...(o.end !== undefined ? { end: at(o.end) } : {}),
          })),
        }
      : {}),
    ...(m.window ? { window: { start: at(m.window.start), end: at(m.window.end) } } : {}),
  };
}

function isFinal(state: MeasurementDoc['state'] | undefined): boolean {
  return state === 'done' || state === 'failed';
}

function agentInfo(name: string, doc: AgentDoc | undefined): AgentInfo {
  return {
    name,
    host: doc?.host ?? '?',
    cores: doc?.cores ?? 0,
    version: doc?.version ?? '?',
    clockOffsetMs: doc?.clockOffsetMs ?? 0,
    clockRttMs: doc?.clockRttMs ?? 0,
  };
}

/**
 * The agents' last progress, summed into the run's one tick a second (for the progress display and the
 * metrics). Once every agent is done, what came after the last tick goes out as the final tick.
 */
export class ProgressTicks {
  private last = '';
  private previous = { reads: 0, writes: 0, errors: 0 };
  private previousLatency: TickLatencyDelta | undefined;
  private ended = false;
  constructor(private readonly emit: (tick: TickEvent) => void) {}

  update(docs: (MeasurementDoc | undefined)[]): void {
    const progress = docs.map((d) => d?.progress);
    if (this.ended || progress.some((p) => p === undefined)) return;
    const final = docs.every((d) => isFinal(d?.state));
    const slowest = progress.reduce((a, b) => (rank(b!) < rank(a!) ? b : a))!;
    const key = `${slowest.phase}:${slowest.second}`;
    if (key === this.last && !final) return;
    this.last = key;
    const measured = { reads: 0, writes: 0, errors: 0 };
    let latencySum: TickLatencyDelta | undefined;
    for (const p of progress) {
      measured.reads += p!.measured.reads;
      measured.writes += p!.measured.writes;
      measured.errors += p!.measured.errors;
      latencySum = addTickLatency(latencySum, p!.latency);
    }
    const delta = (key: keyof typeof measured) => Math.max(0, measured[key] - this.previous[key]);
    const tick: TickEvent = {
      phase: slowest.phase,
      second: slowest.second,
      reads: delta('reads'),
      writes: delta('writes'),
      errors: delta('errors'),
      measured,
    };
    const latency = subtractTickLatency(latencySum, this.previousLatency);
    if (latency) tick.latency = latency;
    this.previous = measured;
    this.previousLatency = latencySum;
    if (final) {
      this.ended = true;
      if (tick.reads + tick.writes + tick.errors === 0 && !latency) return;
      tick.final = true;
    }
    this.emit(tick);
  }
}

function rank(p: { phase: string; second: number }): number {
  return (p.phase === 'measure' ? 1e6 : 0) + p.second;
}
