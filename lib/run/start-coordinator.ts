/**
 * Before a run through agents: open the control database, publish the run and wait for the agents.
 * Resolves with the coordinator (the run's StepExecutor for agents), or undefined when interrupted while
 * waiting; a missing agent is a RunError naming who is missing. Nothing is measured before this.
 */
import { RunPlan } from './options/run-plan';
import { Coordinator } from '../agents/coordinator';
import { AgentRunOptions } from '../agents/options';
import { buildRunSpec } from '../agents/run-spec';
import { Target } from '../server/target';
import { dropUndefined, messageOf } from '../common/values';
import { workloadWrites } from '../workload/engine/write-handles';

export async function startCoordinator(
  options: AgentRunOptions,
  plan: Pick<RunPlan, 'benchmark' | 'writePlan'>,
  target: Target,
  io: { signal: AbortSignal; note: (text: string) => void },
): Promise<Coordinator | undefined> {
  // The control server's credentials: the run's own when it is the target; else those in --control-uri.
  const coordinator = await Coordinator.open({
    ...options,
    ...(options.controlUri === target.uri ? { clientOptions: target.clientOptions } : {}),
  });
  try {
    const b = plan.benchmark;
    const runId = await coordinator.publish(
      buildRunSpec({
        uri: target.uri,
        workload: {
          ops: b.workload.ops,
          ns: b.ns,
          ...(b.writeConcern ? { writeConcern: b.writeConcern } : {}),
          // The run's write plan: checked (lib/run/write-check.ts) before the first step is published, and
          // enforced where each agent binds the ops.
          writes: workloadWrites(plan.writePlan),
        },
        serverSelectionTimeoutMS: b.serverSelectionTimeoutMS,
        ...dropUndefined({ opTimeoutMS: b.opTimeoutMS, driver: b.driver }),
        lostAfterMs: options.lostAfterMs,
        label: b.label,
      }),
    );
    io.note(
      `agents: run ${runId} published in ${options.controlDb}; waiting up to ${Math.round(options.waitMs / 1000)} s for ${options.agents} agent${options.agents === 1 ? '' : 's'} (coordinator clock offset ${coordinator.clock.offsetMs} ms)`,
    );
    if (!(await coordinator.waitForAgents(io.signal))) {
      await coordinator.end('cancelled', 'interrupted while waiting for agents');
      await coordinator.close();
      return undefined;
    }
    io.note(
      `agents: ${coordinator
        .agents()
        .map((a) => `${a.name} (${a.host}, ${a.cores} cores, clock offset ${a.clockOffsetMs} ms)`)
        .join(', ')}`,
    );
    return coordinator;
  } catch (err) {
    await coordinator.end('failed', messageOf(err));
    await coordinator.close();
    throw err;
  }
}
