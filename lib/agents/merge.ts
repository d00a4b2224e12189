/**
 * One step run by several agents becomes one measurement, exactly as worker threads' do: the same
 * codec brought the agents' measurements here, and the same merge (mergeConcurrentMeasurements)
 * adds counts, histograms, per-second buckets (aligned: every agent started at one instant of the
 * control server's clock) and errors. An agent that vanished mid-step fails the step, and what it
 * last reported is kept in its per-agent figures rather than dropped.
 */
import { ClientLoad, isClientBound, round1 } from '../metrics/client-load';
import { emptyMeasurement } from '../metrics/empty-measurement';
import { StepMeasurement } from '../metrics/measurement';
import { mergeConcurrentMeasurements } from '../metrics/merge-measurements';
import { AgentStepFigures } from '../result';
import { AgentShare } from './shares';
import { StepProgress } from './control';
import { dropUndefined } from '../common/values';

export type AgentOutcome =
  | { share: AgentShare; state: 'done'; measurement: StepMeasurement }
  | { share: AgentShare; state: 'failed' | 'lost'; error: string; progress?: StepProgress };

export interface MergedAgentsStep {
  measurement: StepMeasurement;
  /** Set when an agent failed or was lost: the step is failed, and kept. */
  failure?: string;
  figures: AgentStepFigures[];
}

export function mergeAgentOutcomes(
  outcomes: AgentOutcome[],
  plan: { clients: number; seconds: number },
  trial?: number,
): MergedAgentsStep {
  const finished = outcomes.filter(
    (o): o is Extract<AgentOutcome, { state: 'done' }> => o.state === 'done',
  );
  const measurement =
    finished.length > 0
      ? mergeConcurrentMeasurements(finished.map((o) => o.measurement))
      : emptyMeasurement(plan);
  const loads = finished.flatMap((o) => (o.measurement.client ? [o.measurement.client] : []));
  if (loads.length > 0) measurement.client = combinedLoad(loads);
  const problems = outcomes
    .filter((o) => o.state !== 'done')
    .map((o) => `agent ${o.share.agent}: ${(o as { error: string }).error}`);
  const figures = outcomes.map((o) => figuresOf(o, trial));
  return { measurement, figures, ...(problems.length > 0 ? { failure: problems.join('; ') } : {}) };
}

/** Every agent's event loops side by side: the step is client-bound when any one was. */
function combinedLoad(loads: ClientLoad[]): ClientLoad {
  return {
    workers: loads.reduce((s, l) => s + l.workers, 0),
    eventLoopUtilization: loads.flatMap((l) => l.eventLoopUtilization),
    // Side by side with the loops above: an agent whose loops never polled reads 0 for each.
    ...(loads.some((l) => l.pollingUtilization)
      ? {
          pollingUtilization: loads.flatMap(
            (l) => l.pollingUtilization ?? l.eventLoopUtilization.map(() => 0),
          ),
        }
      : {}),
    cpuPercent: round1(loads.reduce((s, l) => s + l.cpuPercent, 0)),
    cores: loads.reduce((s, l) => s + l.cores, 0),
  };
}

function figuresOf(o: AgentOutcome, trial: number | undefined): AgentStepFigures {
  const base = {
    agent: o.share.agent,
    ...dropUndefined({ trial }),
    first: o.share.first,
    count: o.share.count,
  };
  if (o.state !== 'done') {
    const measured = o.progress?.measured ?? { reads: 0, writes: 0, errors: 0 };
    return { ...base, status: o.state, error: o.error, ops: { ...measured }, opsPerSec: 0 };
  }
  const m = o.measurement;
  return {
    ...base,
    status: m.interrupted
      ? 'interrupted'
      : m.lostServer !== undefined || m.cut !== undefined
        ? 'failed'
        : 'ok',
    ops: { reads: m.reads, writes: m.writes, errors: m.errors },
    opsPerSec: m.elapsedSeconds > 0 ? round1((m.reads + m.writes) / m.elapsedSeconds) : 0,
    latencyMicros: { reads: m.latency.reads.summary(), writes: m.latency.writes.summary() },
    ...(m.client ? { clientBound: isClientBound(m.client), client: m.client } : {}),
  };
}
