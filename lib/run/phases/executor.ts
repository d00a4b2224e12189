/**
 * Where every step's clients run, chosen once: the StepExecutor given (agents), else this process
 * (one loop, or worker threads by the step's client count and --workers).
 */
import { bindWorkload } from '../../workload/engine/compile-ops';
import {
  localStepExecutor,
  singleLoopExecutor,
  workerThreadsExecutor,
} from '../../workload/engine/local-executors';
import { workersForStep } from '../../workload/engine/parallel-step';
import type { StepExecutor } from '../../workload/engine/step-executor';
import type { SweepState } from './state';

export function chooseExecutor(state: SweepState): StepExecutor {
  const { options, client, server, prepared, writes } = state;
  // Bound to what the checked write plan allows (a write outside it throws here, before it is sent).
  const ops = bindWorkload(prepared, client, { writes, maxTimeMS: options.opTimeoutMS });
  return (
    state.hooks.stepExecutor ??
    localStepExecutor(
      singleLoopExecutor(client, ops, prepared.scope),
      workerThreadsExecutor(
        {
          uri: server.uri,
          clientOptions: server.clientOptions,
          workload: {
            ops: options.workload.ops,
            ns: options.ns,
            writeConcern: options.writeConcern,
            writes,
          },
          serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
          opTimeoutMS: options.opTimeoutMS,
        },
        (clients) => workersForStep(clients, options.workers ?? 'auto'),
      ),
      options.workers ?? 'auto',
    )
  );
}
