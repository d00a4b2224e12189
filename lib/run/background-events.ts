/**
 * Background events a scenario triggers at a point in time, sent through the driver like any
 * command the tool issues (lib/topology and lib/experiments/presplit-import do the same):
 * - createIndex: `createIndexes` on the collection (mongodb/mongo src/mongo/db/commands/create_indexes_cmd.cpp);
 *   it returns when the build is done, so start and end bracket the whole build;
 * - stopBalancer / startBalancer: `balancerStop` / `balancerStart` on admin, through mongos
 *   (src/mongo/s/commands/cluster_balancer_control_cmd.cpp); a non-sharded server answers
 *   CommandNotFound, which is recorded, not fatal;
 * - stepDown: `replSetStepDown: <seconds>` on admin (src/mongo/db/repl/repl_set_commands.cpp,
 *   CmdReplSetStepDown); the primary closes connections as it steps down, so a network error
 *   after the command was sent counts as done.
 * Every event's start and end (seconds on the run's clock) and its error go into the result; a
 * failed event never stops the run.
 */
import type { MongoClient } from 'mongodb';
import type { ScenarioEvent } from '../result';
import { redactUri } from '../security/redact';
import { isLostServerError } from '../workload/engine/engine';
import { parseNamespace } from '../workload/spec/op-spec';
import type { BackgroundEventSpec } from './scenario-spec';
import { sleepUntil } from '../common/sleep-until';

export interface SentCommand {
  db: string;
  command: Record<string, unknown>;
}

/** The command an event sends, and to which database. */
export function eventCommand(event: BackgroundEventSpec): SentCommand {
  switch (event.action) {
    case 'createIndex': {
      const ns = parseNamespace(event.ns, false)!;
      return { db: ns.db, command: { createIndexes: ns.coll, indexes: [{ key: event.keys, name: event.name }] } };
    }
    case 'stopBalancer':
      return { db: 'admin', command: { balancerStop: 1 } };
    case 'startBalancer':
      return { db: 'admin', command: { balancerStart: 1 } };
    case 'stepDown':
      return { db: 'admin', command: { replSetStepDown: event.seconds } };
  }
}

/**
 * Sends one event's command at `atSecond` on the clock that began at `t0` (performance.now()),
 * unless the signal stops the run first. Resolves with what happened; never rejects.
 */
export async function runBackgroundEvent(
  client: MongoClient,
  event: BackgroundEventSpec,
  clock: { t0: number; atSecond: number },
  signal?: AbortSignal,
): Promise<ScenarioEvent> {
  const sent = eventCommand(event);
  const record: ScenarioEvent = { action: event.action, at: clock.atSecond, ok: false, command: sent.command };
  const due = clock.t0 + clock.atSecond * 1000;
  await sleepUntil(due, signal);
  // A timer may fire a fraction of a millisecond early on this clock: never send before the time given.
  while (performance.now() < due && !signal?.aborted) await new Promise<void>((resolve) => setImmediate(resolve));
  if (signal?.aborted) return { ...record, error: 'not sent: the run stopped first' };
  const seconds = () => Math.round(performance.now() - clock.t0) / 1000;
  record.startedAt = seconds();
  try {
    await client.db(sent.db).command(sent.command);
    record.ok = true;
  } catch (err) {
    // The primary drops its connections as it steps down: the command was taken.
    if (event.action === 'stepDown' && isLostServerError(err)) record.ok = true;
    else record.error = redactUri(err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 300);
  }
  record.endedAt = seconds();
  return record;
}
