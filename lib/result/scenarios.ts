/**
 * The result document's `scenarios` (absent in a run without them): several named workloads run at
 * once on one clock, each with its own steps, and the background events they triggered. The run's
 * own `steps` then hold one step: all scenarios together, second by second on the shared clock.
 */
import { z } from 'zod';
import { stepResultSchema } from './steps';
import { scenarioEventSchema } from './events';

/** A scenario's step: a StepResult plus where its window opened on the run's clock. */
export const scenarioStepSchema = stepResultSchema.extend({
  /** Seconds since the run's clock began when this step's measured window opened. */
  startSecond: z.number(),
  /**
   * Seconds its clients began after the window opened, when the step before it in the same scenario
   * still waited for a slow op: the step kept its place on the clock and measured that much less.
   */
  startedLateBy: z.number().optional(),
});
export type ScenarioStep = z.infer<typeof scenarioStepSchema>;

export const scenarioResultSchema = z.object({
  name: z.string(),
  workload: z.object({ name: z.string(), ops: z.array(z.unknown()) }),
  /** Closed model: the client count of each step (one number, or a sweep). */
  clients: z.array(z.number().int().positive()).optional(),
  /** Open model: the arrival rate as scheduled (constant ops/s or stages). */
  rate: z.unknown().optional(),
  /** Seconds after the run's clock began that the scenario started. */
  start: z.number(),
  /** Measured seconds of each step. */
  duration: z.number(),
  steps: z.array(scenarioStepSchema),
  events: z.array(scenarioEventSchema).optional(),
});
export type ScenarioResult = z.infer<typeof scenarioResultSchema>;
