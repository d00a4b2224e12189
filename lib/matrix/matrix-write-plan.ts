/**
 * The matrix's write plan: the experiment's collections in --db (dropped and refilled by every row) and the
 * capability probes' scratch collections, checked by the run's one rule (lib/run/write-check.ts) once the
 * target is reached and before anything is probed or written. --drop is the consent for both: it replaces
 * the experiment's collections whatever they hold. An experiment that changes the cluster lists that
 * change, --setup's.
 */
import type { Experiment } from '../experiments/experiment';
import { PROBE_COLLECTIONS } from './target-probe';
import type { RunWritePlan } from '../run/options/run-write-plan';
import type { TargetOrigin } from '../server/target';
import type { Consent, NamespaceEntry, ServerEntry } from '../server/write-plan';

/** The probes' scratch collections (target-probe.ts names and makes them). */
export const probeCollections = (pid = process.pid): string[] => [
  PROBE_COLLECTIONS.capped(pid),
  PROBE_COLLECTIONS.unacknowledged(pid),
];

export function matrixWritePlan(
  options: { db: string; drop?: boolean; allowSetup?: boolean },
  experiment: Pick<Experiment, 'collections' | 'collectionsOf' | 'needs'>,
  origin: TargetOrigin,
  /** Each configuration's validated parameters (an experiment may name its collection there). */
  configurations: readonly { parameters: Record<string, unknown> }[] = [],
): RunWritePlan {
  const collections = new Set([
    ...(experiment.collections ?? []),
    ...configurations.flatMap((c) => experiment.collectionsOf?.(c.parameters) ?? []),
  ]);
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
    ...[...collections].map((c) =>
      entry(c, 'experiment', 'dropped and refilled by each configuration'),
    ),
    ...probeCollections().map((c) => entry(c, 'probe', 'created and dropped to probe the server')),
  ];
  // An experiment that changes the cluster (its needs.setup): --setup, each change set back as it found it.
  const setup = experiment.needs?.setup;
  const changes: ServerEntry[] = setup
    ? [
        {
          kind: 'server',
          change: 'shard-collection',
          target: 'cluster',
          detail: setup.mayChange,
          consent: '--setup',
          restore: 'the balancer and the chunk size as the experiment found them',
        },
      ]
    : [];
  const consents = new Set<Consent>([
    ...(options.drop ? (['--drop'] as const) : []),
    ...(options.allowSetup ? (['--setup'] as const) : []),
  ]);
  return { ours: origin !== 'uri', consents, entries: [...entries, ...changes], unplannable: [] };
}
