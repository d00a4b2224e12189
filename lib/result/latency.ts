/** Building blocks shared by several sections of the result document: latency summaries, op counts, rates, client load. */
import { z } from 'zod';

/** All in microseconds; `count`: how many operations the summary covers. */
export const latencySummarySchema = z.object({
  avg: z.number(),
  p50: z.number(),
  p95: z.number(),
  p99: z.number(),
  p999: z.number(),
  max: z.number(),
  /** The smallest latency, exact (not a histogram bucket); absent from older results. */
  min: z.number().optional(),
  /** How many operations the summary covers. */
  count: z.number(),
});
export type LatencySummary = z.infer<typeof latencySummarySchema>;

export const opTotalsSchema = z.object({
  reads: z.number(),
  writes: z.number(),
  errors: z.number(),
});

export const ratesSchema = z.object({ total: z.number(), reads: z.number(), writes: z.number() });

/**
 * The step result's `client` entry: how hard the load generator worked (lib/metrics/client-load.ts
 * measures it).
 */
export const clientLoadSchema = z.object({
  /** Worker threads that ran the step's clients (1 = the main thread, no worker). */
  workers: z.number().int().positive(),
  /**
   * Per worker, the share of the measured window its event loop was busy (0..1), polling for exact due
   * times left out (that is waiting: it has its own figure below).
   */
  eventLoopUtilization: z.array(z.number()),
  /**
   * Per worker, the share of the measured window its event loop spent polling for exact due times
   * (`--arrivals exact`, the open model): a core kept busy while clients wait, not work (optional: absent
   * when no loop polled, and in older results).
   */
  pollingUtilization: z.array(z.number()).optional(),
  /** Process CPU (user + system, every thread) as a percentage of one core over the window: 150 = 1.5 cores. */
  cpuPercent: z.number(),
  /** Cores this machine offers (os.availableParallelism). */
  cores: z.number(),
});
export type ClientLoad = z.infer<typeof clientLoadSchema>;
