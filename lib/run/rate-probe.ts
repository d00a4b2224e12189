/**
 * `--rate 80%`: before the sweep, a short closed sweep (no rate, every client as fast as it goes)
 * measures the maximum ops/s this workload reaches on this server; the run then holds the share of it
 * (genny's `GlobalRate: 80%`, mongodb/genny docs/using_genny.md). The probe's steps are not results: only
 * their ops/s are kept, in the result's `rateProbe`.
 */
import type { RateProbe } from '../result';
import { isClientBound } from '../metrics/client-load';
import type { StepExecutor } from '../workload/engine/step-executor';
import type { StepPlan } from '../workload/engine/engine';
import type { RunOptions } from './options/run-options';

export interface ProbeSettings {
  share: number;
  clients: number[];
  seconds: number;
  warmupSeconds: number;
  randomSeed: number;
  overrunLimitMs?: number;
}

/** What the probe tells as it goes: each step's ops/s, then the probe itself. */
export type ProbeNews = { clients: number; opsPerSec: number } | { probe: RateProbe };

/** Runs the probe; undefined when it was interrupted before it measured anything. */
export async function probeMaximum(
  executor: StepExecutor,
  settings: ProbeSettings,
  tell: (news: ProbeNews) => void,
  signal?: AbortSignal,
): Promise<RateProbe | undefined> {
  const opsPerSec: number[] = [];
  const bound: boolean[] = [];
  for (const clients of settings.clients) {
    if (signal?.aborted) break;
    const plan: StepPlan = {
      clients,
      seconds: settings.seconds,
      warmupSeconds: settings.warmupSeconds,
      randomSeed: settings.randomSeed,
      overrunLimitMs: settings.overrunLimitMs,
    };
    const { measurement: m, failure } = await executor.runStep(plan, 1, { signal });
    const failed = failure ?? m.cut ?? m.lostServer;
    if (failed)
      throw new Error(
        `the --rate probe with ${clients} client${clients === 1 ? '' : 's'} failed: ${failed}`,
      );
    if (m.elapsedSeconds <= 0) break;
    const rate = Math.round(((m.reads + m.writes) / m.elapsedSeconds) * 10) / 10;
    opsPerSec.push(rate);
    bound.push(m.client ? isClientBound(m.client) : false);
    tell({ clients, opsPerSec: rate });
    if (m.interrupted) break;
  }
  if (opsPerSec.length === 0) return undefined;
  const best = opsPerSec.indexOf(Math.max(...opsPerSec));
  const maxOpsPerSec = opsPerSec[best];
  if (!(maxOpsPerSec > 0))
    throw new Error(
      'the --rate probe measured 0 ops/s: no maximum to take a share of (do the ops succeed?)',
    );
  const probe: RateProbe = {
    share: settings.share,
    clients: settings.clients.slice(0, opsPerSec.length),
    seconds: settings.seconds,
    warmupSeconds: settings.warmupSeconds,
    opsPerSec,
    maxOpsPerSec,
    clientsAtMax: settings.clients[best],
    targetOpsPerSec: Math.round(settings.share * maxOpsPerSec * 10) / 10,
    clientBoundAtMax: bound[best],
  };
  tell({ probe });
  return probe;
}

/** The probe's settings from the run's options (its client counts default to the sweep's). */
export function probeSettings(
  options: RunOptions,
  share: number,
  overrunLimitMs: number | undefined,
): ProbeSettings {
  const probe = options.rateProbe ?? { seconds: 3, warmupSeconds: 1 };
  return {
    share,
    clients: probe.clients ?? options.clients,
    seconds: probe.seconds,
    warmupSeconds: probe.warmupSeconds,
    randomSeed: options.randomSeed,
    overrunLimitMs,
  };
}
