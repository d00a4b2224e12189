/** The result document's `slo` section (`run --slo`). */
import { z } from 'zod';

/** One objective checked on one step. */
export const sloVerdictSchema = z.object({
  clients: z.number(),
  /** The objective as written, e.g. "reads.p99<5ms". */
  objective: z.string(),
  /** The step's value in `unit` (latency in µs); null when the step has none (no reads, say). */
  actual: z.number().nullable(),
  unit: z.string(),
  /** null: not applicable to this step. */
  pass: z.boolean().nullable(),
});
export type SloVerdict = z.infer<typeof sloVerdictSchema>;

/** The objectives, every step's verdicts, and whether all passed. */
export const sloSectionSchema = z.object({
  objectives: z.array(z.string()),
  /** --slo-abort: the sweep stops at the first failure. */
  abortOnFailure: z.boolean(),
  verdicts: z.array(sloVerdictSchema),
  pass: z.boolean(),
  /** True when --slo-abort stopped the sweep. */
  aborted: z.boolean().optional(),
});
export type SloSection = z.infer<typeof sloSectionSchema>;
