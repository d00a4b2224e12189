/**
 * The result document: the contract between the engine, the report renderer and users' scripts.
 * Versioned; reports are rendered from these files only. Documented in the README. One zod schema
 * per section; the TypeScript types are derived from them, so the validator and the types cannot drift.
 */
import { z } from 'zod';
import { agentsSectionSchema } from './agents';
import { loadMachineSchema, targetSectionSchema } from './metadata';
import { serverSectionSchema } from './server';
import { scenarioResultSchema } from './scenarios';
import { sloSectionSchema } from './slo';
import { stepResultSchema } from './steps';
import { rateProbeSchema } from './rate-probe';

export const RESULT_SCHEMA = 'mongo-bench/result@1' as const;

/** Result schema versions this version of mongo-bench can render. */
export const SUPPORTED_RESULT_SCHEMAS: readonly string[] = [RESULT_SCHEMA];

export const resultDocumentSchema = z.object({
  schema: z.literal(RESULT_SCHEMA),
  tool: z.object({ name: z.string(), version: z.string() }),
  label: z.string(),
  complete: z.boolean(),
  /** Why the run is incomplete (interrupted, failed step, ...). */
  incompleteReason: z.string().optional(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  target: targetSectionSchema,
  /** Where the load came from (absent in results written before it was recorded). */
  environment: z.object({ loadMachine: loadMachineSchema }).optional(),
  /** `tags`: a mongo-perf test's tags (perf-suite). */
  workload: z.object({
    name: z.string(),
    ops: z.array(z.unknown()),
    docSize: z.number().optional(),
    docs: z.number().optional(),
    /** True: the workload's own set-up loaded the data (YCSB's records, a workload file's `setup`, a mongo-perf test's pre()), so no `docSize` applies. */
    ownData: z.boolean().optional(),
    tags: z.array(z.string()).optional(),
  }),
  config: z.record(z.string(), z.unknown()),
  steps: z.array(stepResultSchema),
  /** What each server process did, second by second, and the per-step consistency check (absent: not sampled). */
  server: serverSectionSchema.optional(),
  /** Run through agents (`run --agents N`): the control database, the agents and their clock offsets. */
  agents: agentsSectionSchema.optional(),
  /** Service-level objectives (`run --slo`) and their verdicts per step (absent: none were given). */
  slo: sloSectionSchema.optional(),
  /** `--rate 80%`: the closed probe that measured the maximum, and the rate the steps held (absent otherwise). */
  rateProbe: rateProbeSchema.optional(),
  /** Several workloads at once (a config's `scenarios`): each one's figures under its name; `steps` then holds them all together. */
  scenarios: z.array(scenarioResultSchema).optional(),
});
export type ResultDocument = z.infer<typeof resultDocumentSchema>;
