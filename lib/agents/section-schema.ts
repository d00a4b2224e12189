/** Zod mirror of lib/agents/section.ts, for the result schema (lib/report/result-schema.ts). */
import { z } from 'zod';

const latencySummary = z.object({ avg: z.number(), p50: z.number(), p95: z.number(), p99: z.number(), p999: z.number(), max: z.number(), count: z.number() });

export const agentsSectionSchema = z.object({
  controlUri: z.string(),
  controlDb: z.string(),
  runId: z.string(),
  coordinatorClockOffsetMs: z.number(),
  agents: z.array(
    z.object({ name: z.string(), host: z.string(), cores: z.number(), version: z.string(), clockOffsetMs: z.number(), clockRttMs: z.number() }),
  ),
});

export const agentStepFiguresSchema = z.object({
  agent: z.string(),
  trial: z.number().int().positive().optional(),
  first: z.number().int(),
  count: z.number().int(),
  status: z.enum(['ok', 'interrupted', 'failed', 'lost']),
  error: z.string().optional(),
  ops: z.object({ reads: z.number(), writes: z.number(), errors: z.number() }),
  opsPerSec: z.number(),
  latencyMicros: z.object({ reads: latencySummary, writes: latencySummary }).optional(),
  clientBound: z.boolean().optional(),
  client: z.object({ workers: z.number().int().positive(), eventLoopUtilization: z.array(z.number()), cpuPercent: z.number(), cores: z.number() }).optional(),
});
