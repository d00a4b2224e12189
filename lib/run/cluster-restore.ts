/**
 * A run's cluster changes set back at its end (lib/server/cluster-state.ts): on a deployment mongo-bench
 * did not start, when the run's write plan lists a change with a restore (the balancer, the chunk size),
 * the state is read before the first change and set back when the run ends: a normal end, a failure, and
 * an interrupt (the first Ctrl-C or SIGTERM; executeRun's `finally`), within RESTORE_TIMEOUT_MS in all so
 * that nothing hangs. What could not be set back is said, with the command to send by hand. A deployment
 * mongo-bench started has nothing to set back: it is its own, and stopped at the end.
 */
import type { MongoClient } from 'mongodb';
import { RunError } from '../config/errors';
import { messageOf } from '../common/values';
import { redactUri } from '../security/redact';
import type { Target } from '../server/target';
import type { WritePlan } from '../server/write-plan';
import type { CommandLogEntry } from '../topology';
import {
  ClusterBefore,
  describeRestore,
  readClusterBefore,
  restoreCluster,
  RestoreOutcome,
  restoreWanted,
  Send,
} from '../server/cluster-state';

/** The most a restore may take, reading and sending included: an interrupted run still ends. */
export const RESTORE_TIMEOUT_MS = 15_000;

/** Where a keeper tells what it does: the command log's lines and notes (the run command's), or nothing. */
export interface KeeperLog {
  command?(entry: CommandLogEntry): void;
  note(text: string): void;
}

/** What was read before the run's first change; `restore` sets it back (once: later calls wait for the first). */
export interface ClusterKeeper {
  readonly before: ClusterBefore;
  restore(): Promise<RestoreOutcome>;
}

/**
 * Reads the state the plan changes, before any change, on `target` (undefined: nothing to keep: a
 * deployment mongo-bench started, or a plan that changes nothing restorable). Throws a RunError when it
 * cannot be read: a change that could not be set back is not made.
 */
export async function keepClusterState(
  target: Target,
  plan: WritePlan,
  log: KeeperLog,
  options: { serverSelectionTimeoutMS?: number; timeoutMs?: number } = {},
): Promise<ClusterKeeper | undefined> {
  if (target.origin !== 'uri') return undefined;
  const wanted = restoreWanted(plan);
  if (!wanted) return undefined;
  const timeoutMs = options.timeoutMs ?? RESTORE_TIMEOUT_MS;
  const selection = Math.min(options.serverSelectionTimeoutMS ?? timeoutMs, timeoutMs);
  let before: ClusterBefore;
  try {
    before = await target.withClient(
      (client) => readClusterBefore(logged(client, log, 'check'), wanted),
      { serverSelectionTimeoutMS: selection },
    );
  } catch (err) {
    throw new RunError(
      `cannot read the cluster's state at ${redactUri(target.uri)} before changing it (${messageOf(err)}), so nothing was changed: the run sets back what it changes (the balancer, the chunk size) and must know them first`,
    );
  }
  for (const line of describeRestore(before)) log.note(`cluster: ${line}`);
  let restoring: Promise<RestoreOutcome> | undefined;
  return {
    before,
    restore() {
      restoring ??= restoreOn(target, before, log, timeoutMs, selection);
      return restoring;
    },
  };
}

async function restoreOn(
  target: Target,
  before: ClusterBefore,
  log: KeeperLog,
  timeoutMs: number,
  selection: number,
): Promise<RestoreOutcome> {
  let outcome: RestoreOutcome;
  try {
    outcome = await target.withClient(
      (client) => restoreCluster(logged(client, log, 'apply'), before, { timeoutMs }),
      { serverSelectionTimeoutMS: selection },
    );
  } catch (err) {
    // restoreCluster never throws; connecting can.
    outcome = { restored: [], failed: [`could not connect (${messageOf(err)})`], notes: [] };
  }
  if (outcome.restored.length + outcome.failed.length + outcome.notes.length === 0)
    log.note('cluster: as found before the run, nothing to set back');
  for (const c of outcome.restored) log.note(`cluster: set back ${c.what}`);
  for (const line of outcome.notes) log.note(`cluster: ${line}`);
  for (const line of outcome.failed) log.note(`warning: cluster not set back: ${line}`);
  return outcome;
}

/** The command as run on `client`, each logged: reads as checks, the rest (the restore's writes) as applied. */
function logged(client: MongoClient, log: KeeperLog, purpose: 'check' | 'apply'): Send {
  const address = client.options.hosts.map((h) => h.toString()).join(',');
  return async (db, command) => {
    const started = Date.now();
    const reads = 'balancerStatus' in command || 'find' in command;
    const entry = {
      step: 0,
      steps: 0,
      description: 'cluster state',
      target: 'mongos-0',
      address,
      db,
      command,
      purpose: reads ? ('check' as const) : purpose,
    };
    try {
      const reply = await client.db(db).command(command);
      log.command?.({ ...entry, ok: true, durationMs: Date.now() - started });
      return reply;
    } catch (err) {
      log.command?.({
        ...entry,
        ok: false,
        error: messageOf(err),
        durationMs: Date.now() - started,
      });
      throw err;
    }
  };
}
