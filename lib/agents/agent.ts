/**
 * `mongo-bench agent`: one load machine's loop. It registers in the control database (name, host,
 * cores, version) and heartbeats every second; it claims an open run of its own version whose spec
 * arrived whole (sha256), runs its share of every step the coordinator publishes, and then waits for
 * the next run, until it is stopped (or after one run with --once). It reads nothing from the control
 * database but plans: the target's credentials come from its own environment.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { MongoClient, MongoClientOptions } from 'mongodb';
import { RunError } from '../config/errors';
import { claimRole } from '../server/role-check';
import { availableCores } from '../metrics/client-load';
import { redactUri } from '../security/redact';
import { toolInfo } from '../common/version';
import { runShare } from './agent-step';
import { uriTarget } from '../server/target';
import { ClockOffset, measureClockOffset, serverNowMs } from './clock';
import {
  AgentDoc,
  ControlCollections,
  controlCollections,
  controlRole,
  DEFAULT_CONTROL_DB,
  ensureControlIndexes,
  HEARTBEAT_MS,
  RunDoc,
  stepId,
} from './control';
import { ageMs, sleep } from './poll';
import { parseSpec, RunSpec } from './run-spec';
import { counted, messageOf } from '../common/values';
import { clientTimeouts } from '../common/client-timeouts';

export interface AgentOptions {
  controlUri: string;
  controlDb?: string;
  name: string;
  /** Run one run, then exit. */
  once?: boolean;
  /** Worker threads for this agent's share of each step (default 'auto'). */
  workers?: number | 'auto';
  /** The target as this machine reaches it, instead of the URI the coordinator published. */
  targetUri?: string;
  /** Credentials and TLS for the target (from this agent's own flags and environment). */
  clientOptions?: MongoClientOptions;
  signal: AbortSignal;
  log: (line: string) => void;
  /** How often to look for a run, and for the next step (default 500 ms / 100 ms). */
  idlePollMs?: number;
  stepPollMs?: number;
}

export interface AgentSummary {
  runs: number;
  /** A step was running when the agent was stopped. */
  interruptedStep: boolean;
}

/** How long an agent of the same name must have been silent before this one may take its name. */
const NAME_TAKEN_FOR_MS = 10_000;

export async function runAgent(options: AgentOptions): Promise<AgentSummary> {
  const client = new MongoClient(options.controlUri, clientTimeouts());
  try {
    try {
      await client.connect();
    } catch (err) {
      throw new RunError(
        `option --control-uri: cannot reach the control database at ${redactUri(options.controlUri)}: ${redactUri(messageOf(err))}`,
      );
    }
    const control = controlCollections(client, options.controlDb ?? DEFAULT_CONTROL_DB);
    // Absent, empty or already a control database (then marked one), never a user's: before any write.
    await claimRole(client, controlRole(control.db.databaseName, options.controlUri));
    await ensureControlIndexes(control);
    const agent = new Agent(control, options, await measureClockOffset(control.db));
    return await agent.serve();
  } finally {
    await client.close().catch(() => undefined);
  }
}

class Agent {
  private readonly instance = randomBytes(8).toString('hex');
  private readonly version = toolInfo().version;
  private state: AgentDoc['state'] = 'idle';
  private runId: string | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly refused = new Set<string>();

  constructor(
    private readonly control: ControlCollections,
    private readonly options: AgentOptions,
    private clock: ClockOffset,
  ) {}

  async serve(): Promise<AgentSummary> {
    const { signal, log } = this.options;
    await this.register();
    log(
      `agent ${this.options.name} (mongo-bench ${this.version}, ${availableCores()} cores) registered in ${this.control.db.databaseName}; clock offset to the control server ${this.clock.offsetMs} ms (round trip ${this.clock.rttMs} ms); waiting for a run`,
    );
    const summary: AgentSummary = { runs: 0, interruptedStep: false };
    try {
      while (!signal.aborted) {
        const found = await this.nextRun();
        if (!found) {
          await sleep(this.options.idlePollMs ?? 500, signal);
          continue;
        }
        const outcome = await this.follow(found.run, found.spec);
        summary.runs++;
        if (outcome === 'interrupted') summary.interruptedStep = true;
        if (this.options.once) break;
        if (!signal.aborted) log('waiting for the next run');
      }
    } finally {
      clearInterval(this.heartbeat);
      await this.control.agents
        .deleteOne({ _id: this.options.name, instance: this.instance })
        .catch(() => undefined);
    }
    return summary;
  }

  private async register(): Promise<void> {
    const name = this.options.name;
    const existing = await this.control.agents.findOne({ _id: name });
    const age = ageMs(existing?.heartbeatAt, serverNowMs(this.clock));
    if (existing && age < NAME_TAKEN_FOR_MS) {
      throw new RunError(
        `option --name: an agent named "${name}" is already running (host ${existing.host}, pid ${existing.pid}, last heartbeat ${Math.round(age / 100) / 10} s ago): give this one another --name`,
      );
    }
    await this.beat();
    this.heartbeat = setInterval(() => void this.beat().catch(() => undefined), HEARTBEAT_MS);
  }

  private beat() {
    return this.control.agents.updateOne(
      { _id: this.options.name },
      {
        $set: {
          instance: this.instance,
          host: hostname(),
          pid: process.pid,
          cores: availableCores(),
          version: this.version,
          state: this.state,
          ...(this.runId ? { runId: this.runId } : {}),
          clockOffsetMs: this.clock.offsetMs,
          clockRttMs: this.clock.rttMs,
        },
        $currentDate: { heartbeatAt: true, touchedAt: true },
      },
      { upsert: true },
    );
  }

  /** The oldest open run this agent may take, claimed atomically; refusals are said once per run. */
  private async nextRun(): Promise<{ run: RunDoc; spec: RunSpec } | undefined> {
    const name = this.options.name;
    const open = await this.control.runs
      .find({ status: 'open', openSlots: { $gt: 0 }, joined: { $ne: name } })
      .sort({ createdAt: 1 })
      .limit(10)
      .toArray();
    for (const run of open) {
      if (this.refused.has(run._id)) continue;
      const parsed = parseSpec(run.spec, run.specSha256);
      if (run.version !== this.version) {
        await this.refuse(
          run,
          `version ${this.version}, the coordinator's is ${run.version}: run the same mongo-bench version on every machine`,
        );
        continue;
      }
      if ('error' in parsed) {
        await this.refuse(run, parsed.error);
        continue;
      }
      // A coordinator that went silent left this run behind: not worth joining.
      if (ageMs(run.heartbeatAt, serverNowMs(this.clock)) > parsed.spec.lostAfterMs) continue;
      // Measured now, for this run: a clock may have drifted since the agent started.
      this.clock = await measureClockOffset(this.control.db);
      await this.beat();
      const claimed = await this.control.runs.findOneAndUpdate(
        { _id: run._id, status: 'open', openSlots: { $gt: 0 }, joined: { $ne: name } },
        { $inc: { openSlots: -1 }, $push: { joined: name }, $currentDate: { touchedAt: true } },
        { returnDocument: 'after' },
      );
      if (claimed) return { run: claimed, spec: parsed.spec };
    }
    return undefined;
  }

  private async refuse(run: RunDoc, reason: string): Promise<void> {
    this.refused.add(run._id);
    this.options.log(`refusing run ${run._id}: ${reason}`);
    await this.control.runs
      .updateOne(
        { _id: run._id },
        {
          $push: { refused: { agent: this.options.name, reason } },
          $currentDate: { touchedAt: true },
        },
      )
      .catch(() => undefined);
  }

  /** Runs this agent's share of each step of the run until the run ends. */
  private async follow(run: RunDoc, spec: RunSpec): Promise<'ended' | 'interrupted'> {
    const { log, signal } = this.options;
    this.state = 'running';
    this.runId = run._id;
    await this.beat().catch(() => undefined);
    // The target as this machine reaches it, with this agent's own credentials and TLS.
    const target = uriTarget(this.options.targetUri ?? spec.targetUri, this.options.clientOptions);
    log(`joined run ${run._id} (${spec.label}) against ${redactUri(target.uri)}`);
    const stepPollMs = this.options.stepPollMs ?? 100;
    const runIsOn = async () => {
      const doc = await this.control.runs.findOne(
        { _id: run._id },
        { projection: { status: 1, heartbeatAt: 1 } },
      );
      return (
        doc !== null &&
        (doc.status === 'open' || doc.status === 'running') &&
        ageMs(doc.heartbeatAt, serverNowMs(this.clock)) <= spec.lostAfterMs
      );
    };
    try {
      for (let seq = 1; ;) {
        if (signal.aborted) return 'ended';
        const step = await this.control.steps.findOne({ _id: stepId(run._id, seq) });
        if (!step) {
          if (!(await runIsOn())) {
            const doc = await this.control.runs.findOne({ _id: run._id });
            log(
              `run ${run._id} ended: ${doc ? `${doc.status}${doc.reason ? ` (${doc.reason})` : ''}` : 'its document is gone'}${doc && (doc.status === 'open' || doc.status === 'running') ? '; the coordinator went silent' : ''}`,
            );
            return 'ended';
          }
          await sleep(stepPollMs, signal);
          continue;
        }
        seq++;
        const share = step.shares.find((s) => s.agent === this.options.name);
        if (!share || share.count === 0 || step.state === 'stop') continue;
        log(
          `step ${step.seq}: ${counted(step.clients, 'client')} (trial ${step.trial}), this agent runs clients ${share.first}..${share.first + share.count - 1}`,
        );
        const result = await runShare(
          {
            control: this.control,
            runId: run._id,
            agent: this.options.name,
            spec,
            target,
            clock: this.clock,
            workers: this.options.workers ?? 'auto',
            signal,
            runIsOn,
            pollMs: stepPollMs,
          },
          step,
          share,
        );
        log(`step ${step.seq}: ${result}`);
        if (signal.aborted) return 'interrupted';
      }
    } finally {
      this.state = 'idle';
      this.runId = undefined;
      await this.beat().catch(() => undefined);
    }
  }
}
