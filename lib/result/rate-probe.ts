/** The result's `rateProbe`: how `--rate 80%` found its maximum before the run held a share of it. */
import { z } from 'zod';

export const rateProbeSchema = z.object({
  /** The share asked for (0.8 for "80%"). */
  share: z.number(),
  /** The closed probe: these client counts, each for `seconds` after `warmupSeconds`, as fast as they go. */
  clients: z.array(z.number().int().positive()),
  seconds: z.number(),
  warmupSeconds: z.number(),
  /** Each client count's measured ops/s (reads + writes over the window), in `clients` order. */
  opsPerSec: z.array(z.number()),
  /** The best of them: the maximum, and the client count that reached it. */
  maxOpsPerSec: z.number(),
  clientsAtMax: z.number().int().positive(),
  /** share x maximum: the constant rate every step then held. */
  targetOpsPerSec: z.number(),
  /** True when the load generator was the bottleneck at the client count that reached the maximum (absent in older results). */
  clientBoundAtMax: z.boolean().optional(),
});
export type RateProbe = z.infer<typeof rateProbeSchema>;
