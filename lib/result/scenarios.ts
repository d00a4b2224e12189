/**
 * The result document's `scenarios` (absent in a run without them): several named workloads run at
 * once on one clock, each with its own steps, and the background events they triggered. The run's
 * own `steps` then hold one step: all scenarios together, second by second on the shared clock.
 */
import { z } from 'zod';
import { stepResultSchema } from './steps';

/** One background event (an index build, the balancer stopped or started, a step-down) and how it went. */
export const scenarioEventSchema = z.object({
  /** createIndex, stopBalancer, startBalancer, stepDown. */
  action: z.string(),
  /** When it was planned, in seconds since the run's clock began (the scenario's start + its `at`). */
  at: z.number(),
  /** When it was sent and when the server answered (or failed), seconds since the run's clock began; absent: never sent (the run stopped first). */
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  ok: z.boolean(),
  /** The server's or the driver's message when it failed. */
  error: z.string().optional(),
  /** The command as sent, e.g. {"createIndexes":"docs","indexes":[...]}. */
  command: z.record(z.string(), z.unknown()).optional(),
});
export type ScenarioEvent = z.infer<typeof scenarioEventSchema>;

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
