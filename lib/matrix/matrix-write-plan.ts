/**
 * The matrix's write plan: the experiment's collections in --db (dropped and refilled by every row) and the
 * capability probes' scratch collections, checked by the run's one rule (lib/run/write-check.ts) once the
 * target is reached and before anything is probed or written. --drop is the consent for both: it replaces
 * the experiment's collections whatever they hold.
 */
import type { Experiment } from '../experiments/experiment';
import type { RunWritePlan } from '../run/options/run-write-plan';
import type { TargetOrigin } from '../server/target';
import type { Consent, NamespaceEntry } from '../server/write-plan';

/** The probes' scratch collections: names of this process's own (target-probe.ts makes them). */
export const probeCollections = (pid = process.pid): string[] => [
  `probe_capped_${pid}`,
  `probe_unack_${pid}`,
];

export function matrixWritePlan(
  options: { db: string; drop?: boolean },
  experiment: Pick<Experiment, 'collections'>,
  origin: TargetOrigin,
): RunWritePlan {
  const entry = (coll: string, source: 'experiment' | 'probe', detail: string): NamespaceEntry => ({
    kind: 'namespace',
    db: options.db,
    coll,
    action: 'recreate',
    source,
    detail,
    consent: '--drop',
  });
  const entries = [
    ...(experiment.collections ?? []).map((c) =>
      entry(c, 'experiment', 'dropped and refilled by each configuration'),
    ),
    ...probeCollections().map((c) => entry(c, 'probe', 'created and dropped to probe the server')),
  ];
  const consents = new Set<Consent>(options.drop ? ['--drop'] : []);
  return { ours: origin !== 'uri', consents, entries, unplannable: [] };
}
