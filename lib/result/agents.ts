/** What a run through agents adds to the result document: who ran it, and each agent's part of each step. */
import { z } from 'zod';
import { clientLoadSchema, latencySummarySchema, opTotalsSchema } from './latency';

export const agentInfoSchema = z.object({
  name: z.string(),
  host: z.string(),
  cores: z.number(),
  version: z.string(),
  /** Control server's clock minus the agent's (ms), as measured when it joined, and that sample's round trip. */
  clockOffsetMs: z.number(),
  clockRttMs: z.number(),
});
export type AgentInfo = z.infer<typeof agentInfoSchema>;

/** The result document's `agents` entry. */
export const agentsSectionSchema = z.object({
  /** Credentials removed. */
  controlUri: z.string(),
  controlDb: z.string(),
  runId: z.string(),
  /** The coordinator's own offset to the control server (it sets the start instants on that clock). */
  coordinatorClockOffsetMs: z.number(),
  agents: z.array(agentInfoSchema),
});
export type AgentsSection = z.infer<typeof agentsSectionSchema>;

/** One agent's part of one trial of a step (StepResult's `agents`). */
export const agentStepFiguresSchema = z.object({
  agent: z.string(),
  /** Trial (1-based) when the step ran several. */
  trial: z.number().int().positive().optional(),
  /** Its clients: indexes first .. first + count - 1. */
  first: z.number().int(),
  count: z.number().int(),
  /** lost: it stopped heartbeating mid-step; its figures are only its last progress report. */
  status: z.enum(['ok', 'interrupted', 'failed', 'lost']),
  error: z.string().optional(),
  ops: opTotalsSchema,
  opsPerSec: z.number(),
  latencyMicros: z.object({ reads: latencySummarySchema, writes: latencySummarySchema }).optional(),
  clientBound: z.boolean().optional(),
  client: clientLoadSchema.optional(),
});
export type AgentStepFigures = z.infer<typeof agentStepFiguresSchema>;
