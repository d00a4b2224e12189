/**
 * Background events a scenario triggers at a point in time, sent through the driver like any
 * command the tool issues (lib/topology and lib/experiments/presplit-import do the same):
 * - createIndex: `createIndexes` on the collection (mongodb/mongo src/mongo/db/commands/create_indexes_cmd.cpp);
 *   it returns when the build is done, so start and end bracket the whole build;
 * - stopBalancer / startBalancer: `balancerStop` / `balancerStart` on admin, through mongos
 *   (src/mongo/s/commands/cluster_balancer_control_cmd.cpp); a non-sharded server answers
 *   CommandNotFound, which is recorded, not fatal;
 * - stepDown: `replSetStepDown: <seconds>` on admin (src/mongo/db/repl/repl_set_commands.cpp,
 *   CmdReplSetStepDown); no secondaryCatchUpPeriodSecs is sent, so the server waits up to its default
 *   10 s for a caught-up secondary and refuses a shorter period (scenario-spec.ts refuses it first).
 *   Since 4.2 the primary no longer closes every connection as it steps down: the command answers
 *   ok: 1 once it has stepped down, so only that answer counts as done (a lost connection leaves it
 *   unknown, and is recorded as an error). A mongos has no replSetStepDown: through one the event is
 *   refused before its time, naming the shards' replica sets to send it to.
 * - freeze: `replSetFreeze: <seconds>` on admin (repl_set_commands.cpp, CmdReplSetFreeze), on the member
 *   `host` names (a direct connection), else on the server the run's connection selects; only a
 *   secondary takes it (ReplicationCoordinatorImpl::processReplSetFreeze: NotSecondary "cannot freeze
 *   node when primary or running for election"). The member unfreezes itself after `seconds`; a step or
 *   a run that ends first sends `replSetFreeze: 0` (which unfreezes) to the same member;
 * - proxyDown / toxic: a network fault through Toxiproxy (./toxiproxy.ts, ./faults.ts), undone after
 *   `for` or at the end of what the event belongs to, and on every way a run ends.
 * Every event's start and end and its error go into the result; a failed event never stops the run.
 */
import { MongoClient, MongoClientOptions } from 'mongodb';
import type { ScenarioEvent } from '../../result';
import { redactUri } from '../../security/redact';
import { isLostServerError } from '../../workload/engine/engine';
import { parseNamespace } from '../../workload/language/op-spec';
import type { BackgroundEventSpec } from './event-spec';
import { FaultContext, holdFault } from './faults';
import { sleepUntil } from '../../common/sleep-until';

export interface SentCommand {
  db: string;
  command: Record<string, unknown>;
}

/** The command an event sends, and to which database. */
export function eventCommand(event: BackgroundEventSpec): SentCommand | undefined {
  switch (event.action) {
    case 'createIndex': {
      const ns = parseNamespace(event.ns, false)!;
      return {
        db: ns.db,
        command: { createIndexes: ns.coll, indexes: [{ key: event.keys, name: event.name }] },
      };
    }
    case 'stopBalancer':
      return { db: 'admin', command: { balancerStop: 1 } };
    case 'startBalancer':
      return { db: 'admin', command: { balancerStart: 1 } };
    case 'stepDown':
      return { db: 'admin', command: { replSetStepDown: event.seconds } };
    case 'freeze':
      return { db: 'admin', command: { replSetFreeze: event.seconds } };
    case 'proxyDown':
    case 'toxic':
      return undefined;
  }
}

/**
 * Why a stepDown cannot be sent on this connection, when it is a mongos (hello `msg: "isdbgrid"`):
 * replSetStepDown is a replica-set command that a mongos does not have (CommandNotFound). Names the
 * shards' replica sets (listShards) to connect to instead. Undefined when the server is not a mongos.
 */
export async function stepDownThroughMongos(client: MongoClient): Promise<string | undefined> {
  const hello = await client
    .db('admin')
    .command({ hello: 1 })
    .catch(() => client.db('admin').command({ isMaster: 1 }))
    .catch(() => undefined);
  if (hello?.msg !== 'isdbgrid') return undefined;
  const listed = await client
    .db('admin')
    .command({ listShards: 1 })
    .catch(() => undefined);
  const shards = Array.isArray(listed?.shards)
    ? (listed.shards as Array<{ _id?: unknown; host?: unknown }>)
    : [];
  const members = shards
    .filter((s) => typeof s.host === 'string')
    .map((s) => {
      const [set, hosts] = String(s.host).includes('/')
        ? String(s.host).split('/')
        : [String(s._id), String(s.host)];
      return `mongodb://${hosts}/?replicaSet=${set}`;
    });
  const where =
    members.length > 0
      ? `connect to a shard's replica set instead (${members.join(', ')}) and step its primary down there`
      : "connect to a shard's replica set instead (listShards names them) and step its primary down there";
  return `not sent: this is a mongos, which has no replSetStepDown (a replica-set command; it would answer CommandNotFound): ${where}`;
}

/**
 * Sends one event at `atSecond` on the clock that began at `t0` (performance.now()), unless the signal
 * stops the run first; a fault is then held until its end (./faults.ts). Resolves with what happened;
 * never rejects. `faults`: the run's fault context (Toxiproxy, the keeper of undos, the end of the step).
 */
export async function runBackgroundEvent(
  client: MongoClient,
  event: BackgroundEventSpec,
  clock: { t0: number; atSecond: number },
  signal?: AbortSignal,
  faults?: FaultContext,
): Promise<ScenarioEvent> {
  const sent = eventCommand(event);
  const record: ScenarioEvent = {
    action: event.action,
    at: clock.atSecond,
    ok: false,
    ...(sent ? { command: sent.command } : {}),
    ...('proxy' in event ? { proxy: event.proxy } : {}),
    ...('for' in event && event.for !== undefined ? { for: event.for } : {}),
  };
  if (event.action === 'stepDown') {
    const refused = await stepDownThroughMongos(client);
    if (refused) return { ...record, error: refused };
  }
  const until = faults?.until ?? signal;
  const due = clock.t0 + clock.atSecond * 1000;
  await sleepUntil(due, until);
  // A timer may fire a fraction of a millisecond early on this clock: never send before the time given.
  while (performance.now() < due && !until?.aborted)
    await new Promise<void>((resolve) => setImmediate(resolve));
  if (signal?.aborted || until?.aborted)
    return { ...record, error: 'not sent: the run stopped first' };
  const seconds = () => Math.round(performance.now() - clock.t0) / 1000;
  record.startedAt = seconds();
  if (!sent || event.action === 'freeze') {
    if (!faults) return { ...record, error: 'not sent: no fault context (a run without events)' };
    await holdFault(event, record, { client, seconds, context: faults, sendFreeze });
    return record;
  }
  try {
    await client.db(sent.db).command(sent.command);
    record.ok = true;
  } catch (err) {
    const message = errorText(err);
    // Since 4.2 replSetStepDown answers ok: 1 on its own connection: a lost one says nothing of the step-down.
    record.error =
      event.action === 'stepDown' && isLostServerError(err)
        ? `the connection was lost before the answer, so whether the primary stepped down is unknown: ${message}`
        : message;
  }
  record.endedAt = seconds();
  return record;
}

export function errorText(err: unknown): string {
  return redactUri(err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(
    0,
    300,
  );
}

/** replSetFreeze: `seconds` on `host` (a direct connection with the run's credentials), else through `client`. */
async function sendFreeze(
  client: MongoClient,
  seconds: number,
  host: string | undefined,
  clientOptions: MongoClientOptions | undefined,
): Promise<void> {
  if (host === undefined) {
    await client.db('admin').command({ replSetFreeze: seconds });
    return;
  }
  const direct = new MongoClient(`mongodb://${host}/?directConnection=true`, {
    ...clientOptions,
    serverSelectionTimeoutMS: 5000,
  });
  try {
    await direct.db('admin').command({ replSetFreeze: seconds });
  } finally {
    await direct.close().catch(() => undefined);
  }
}

export type SendFreeze = typeof sendFreeze;
