/**
 * One way to run a step: runBenchmark hands a StepExecutor the step's plan and gets back one merged
 * measurement. Three executors exist: this thread's event loop and worker threads (./local-executors.ts),
 * and agents on other machines (lib/agents/coordinator.ts). The run picks one once (agents or local);
 * the local one picks loop or threads per step, as --workers auto sizes threads by the step's clients.
 */
import type { ResultDocument, StepResult } from '../../result';
import type { StepMeasurement } from '../../metrics/measurement';
import type { StepCallbacks, StepPlan } from './engine';

export interface StepOutcome {
  measurement: StepMeasurement;
  /** Why the step failed although it measured something (an agent lost mid-step). */
  failure?: string;
}

export interface StepExecutorCallbacks extends StepCallbacks {
  /**
   * The instant (this thread's performance.now()) the measured window opens, once it is set; given
   * when the servers are sampled, so the sampler reads them exactly then.
   */
  onWindowOpen?: (atMs: number) => void;
}

export interface StepExecutor {
  /** Adds what the run's result should say about where its clients ran. */
  describeRun?(result: ResultDocument): void;
  runStep(plan: StepPlan, trial: number, callbacks: StepExecutorCallbacks): Promise<StepOutcome>;
  /** Adds the per-executor figures of the trials run since the last call to the step's result. */
  describeStep?(step: StepResult): void;
}
