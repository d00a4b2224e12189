/**
 * The open model's rate, settled once before the first step: --rate's stages as given; a share of
 * the maximum (--rate 80%max) once a closed probe (../rate-probe.ts) has measured the maximum.
 */
import { resolveShareOfMax } from '../../workload/language/rate-spec';
import type { StepExecutor } from '../../workload/engine/step-executor';
import { probeMaximum, probeSettings } from '../rate-probe';
import type { RunEnding } from '../run-lifecycle';
import { overrunLimit } from './trial';
import type { SweepPlan, SweepState } from './state';

/** The sweep's plan: its executor and its arrival rate; or how the run ends when the probe was interrupted. */
export async function planSweep(
  state: SweepState,
  executor: StepExecutor,
): Promise<SweepPlan | { ending: RunEnding }> {
  const { options, run } = state;
  if (options.arrival?.kind !== 'shareOfMax')
    return { executor, arrival: options.arrival?.kind === 'stages' ? options.arrival : undefined };
  const probe = await probeMaximum(
    executor,
    probeSettings(options, options.arrival.share, overrunLimit(options)),
    (news) => run.emit({ type: 'rate-probe', ...news }),
    state.hooks.signal,
  );
  if (!probe) return { ending: { incomplete: 'interrupted during the --rate probe' } };
  run.result.rateProbe = probe;
  return { executor, arrival: resolveShareOfMax(options.arrival, probe.maxOpsPerSec) };
}
