/**
 * The seam through which a step's clients can run somewhere else than this process (lib/agents:
 * other machines, coordinated through a control database). runBenchmark hands over the step's plan
 * and gets back one merged measurement, plus a failure that keeps the step (partial figures) rather
 * than dropping it.
 */
import type { ResultDocument, StepResult } from '../result';
import type { StepMeasurement } from '../metrics/measurement';
import type { StepCallbacks, StepPlan } from './engine';

export interface RemoteStepOutcome {
  measurement: StepMeasurement;
  /** Why the step failed although it measured something (an agent lost mid-step). */
  failure?: string;
}

export interface RemoteStepRunner {
  /** Adds what the run's result should say about where its clients ran. */
  describeRun(result: ResultDocument): void;
  /** onWindowOpen: the instant (this thread's performance.now()) the measured window opens, once it is set. */
  runStep(plan: StepPlan, trial: number, callbacks: StepCallbacks & { onWindowOpen?: (atMs: number) => void }): Promise<RemoteStepOutcome>;
  /** Adds the per-runner figures of the trials run since the last call to the step's result. */
  describeStep(step: StepResult): void;
}
