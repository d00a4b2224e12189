/**
 * A fault or background event and how it went: a scenario's (`scenarios[].events`, on the run's clock)
 * or the run's own (`steps[].events`, on the step's measured window, one record per trial). It says what
 * was done: `command` for a server command, `proxy` and `toxic` for a network fault through Toxiproxy.
 */
import { z } from 'zod';

export const scenarioEventSchema = z.object({
  /** createIndex, stopBalancer, startBalancer, stepDown, freeze, proxyDown, toxic. */
  action: z.string(),
  /**
   * When it was planned: a scenario's, in seconds since the run's clock began (the scenario's start + its
   * `at`); the run's, in seconds since the step's measured window opened.
   */
  at: z.number(),
  /** The run's events: the trial it fired in (1, 2, ...). */
  trial: z.number().int().positive().optional(),
  /**
   * When it was sent and when it ended, on the same clock as `at`: a command's answer (or failure); a
   * fault's end, once undone (after `for`, else at the step's or the scenarios' end, or when the run was
   * interrupted). Absent: never sent (the run stopped first).
   */
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  ok: z.boolean(),
  /** The server's, the driver's or Toxiproxy's message when it failed. */
  error: z.string().optional(),
  /** The command as sent, e.g. {"createIndexes":"docs","indexes":[...]}. */
  command: z.record(z.string(), z.unknown()).optional(),
  /** The Toxiproxy proxy a network fault changed (proxyDown: disabled; toxic: a toxic added to it). */
  proxy: z.string().optional(),
  /** The toxic added (its name is mongo-bench-<run id>-<n>), as sent to Toxiproxy. */
  toxic: z
    .object({
      name: z.string(),
      type: z.string(),
      stream: z.string(),
      toxicity: z.number(),
      attributes: z.record(z.string(), z.unknown()),
    })
    .optional(),
  /** Seconds the fault was to last (`for`); absent: until the step's end. */
  for: z.number().optional(),
  /** How the fault was undone (the proxy enabled again, the toxic removed, replSetFreeze: 0), or why it could not be. */
  undo: z.object({ ok: z.boolean(), what: z.string(), error: z.string().optional() }).optional(),
});
export type ScenarioEvent = z.infer<typeof scenarioEventSchema>;
