/**
 * The StepExecutors that run a step's clients in this process: this thread's event loop (with the
 * run's own MongoClient, as the engine always ran, or with a wire client of its own per step) and
 * worker threads (each with its own client, either driver).
 */
import { performance } from 'node:perf_hooks';
import type { MongoClient, MongoClientOptions } from 'mongodb';
import type { BoundOp } from './compile-ops';
import { runStep, StepPlan } from './engine';
import { runParallelStep, singleLoopLoad, StepWorkload, workersForStep } from './parallel-step';
import type { StepExecutor, StepExecutorCallbacks, StepOutcome } from './step-executor';
import { warmConnections } from '../../server/connect';
import type { TemplateScope } from '../language/template';
import type { Driver, EngineClient } from './op-client';
import type { OpClient } from './write-handles';

/** One event loop: this thread and the run's own client. */
export function singleLoopExecutor(
  client: MongoClient,
  ops: BoundOp[],
  scope: TemplateScope,
): StepExecutor {
  return {
    async runStep(
      plan: StepPlan,
      _trial: number,
      callbacks: StepExecutorCallbacks,
    ): Promise<StepOutcome> {
      await warmConnections(client, plan.clients);
      return runOnThisLoop(ops, scope, plan, callbacks);
    },
  };
}

/**
 * One event loop with the wire client (./op-client.ts): a client of its own per step (connected,
 * a connection per client opened before the window, closed after), the ops bound to it each time.
 */
export function wireLoopExecutor(
  open: (clients: number) => EngineClient,
  bind: (client: OpClient) => BoundOp[],
  scope: TemplateScope,
): StepExecutor {
  return {
    async runStep(
      plan: StepPlan,
      _trial: number,
      callbacks: StepExecutorCallbacks,
    ): Promise<StepOutcome> {
      const engine = open(plan.clients);
      try {
        await engine.connect();
        await engine.warm(plan.clients);
        return await runOnThisLoop(bind(engine.client), scope, plan, callbacks);
      } finally {
        await engine.close().catch(() => undefined);
      }
    },
  };
}

async function runOnThisLoop(
  ops: BoundOp[],
  scope: TemplateScope,
  plan: StepPlan,
  callbacks: StepExecutorCallbacks,
): Promise<StepOutcome> {
  const { onWindowOpen, ...stepCallbacks } = callbacks;
  if (onWindowOpen) {
    // A start instant of our own, so the sampler reads the servers exactly when the window opens.
    plan.startAt = performance.now() + 20;
    onWindowOpen(plan.startAt + plan.warmupSeconds * 1000);
  }
  const measurement = await runStep(ops, scope, plan, stepCallbacks);
  measurement.client = singleLoopLoad(measurement.load);
  return { measurement };
}

export interface WorkerThreadsJob {
  uri: string;
  /** The client each worker's ops go through (./op-client.ts); absent: node. */
  driver?: Driver;
  /** Credentials and TLS (lib/security's toMongoClientOptions). */
  clientOptions?: MongoClientOptions;
  workload: StepWorkload;
  serverSelectionTimeoutMS?: number;
  opTimeoutMS?: number;
}

/** Worker threads, `workers(clients)` of them, each connecting on its own. */
export function workerThreadsExecutor(
  target: WorkerThreadsJob,
  workers: (clients: number) => number,
): StepExecutor {
  return {
    async runStep(
      plan: StepPlan,
      _trial: number,
      callbacks: StepExecutorCallbacks,
    ): Promise<StepOutcome> {
      const { onWindowOpen, ...stepCallbacks } = callbacks;
      const measurement = await runParallelStep(
        { ...target, plan, workers: workers(plan.clients), onWindowOpen },
        stepCallbacks,
      );
      return { measurement };
    },
  };
}

/** In this process: one loop when the step gets one worker (--workers 1, or auto for few clients), threads otherwise. */
export function localStepExecutor(
  loop: StepExecutor,
  threads: StepExecutor,
  requestedWorkers: number | 'auto',
): StepExecutor {
  return {
    runStep: (plan, trial, callbacks) =>
      (workersForStep(plan.clients, requestedWorkers) === 1 ? loop : threads).runStep(
        plan,
        trial,
        callbacks,
      ),
  };
}
