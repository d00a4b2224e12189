import { z } from 'zod';
import { RESULT_SCHEMA, ResultDocument } from '../metrics/result';
import { serverSectionSchema } from '../server-stats/section-schema';
import { agentsSectionSchema, agentStepFiguresSchema } from '../agents/section-schema';

/** Result schema versions this version of mongo-bench can render. */
export const SUPPORTED_RESULT_SCHEMAS: readonly string[] = [RESULT_SCHEMA];

const latencySummary = z.object({
  avg: z.number(),
  p50: z.number(),
  p95: z.number(),
  p99: z.number(),
  p999: z.number(),
  max: z.number(),
  count: z.number(),
});

const perSecondSample = z.object({
  t: z.number(),
  reads: z.number(),
  writes: z.number(),
  errors: z.number(),
  trial: z.number().int().positive().optional(),
});

const trialStats = z.object({
  mean: z.number(),
  median: z.number(),
  stdev: z.number(),
  values: z.array(z.number()),
});

const rates = z.object({ total: z.number(), reads: z.number(), writes: z.number() });

const stepResult = z.object({
  clients: z.number().int().positive(),
  seconds: z.number(),
  trials: z.number(),
  status: z.enum(['ok', 'failed', 'interrupted']).optional(),
  error: z.string().optional(),
  ops: z.object({ reads: z.number(), writes: z.number(), errors: z.number() }),
  opsPerSec: rates,
  peakOpsPerSec: rates,
  latencyMicros: z.object({ reads: latencySummary, writes: latencySummary }),
  latencyByOpMicros: z.record(z.string(), latencySummary).optional(),
  trialStats: z.object({ opsPerSec: trialStats }).optional(),
  perSecond: z.array(perSecondSample),
  benchRun: z.record(z.string(), z.number()),
  elapsedSeconds: z.number().optional(),
  overrun: z.object({ reads: z.number(), writes: z.number(), errors: z.number(), seconds: z.number() }).optional(),
  errorSamples: z.array(z.object({ error: z.string(), count: z.number(), example: z.string() })).optional(),
  clientBound: z.boolean().optional(),
  client: z
    .object({
      workers: z.number().int().positive(),
      eventLoopUtilization: z.array(z.number()),
      cpuPercent: z.number(),
      cores: z.number(),
    })
    .optional(),
  agents: z.array(agentStepFiguresSchema).optional(),
  opCounts: z.array(z.number().int().nonnegative()).optional(),
  dataVsCache: z
    .object({
      dataBytes: z.number().optional(),
      storageBytes: z.number().optional(),
      indexBytes: z.number().optional(),
      cacheBytes: z.number().optional(),
      ratio: z.number().optional(),
      unavailable: z.string().optional(),
    })
    .optional(),
});

const sloSection = z.object({
  objectives: z.array(z.string()),
  abortOnFailure: z.boolean(),
  verdicts: z.array(
    z.object({
      clients: z.number(),
      objective: z.string(),
      actual: z.number().nullable(),
      unit: z.string(),
      pass: z.boolean().nullable(),
    }),
  ),
  pass: z.boolean(),
  aborted: z.boolean().optional(),
});

/** Zod mirror of `ResultDocument` (lib/metrics/result.ts); the type checks below keep the two in step. */
export const resultDocumentSchema = z.object({
  schema: z.literal(RESULT_SCHEMA),
  tool: z.object({ name: z.string(), version: z.string() }),
  label: z.string(),
  complete: z.boolean(),
  incompleteReason: z.string().optional(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  target: z.object({
    uri: z.string(),
    serverVersion: z.string().optional(),
    topology: z.string(),
    testDouble: z.boolean().optional(),
    product: z
      .object({
        name: z.string(),
        edition: z.string().optional(),
        version: z.string().optional(),
        reportedMongoDBVersion: z.string().optional(),
        label: z.string(),
        testDouble: z.boolean(),
        evidence: z.array(z.string()),
      })
      .optional(),
    processes: z
      .array(
        z.object({
          host: z.string(),
          version: z.string().optional(),
          gitVersion: z.string().optional(),
          storageEngine: z.string().optional(),
          featureCompatibilityVersion: z.string().optional(),
          cacheBytes: z.number().optional(),
          options: z.record(z.string(), z.unknown()).optional(),
          hostInfo: z.object({ cores: z.number().optional(), memoryMB: z.number().optional(), os: z.string().optional(), cpuArch: z.string().optional() }).optional(),
          unavailable: z.array(z.string()).optional(),
        }),
      )
      .optional(),
    storageEngine: z.string().optional(),
  }),
  environment: z
    .object({
      loadMachine: z.object({
        cpuModel: z.string(),
        cores: z.number(),
        memoryBytes: z.number(),
        os: z.string(),
        node: z.string(),
        driver: z.string(),
        mongoBench: z.string(),
        gitCommit: z.string().optional(),
      }),
    })
    .optional(),
  workload: z.object({
    name: z.string(),
    ops: z.array(z.unknown()),
    docSize: z.number().optional(),
    docs: z.number().optional(),
    tags: z.array(z.string()).optional(),
  }),
  config: z.record(z.string(), z.unknown()),
  steps: z.array(stepResult),
  server: serverSectionSchema.optional(),
  agents: agentsSectionSchema.optional(),
  slo: sloSection.optional(),
});

// Compile-time guard: fails to type-check if the schema and the interface drift apart. Optional fields
// are made required first, or a field missing from one side would still pass.
type DeepRequired<T> = T extends (infer U)[] ? DeepRequired<U>[] : T extends object ? { [K in keyof T]-?: DeepRequired<T[K]> } : T;
type Parsed = z.output<typeof resultDocumentSchema>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesInterface: Same<DeepRequired<Parsed>, DeepRequired<ResultDocument>> = true;
void schemaMatchesInterface;
