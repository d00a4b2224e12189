/**
 * The target of one run: acquired (../deployment/acquire.ts: existing, embedded or launched; its
 * news logged and shown), its database prepared (--drop, --setup: ../prepare/prepare-database.ts),
 * released at the end (what the run started is stopped).
 */
import { acquireTarget } from '../deployment/acquire';
import { prepareDatabase } from '../prepare/prepare-database';
import { Target, uriTarget } from '../server/target';
import { ExecuteState, note, setupStep } from './execute-state';

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
        ? { beforeDataDistribution: async (uri: string) => dropDatabaseFirst(state, uri) }
        : {}),
    },
    hooks.clientOptions,
  );
}

async function dropDatabaseFirst(state: ExecuteState, uri: string): Promise<void> {
  const { plan, hooks, log } = state;
  hooks.emit({
    type: 'phase',
    phase: 'setup',
    detail: `drop database ${plan.db} (before it is sharded)`,
  });
  await prepareDatabase(
    {
      target: uriTarget(uri, hooks.clientOptions),
      db: plan.db,
      drop: true,
      serverSelectionTimeoutMS: plan.benchmark.serverSelectionTimeoutMS,
    },
    { onCommand: (e) => log.command(e), onNote: (text) => note(state, text) },
  );
  state.dropped = true;
}

/** --drop (unless it already ran) and an existing deployment's --setup, through the target. */
export async function prepareRunDatabase(state: ExecuteState, target: Target): Promise<void> {
  const { plan, hooks, log, setupJs } = state;
  const uriSetup = plan.target.kind === 'uri' ? plan.target.setup : undefined;
  const drop = plan.drop && !state.dropped;
  if (!drop && !uriSetup) return;
  hooks.emit({
    type: 'phase',
    phase: 'setup',
    detail: [
      drop ? `drop database ${plan.db}` : '',
      uriSetup ? 'apply the data-distribution steps (--setup)' : '',
    ]
      .filter(Boolean)
      .join(', then '),
  });
  await prepareDatabase(
    {
      target,
      db: plan.db,
      drop,
      setup: uriSetup,
      serverSelectionTimeoutMS: plan.benchmark.serverSelectionTimeoutMS,
    },
    {
      onCommand: (e) => log.command(e),
      onNote: (text) => note(state, text),
      onPlanned: (applied) => setupJs.planned(applied),
      onStep: (e) => setupStep(state, e),
    },
  );
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
