/**
 * Runs a config's `scenarios` at once on one connection and one clock. Every scenario's steps are
 * placed on the run's clock (t0): step i of a scenario opens at t0 + start + i * duration seconds, so
 * the per-second buckets of all scenarios line up. There is no warm-up: what runs beside what is
 * the point. The scenarios' events are sent at their times meanwhile. The result keeps each
 * scenario's steps under its name; the run's `steps` get one step, all scenarios together, second by
 * second on the same clock (what the server saw), checked against the servers' own counts.
 */
import { annotateResult } from '../../metrics/warnings';
import { addAvailability } from '../outages';
import type { MongoClient } from 'mongodb';
import { ResultDocument, ScenarioEvent, ScenarioResult, StepResult } from '../../result';
import { StepMeasurement } from '../../metrics/measurement';
import { mergeConcurrentMeasurements } from '../../metrics/merge-measurements';
import { summarizeStep } from '../../workload/engine/op-figures';
import { redactUri } from '../../security/redact';
import { bindWorkload } from '../../workload/engine/compile-ops';
import type { OpClient } from '../../workload/engine/write-handles';
import type { WriteScope } from '../../workload/engine/write-handles';
import { runStep, StepPlan } from '../../workload/engine/engine';
import type { ServerStatsRecorder } from '../../server-stats/recorder';
import { checkStep, checkWarning, WorkloadCounting } from '../../server-stats/consistency';
import { addBestVerdicts, addStepVerdicts } from '../../slo/check';
import { runBackgroundEvent } from './background-events';
import type { FaultContext } from './faults';
import type { BenchmarkEvent } from '../events';
import type { RunOptions } from '../options/run-options';
import {
  compileScenario,
  RATE_SCENARIO_CLIENTS,
  ScenarioSpec,
  scenarioSeconds,
} from './scenario-spec';
import { counted, messageOf } from '../../common/values';
import { readStorage } from '../../server/storage-stats';

/** The clock starts this long after the scenarios are bound, so every scenario's first step opens on it. */
const CLOCK_LEAD_MS = 200;

/** A step whose clients begin this much after its window opened is marked as started late. */
const LATE_START_MS = 50;

export interface ScenarioRunContext {
  client: MongoClient;
  /** What the scenarios' ops go through (--driver): the run's own client (node), or a wire client. */
  opClient?: OpClient;
  options: RunOptions & { scenarios: ScenarioSpec[] };
  result: ResultDocument;
  signal?: AbortSignal;
  emit: (event: BenchmarkEvent) => void;
  /** Writes results.json (the result so far). */
  save: () => Promise<void>;
  onStepComplete?: (resultSoFar: ResultDocument) => void | Promise<void>;
  serverStats?: ServerStatsRecorder;
  counting: WorkloadCounting;
  /** What the scenarios' ops may write: the run's checked write plan (it lists every scenario's writes). */
  writes: WriteScope;
  /** The run's faults (Toxiproxy, the keeper of undos): a fault without `for` lasts to the scenarios' end. */
  faults?: Omit<FaultContext, 'until'>;
}

/** A scenario's step moved onto the run's clock: `offset` empty seconds in front. */
function onRunClock(m: StepMeasurement, offset: number): StepMeasurement {
  const pad = (a: number[]) => [...new Array<number>(offset).fill(0), ...a];
  return {
    ...m,
    seconds: offset + m.seconds,
    elapsedSeconds: offset + m.elapsedSeconds,
    ...(m.windowSeconds !== undefined ? { windowSeconds: offset + m.windowSeconds } : {}),
    perSecond: {
      reads: pad(m.perSecond.reads),
      writes: pad(m.perSecond.writes),
      errors: pad(m.perSecond.errors),
    },
  };
}

/** Runs every scenario to its end (or until the signal); returns why the run is incomplete, if it is. */
export async function runScenarios(ctx: ScenarioRunContext): Promise<string | undefined> {
  const { client, options, result, signal, emit } = ctx;
  const specs = options.scenarios;
  const bound = specs.map((spec, i) => {
    const prepared = compileScenario(spec, `scenarios[${i}]`, options.writeConcern);
    return {
      spec,
      prepared,
      ops: bindWorkload(prepared, ctx.opClient ?? client, {
        writes: ctx.writes,
        maxTimeMS: options.opTimeoutMS,
      }),
    };
  });
  const sections: ScenarioResult[] = specs.map((spec) => ({
    name: spec.name,
    workload: { name: spec.workload.name, ops: spec.workload.ops },
    ...(spec.clients ? { clients: spec.clients } : { rate: spec.rate }),
    start: spec.start,
    duration: spec.duration,
    steps: [],
    ...(spec.events.length > 0 ? { events: [] } : {}),
  }));
  result.scenarios = sections;
  const peakClients = specs.reduce(
    (sum, s) => sum + (s.clients ? Math.max(...s.clients) : RATE_SCENARIO_CLIENTS),
    0,
  );
  const overrunLimitMs = options.opTimeoutMS !== undefined ? options.opTimeoutMS + 1000 : undefined;
  const t0 = performance.now() + CLOCK_LEAD_MS;
  const length = Math.max(...specs.map((s) => s.start + scenarioSeconds(s)));
  for (const { name, clients, rate, start, duration } of specs)
    emit({ type: 'scenario', kind: 'planned', scenario: { name, clients, rate, start, duration } });
  emit({ type: 'scenario', kind: 'clock', scenarios: specs.length, seconds: length });
  // One measured window for the servers' side too: from the clock's start to the last scenario's end.
  ctx.serverStats?.windowOpensAt(t0, peakClients, 1);

  const measured: StepMeasurement[] = [];
  const failures: string[] = [];
  const runScenario = async (i: number): Promise<void> => {
    const { spec, prepared, ops } = bound[i];
    const counts = spec.clients ?? [RATE_SCENARIO_CLIENTS];
    for (const [index, clients] of counts.entries()) {
      if (signal?.aborted) return;
      const startSecond = spec.start + index * spec.duration;
      const plan: StepPlan = {
        clients,
        seconds: spec.duration,
        warmupSeconds: 0,
        ...(spec.rate ? { arrival: spec.rate } : {}),
        // Scenarios draw apart: client c of scenario i seeds randomSeed + i * 10007 + c.
        randomSeed: options.randomSeed + i * 10_007,
        overrunLimitMs,
        ...(options.stallMs !== undefined ? { stallMs: options.stallMs } : {}),
        ...(options.arrivals !== undefined ? { arrivals: options.arrivals } : {}),
        startAt: t0 + startSecond * 1000,
      };
      let step: StepResult;
      // A sweep's steps keep their place on the clock; one whose predecessor overran starts late, and says so.
      const lateMs = performance.now() - plan.startAt!;
      try {
        const m = await runStep(ops, prepared.scope, plan, {
          signal,
          onNoAnswer: (since) =>
            emit({ type: 'scenario', kind: 'no-answer', scenario: spec.name, since }),
        });
        if (m.interrupted && m.elapsedSeconds <= 0) return;
        const failure =
          m.cut ??
          (m.lostServer !== undefined ? `lost the server: ${redactUri(m.lostServer)}` : undefined);
        step = summarizeStep(
          [m],
          failure
            ? { status: 'failed', error: failure }
            : m.interrupted
              ? { status: 'interrupted' }
              : {},
        );
        addAvailability(step, [m]);
        measured.push(onRunClock(m, startSecond));
        if (failure)
          failures.push(`scenario ${spec.name}, ${counted(clients, 'client')}: ${failure}`);
      } catch (err) {
        const error = redactUri(messageOf(err));
        failures.push(`scenario ${spec.name}, ${counted(clients, 'client')}: ${error}`);
        emit({ type: 'scenario', kind: 'step-failed', scenario: spec.name, clients, error });
        return;
      }
      sections[i].steps.push({
        ...step,
        startSecond,
        ...(lateMs >= LATE_START_MS ? { startedLateBy: Math.round(lateMs) / 1000 } : {}),
      });
      if (lateMs >= LATE_START_MS)
        emit({
          type: 'scenario',
          kind: 'late-start',
          scenario: spec.name,
          clients,
          lateSeconds: Math.round(lateMs) / 1000,
        });
      emit({
        type: 'scenario',
        kind: 'step-done',
        scenario: spec.name,
        clients,
        step,
        startSecond,
      });
      await ctx.save();
    }
  };
  // The scenarios' end (or the run stopped): faults without `for` are undone then.
  const ended = new AbortController();
  const stop = () => ended.abort();
  signal?.addEventListener('abort', stop, { once: true });
  const faults = ctx.faults ? { ...ctx.faults, until: ended.signal } : undefined;
  const runEvents = async (i: number): Promise<void> => {
    const spec = specs[i];
    await Promise.all(
      spec.events.map(async (event, e) => {
        const done: ScenarioEvent = await runBackgroundEvent(
          client,
          event,
          { t0, atSecond: spec.start + event.at },
          signal,
          faults,
        );
        sections[i].events![e] = done;
        emit({ type: 'scenario', kind: 'event-done', scenario: spec.name, event: done });
      }),
    );
  };
  const events = Promise.all(specs.map((_s, i) => runEvents(i)));
  await Promise.all(specs.map((_s, i) => runScenario(i)));
  ended.abort();
  signal?.removeEventListener('abort', stop);
  await events;
  // Events are listed in their planned order even though they finished in any order.
  for (const section of sections) section.events?.sort((a, b) => a.at - b.at);

  if (measured.length === 0) {
    ctx.serverStats?.cancelOpen();
    return failures.length > 0 ? failures.join('; ') : undefined;
  }
  await ctx.serverStats?.windowClosed();
  const together = summarizeStep(
    [{ ...mergeConcurrentMeasurements(measured), clients: peakClients, seconds: length }],
    failures.length > 0 ? { status: 'failed', error: failures.join('; ') } : {},
  );
  delete together.latencyByOp; // the scenarios' ops arrays differ: an index names no one op here
  addAvailability(together, [mergeConcurrentMeasurements(measured)]);
  // The run's collection (--ns, every scenario's default) on disk, read once the window closed.
  const storage = await readStorage(client, options.ns).catch(() => undefined);
  if (storage) together.storage = storage;
  result.steps = [together];
  if (ctx.serverStats) {
    const check = checkStep(
      together,
      ctx.serverStats.windowsSoFar(),
      ctx.serverStats.processes,
      ctx.counting,
    );
    ctx.serverStats.addCheck(check);
    const warning = checkWarning(check);
    if (warning) emit({ type: 'server-stats', text: `warning: ${warning}` });
  }
  // The objectives (--slo) are judged on all scenarios together, as on any step.
  if (result.slo && options.slo) {
    addStepVerdicts(result.slo, options.slo, together);
    addBestVerdicts(result.slo, options.slo, result.steps);
  }
  annotateResult(result);
  emit({
    type: 'step-done',
    step: together,
    heading: `scenarios ${specs.map((s) => s.name).join(' + ')} together (${together.clients} clients at most)`,
  });
  await ctx.save();
  await ctx.onStepComplete?.(result);
  return failures.length > 0 ? failures.join('; ') : undefined;
}
