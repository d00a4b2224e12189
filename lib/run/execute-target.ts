/**
 * The target of one run: acquired (../deployment/acquire.ts: existing, embedded or launched; its
 * news logged and shown), its database prepared (--drop, --setup: ../prepare/prepare-database.ts,
 * after the write plan's check on a deployment mongo-bench did not start: ./write-check.ts), the
 * cluster state the run changes there read first and set back at the end (./cluster-restore.ts),
 * released at the end (what the run started is stopped).
 */
import type { MongoClient } from 'mongodb';
import { acquireTarget } from '../deployment/acquire';
import { prepareDatabase } from '../prepare/prepare-database';
import { openTarget, Target } from '../server/target';
import type { Namespace } from '../workload/language/op-spec';
import { ExecuteState, note, setupStep } from './execute-state';
import { loadReplaces } from './options/run-write-plan';
import { checkRunWrites } from './write-check';
import { keepClusterState, RESTORE_TIMEOUT_MS } from './cluster-restore';

/** Gets the target; on a launched sharded cluster, --drop runs before its data-distribution steps. */
export function acquireRunTarget(state: ExecuteState): Promise<Target> {
  const { plan, hooks, log, secrets } = state;
  return acquireTarget(
    plan.target,
    {
      signal: hooks.signal,
      emit: (e) => {
        if (e.type === 'command-line') log.commandLine(e.line);
        else if (e.type === 'command') log.command(e.entry);
        else if (e.type === 'note') note(state, e.text);
        else if (e.type === 'secret') secrets.push(e.value);
        else if (e.type === 'setup-step') setupStep(state, e);
        else {
          log.note(`${e.phase}: ${e.detail}`);
          hooks.emit(e);
        }
      },
      credentials: hooks.credentials,
      ...(plan.drop
        ? { beforeDataDistribution: async (uri: string) => dropReplacedFirst(state, uri) }
        : {}),
    },
    hooks.clientOptions,
  );
}

/** The collections the load replaces (--drop), as namespaces. */
function dropsOf(state: ExecuteState): Namespace[] {
  return loadReplaces(state.plan.writePlan).map((e) => ({ db: e.db, coll: e.coll! }));
}

/** A launched cluster: dropped before they are sharded (a cluster mongo-bench started: its own). */
async function dropReplacedFirst(state: ExecuteState, uri: string): Promise<void> {
  const { plan, hooks, log } = state;
  const drops = dropsOf(state);
  if (drops.length === 0) return;
  hooks.emit({
    type: 'phase',
    phase: 'setup',
    detail: `drop ${names(drops)} (before it is sharded)`,
  });
  await prepareDatabase(
    {
      // The cluster this run launched: its own (no owner marker written, nothing to check).
      target: openTarget({ uri, origin: 'launched' }, hooks.clientOptions),
      drops,
      serverSelectionTimeoutMS: plan.benchmark.serverSelectionTimeoutMS,
    },
    { onCommand: (e) => log.command(e), onNote: (text) => note(state, text) },
  );
  state.dropped = true;
}

/**
 * --drop (unless it already ran) and an existing deployment's --setup, through the target; on a
 * deployment mongo-bench did not start, the write plan is checked first (nothing is dropped before it passes).
 */
export async function prepareRunDatabase(state: ExecuteState, target: Target): Promise<void> {
  const { plan, hooks, log, setupJs } = state;
  const uriSetup = plan.target.kind === 'uri' ? plan.target.setup : undefined;
  const drops = plan.drop && !state.dropped ? dropsOf(state) : [];
  if (drops.length === 0 && !uriSetup) return;
  hooks.emit({
    type: 'phase',
    phase: 'setup',
    detail: [
      drops.length > 0 ? `drop ${names(drops)} (--drop)` : '',
      uriSetup ? 'apply the data-distribution steps (--setup)' : '',
    ]
      .filter(Boolean)
      .join(', then '),
  });
  await prepareDatabase(
    {
      target,
      drops,
      setup: uriSetup,
      ...(state.cluster ? { clusterBefore: state.cluster.before } : {}),
      serverSelectionTimeoutMS: plan.benchmark.serverSelectionTimeoutMS,
      ...(target.origin === 'uri'
        ? {
            check: (client: MongoClient) =>
              checkRunWrites(client, plan.writePlan, {
                createdByRun: state.createdByRun,
                ...(plan.benchmark.docsLike ? { docsLike: plan.benchmark.docsLike } : {}),
              }),
          }
        : {}),
    },
    {
      onCommand: (e) => log.command(e),
      onNote: (text) => note(state, text),
      onPlanned: (applied) => setupJs.planned(applied),
      onStep: (e) => setupStep(state, e),
    },
  );
  // Past the check: what was dropped, and the collection --setup sharded, are this run's now.
  for (const ns of drops) state.createdByRun.add(`${ns.db}.${ns.coll}`);
  if (uriSetup?.topology.sharding) state.createdByRun.add(uriSetup.topology.sharding.ns);
}

function names(drops: Namespace[]): string {
  return drops.map((ns) => `${ns.db}.${ns.coll}`).join(', ');
}

/**
 * On a deployment mongo-bench did not start, the cluster state the plan changes (the balancer, the chunk
 * size) read before any change; nothing to read otherwise.
 */
export async function keepRunClusterState(state: ExecuteState, target: Target): Promise<void> {
  const { plan, log } = state;
  state.cluster = await keepClusterState(
    target,
    plan.writePlan,
    { command: (e) => log.command(e), note: (text) => note(state, text) },
    { serverSelectionTimeoutMS: plan.benchmark.serverSelectionTimeoutMS },
  );
}

/** Sets back what the run changed on the cluster (read by keepRunClusterState); never throws, bounded in time. */
export async function restoreRunClusterState(state: ExecuteState): Promise<void> {
  if (!state.cluster) return;
  state.hooks.emit({
    type: 'phase',
    phase: 'restore',
    detail: `setting back what the run changed on the cluster (up to ${RESTORE_TIMEOUT_MS / 1000} s)`,
  });
  await state.cluster.restore();
}

/** Gives the target back: what this run started is stopped. */
export async function releaseRunTarget(
  state: ExecuteState,
  target: Target | undefined,
): Promise<void> {
  if (!target) return;
  if (target.origin !== 'uri')
    state.hooks.emit({ type: 'phase', phase: 'stop', detail: 'stopping what this run started' });
  await target.release();
}
