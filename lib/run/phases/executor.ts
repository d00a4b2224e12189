/**
 * Where every step's clients run, chosen once: the StepExecutor given (agents), else this process
 * (one loop, or worker threads by the step's client count and --workers), through --driver's client.
 */
import { bindWorkload } from '../../workload/engine/compile-ops';
import {
  localStepExecutor,
  singleLoopExecutor,
  wireLoopExecutor,
  workerThreadsExecutor,
} from '../../workload/engine/local-executors';
import { openEngineClient } from '../../workload/engine/op-client';
import type { OpClient } from '../../workload/engine/write-handles';
import { workersForStep } from '../../workload/engine/parallel-step';
import type { StepExecutor } from '../../workload/engine/step-executor';
import type { SweepState } from './state';

export function chooseExecutor(state: SweepState): StepExecutor {
  const { options, client, server, prepared, writes } = state;
  const driver = options.driver ?? 'node';
  // Bound to what the checked write plan allows (a write outside it throws here, before it is sent).
  const bind = (to: OpClient) =>
    bindWorkload(prepared, to, { writes, maxTimeMS: options.opTimeoutMS });
  const loop =
    driver === 'wire'
      ? wireLoopExecutor(
          (clients) =>
            openEngineClient('wire', server.uri, {
              serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
              maxClients: clients,
              clientOptions: server.clientOptions,
              opTimeoutMS: options.opTimeoutMS,
            }),
          bind,
          prepared.scope,
        )
      : singleLoopExecutor(client, bind(client), prepared.scope);
  return (
    state.hooks.stepExecutor ??
    localStepExecutor(
      loop,
      workerThreadsExecutor(
        {
          uri: server.uri,
          driver,
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
