/**
 * The op registry's facts handed to the figures a floor below, which may not import the workload:
 * benchRun's figure names per op type for the step summary (metrics/step-result.ts), and the
 * opcounters each op moves for the consistency check (server-stats/consistency.ts). A new op kind
 * is counted by both through its module alone (lib/workload/language/ops).
 */
import { StepMeasurement } from '../../metrics/measurement';
import { BenchRunNames, summarizeTrials, SummarizeOptions } from '../../metrics/step-result';
import { StepResult } from '../../result';
import { countWorkload, OpCounting, WorkloadCounting } from '../../server-stats/consistency';
import { OP_KIND_LIST, opKindNamed } from '../language/ops';

/** benchRun's figure names of every op kind that has them, in registry order (the order results.json writes them). */
export const BENCHRUN_NAMES: BenchRunNames = Object.fromEntries(
  OP_KIND_LIST.flatMap((kind) =>
    !kind.local && kind.benchRun ? [[kind.type, kind.benchRun]] : [],
  ),
);

/** A step's result entry from the measurements of its trials, with benchRun's figures of every op kind. */
export function summarizeStep(
  trials: StepMeasurement[],
  options: SummarizeOptions = {},
): StepResult {
  return summarizeTrials(trials, BENCHRUN_NAMES, options);
}

const countOp: OpCounting = (op) => {
  const kind = opKindNamed(op.op);
  if (!kind) return undefined;
  return kind.local
    ? { opcounters: [], batch: false }
    : { opcounters: kind.opcounters, batch: kind.batch?.(op) === true };
};

/** What the workload's raw ops (and the URI's readPreference) say about how the servers will count them. */
export function workloadCounting(
  ops: readonly unknown[],
  uri?: string,
  serverVersion?: string,
): WorkloadCounting {
  return countWorkload(ops, countOp, uri, serverVersion);
}
