/**
 * The cluster state a run changes and sets back at its end (docs/run.md "What may be dropped or
 * written"): read before the first change, compared with what the cluster says at the end, and only
 * what differs is sent back. Two settings can be put back:
 * - the balancer: balancerStatus `mode` before ("full", "off"; "autoSplitOnly" on 4.x/5.x); at the end
 *   `balancerStart` when it was running and is not, `balancerStop` when it was off and runs (a
 *   startBalancer event). "autoSplitOnly" has no command of its own (balancerStart makes it "full"),
 *   so it is left as the run left it and said so;
 * - the chunk size: config.settings `{_id: "chunksize"}` (the cluster's, before 6.0): its old value set
 *   back, or the document removed when there was none; from 6.0 the collection's own
 *   (config.collections `maxChunkSizeBytes`, configureCollectionBalancing): for a collection that was
 *   sharded before the run, its old size, or `chunkSize: 0` when it had none (the cluster default again:
 *   "If you use configureCollectionBalancing with chunkSize: 0, the per-collection chunkSize is reset",
 *   Manual, configureCollectionBalancing, Behavior). A collection the run sharded keeps its size: it is
 *   the run's.
 * enableSharding, shardCollection, split and moveChunk are not undone (a collection cannot be unsharded
 * before 8.0, and moving chunks back is a migration of its own); a step-down is over by itself.
 * Pure functions over a `send` (one command, its reply), so every case is tested without a server;
 * lib/run/cluster-restore.ts runs them for a run.
 */
import { isPlainObject, messageOf } from '../common/values';
import type { ServerEntry, WritePlan } from './write-plan';

type Doc = Record<string, unknown>;

/** One command to the cluster (a mongos): the reply, or a thrown error (ok: 0). */
export type Send = (db: string, command: Doc) => Promise<Doc>;

/** What of the cluster's state a run's plan changes and can set back. */
export interface RestoreWanted {
  balancer: boolean;
  /** --chunk-size: the collection the plan sets it for (its own from 6.0, the cluster's before). */
  chunkSize?: { ns: string };
}

export interface ClusterBefore {
  /** balancerStatus.mode; `unknown`: the server has no balancer (not a mongos), nothing to set back. */
  balancer?: { mode: string } | { unknown: string };
  /** config.settings {_id: "chunksize"}: its value, or null when there was none. */
  chunkSetting?: { value: unknown } | null;
  /** The collection's own chunk size (6.0+): null when it was not sharded before the run. */
  collectionChunk?: { ns: string; bytes: number | null } | null;
}

export interface RestoreCommand {
  db: string;
  command: Doc;
  /** What it sets back, in words: "the balancer (it was running)". */
  what: string;
}

export interface RestoreOutcome {
  /** Sent and answered ok. */
  restored: RestoreCommand[];
  /** What could not be set back, one line each, with the command to send by hand. */
  failed: string[];
  /** What is said besides: a mode no command sets back (left as the run left it), a state that could not be read. */
  notes: string[];
}

/** The changes a run restores: the plan's server entries with a restore, on a deployment mongo-bench did not start. */
export function restoreWanted(plan: WritePlan): RestoreWanted | undefined {
  if (plan.ours) return undefined;
  const restorable = plan.entries.filter(
    (e): e is ServerEntry => e.kind === 'server' && e.restore !== undefined,
  );
  const balancer = restorable.some((e) => e.change === 'balancer');
  const chunk = restorable.find((e) => e.change === 'chunk-size');
  if (!balancer && !chunk) return undefined;
  return { balancer, ...(chunk?.ns !== undefined ? { chunkSize: { ns: chunk.ns } } : {}) };
}

/**
 * CommandNotFound (59): a server without the command (balancerStatus on a mongod that is no mongos;
 * some wire-compatible servers say "no such command" with another code).
 */
function isCommandNotFound(err: unknown): boolean {
  const e = err as { code?: number; codeName?: string };
  return (
    e.code === 59 ||
    e.codeName === 'CommandNotFound' ||
    /no such (cmd|command)/i.test(messageOf(err))
  );
}

async function findOne(send: Send, db: string, coll: string, filter: Doc): Promise<Doc | null> {
  const reply = await send(db, { find: coll, filter, limit: 1 });
  const batch = (reply.cursor as { firstBatch?: Doc[] } | undefined)?.firstBatch ?? [];
  return batch[0] ?? null;
}

async function balancerOf(send: Send): Promise<NonNullable<ClusterBefore['balancer']>> {
  try {
    const status = await send('admin', { balancerStatus: 1 });
    return typeof status.mode === 'string'
      ? { mode: status.mode }
      : { unknown: 'balancerStatus gave no mode' };
  } catch (err) {
    if (isCommandNotFound(err)) return { unknown: 'not a mongos: it has no balancer' };
    throw err;
  }
}

function bytesOf(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  const n = Number(value); // a BSON Long or Int32 as well as a number
  return Number.isFinite(n) ? n : null;
}

async function collectionChunkOf(
  send: Send,
  ns: string,
): Promise<ClusterBefore['collectionChunk']> {
  const doc = await findOne(send, 'config', 'collections', { _id: ns });
  if (!doc || doc.dropped === true || doc.unsplittable === true) return null;
  return { ns, bytes: bytesOf(doc.maxChunkSizeBytes) };
}

async function chunkSettingOf(send: Send): Promise<ClusterBefore['chunkSetting']> {
  const doc = await findOne(send, 'config', 'settings', { _id: 'chunksize' });
  return doc ? { value: doc.value } : null;
}

/**
 * The state `wanted` names, before the run changes it. Throws when it cannot be read (the run changes
 * nothing it could not set back); a server without a balancer is no error (nothing to set back).
 */
export async function readClusterBefore(send: Send, wanted: RestoreWanted): Promise<ClusterBefore> {
  const before: ClusterBefore = {};
  if (wanted.balancer) before.balancer = await balancerOf(send);
  if (wanted.chunkSize) {
    before.chunkSetting = await chunkSettingOf(send);
    before.collectionChunk = await collectionChunkOf(send, wanted.chunkSize.ns);
  }
  return before;
}

const MIB = 1024 * 1024;

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || a === null || b === undefined || b === null) return false;
  return Number(a) === Number(b) && !Number.isNaN(Number(a));
}

/** What to send so that `now` is `before` again (pure); `left`: what no command sets back. */
export function restoreCommands(
  before: ClusterBefore,
  now: ClusterBefore,
): { commands: RestoreCommand[]; left: string[] } {
  const commands: RestoreCommand[] = [];
  const left: string[] = [];
  if (before.balancer && 'mode' in before.balancer && now.balancer && 'mode' in now.balancer) {
    const was = before.balancer.mode;
    const is = now.balancer.mode;
    if (was !== is) {
      if (was === 'full')
        commands.push({
          db: 'admin',
          command: { balancerStart: 1 },
          what: 'the balancer started again (it was running before the run)',
        });
      else if (was === 'off')
        commands.push({
          db: 'admin',
          command: { balancerStop: 1 },
          what: 'the balancer stopped again (it was off before the run)',
        });
      else
        left.push(
          `the balancer was in mode "${was}" before the run and is "${is}" now: no command sets "${was}" back (balancerStart makes it "full"), so it is left "${is}"`,
        );
    }
  }
  if (before.chunkSetting !== undefined && now.chunkSetting !== undefined) {
    const was = before.chunkSetting;
    const is = now.chunkSetting;
    if (was === null && is !== null)
      commands.push({
        db: 'config',
        command: { delete: 'settings', deletes: [{ q: { _id: 'chunksize' }, limit: 1 }] },
        what: 'the chunk size back to the default (config.settings had no chunksize before the run)',
      });
    else if (was !== null && (is === null || !sameValue(was.value, is.value)))
      commands.push({
        db: 'config',
        command: {
          update: 'settings',
          updates: [{ q: { _id: 'chunksize' }, u: { $set: { value: was.value } }, upsert: true }],
        },
        what: `the chunk size back to ${String(was.value)} MB (config.settings chunksize)`,
      });
  }
  const wasColl = before.collectionChunk;
  const isColl = now.collectionChunk;
  // Only a collection sharded before the run: one the run sharded is the run's, its size with it.
  if (wasColl && isColl && !sameValue(wasColl.bytes ?? 0, isColl.bytes ?? 0)) {
    const mb = wasColl.bytes === null ? 0 : Math.round(wasColl.bytes / MIB);
    commands.push({
      db: 'admin',
      command: { configureCollectionBalancing: wasColl.ns, chunkSize: mb },
      what:
        mb === 0
          ? `${wasColl.ns}'s chunk size back to the cluster default (it had none of its own before the run)`
          : `${wasColl.ns}'s chunk size back to ${mb} MB`,
    });
  }
  return { commands, left };
}

/** The command as a mongosh line, for what could not be set back: `db.adminCommand({"balancerStart":1})`. */
export function byHand(c: Pick<RestoreCommand, 'db' | 'command'>): string {
  const body = JSON.stringify(c.command);
  return c.db === 'admin'
    ? `db.adminCommand(${body})`
    : `db.getSiblingDB(${JSON.stringify(c.db)}).runCommand(${body})`;
}

/** What will be set back at the end, given what was read before (for the log, before any change). */
export function describeRestore(before: ClusterBefore): string[] {
  const lines: string[] = [];
  const b = before.balancer;
  if (b)
    lines.push(
      'mode' in b
        ? `the balancer was "${b.mode}": ${b.mode === 'full' ? 'started again at the end if the run leaves it stopped' : b.mode === 'off' ? 'stopped again at the end if the run leaves it running' : 'no command sets this mode back'}`
        : `the balancer: ${b.unknown}, nothing to set back`,
    );
  if (before.chunkSetting !== undefined)
    lines.push(
      before.chunkSetting === null
        ? 'config.settings has no chunksize: removed at the end if the run sets one'
        : `config.settings chunksize is ${String(before.chunkSetting.value)} MB: set back at the end if the run changes it`,
    );
  if (before.collectionChunk !== undefined)
    lines.push(
      before.collectionChunk === null
        ? 'the collection is not sharded yet: the chunk size the run gives it stays with it'
        : `${before.collectionChunk.ns}'s own chunk size is ${before.collectionChunk.bytes === null ? 'the default' : `${Math.round(before.collectionChunk.bytes / MIB)} MB`}: set back at the end if the run changes it`,
    );
  return lines;
}

/**
 * Sets back what the run changed: reads the state now, sends what differs from `before`. Never throws:
 * what fails, or is not done within `timeoutMs` in all, is in `failed` with the command to send by hand.
 */
export async function restoreCluster(
  send: Send,
  before: ClusterBefore,
  options: { timeoutMs: number },
): Promise<RestoreOutcome> {
  const outcome: RestoreOutcome = { restored: [], failed: [], notes: [] };
  const deadline = Date.now() + options.timeoutMs;
  const boundedSend: Send = (db, command) => {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      send(db, command),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${options.timeoutMs / 1000} s`)),
          Math.max(0, deadline - Date.now()),
        );
      }),
    ]).finally(() => clearTimeout(timer));
  };
  let now: ClusterBefore;
  try {
    now = await readNow(boundedSend, before);
  } catch (err) {
    // The state now cannot be read: everything that can be set back is, the same commands sent
    // without comparing (each is harmless where nothing changed).
    now = blindNow(before);
    outcome.notes.push(
      `could not read the cluster's state at the end (${messageOf(err)}): everything the run may have changed is set back without comparing`,
    );
  }
  const { commands, left } = restoreCommands(before, now);
  outcome.notes.push(...left);
  for (const c of commands) {
    try {
      const reply = await boundedSend(c.db, c.command);
      const error = writeErrorOf(reply);
      if (error) throw new Error(error);
      outcome.restored.push(c);
    } catch (err) {
      outcome.failed.push(`${c.what}: not done (${messageOf(err)}); by hand: ${byHand(c)}`);
    }
  }
  return outcome;
}

/** The state now, of what `before` holds (a balancer, a chunk size, a collection sharded before the run). */
async function readNow(send: Send, before: ClusterBefore): Promise<ClusterBefore> {
  const now: ClusterBefore = {};
  if (before.balancer && 'mode' in before.balancer) now.balancer = await balancerOf(send);
  if (before.chunkSetting !== undefined) now.chunkSetting = await chunkSettingOf(send);
  if (before.collectionChunk)
    now.collectionChunk = await collectionChunkOf(send, before.collectionChunk.ns);
  return now;
}

/** What the state is taken to be when it cannot be read: changed, so everything is set back. */
function blindNow(before: ClusterBefore): ClusterBefore {
  const now: ClusterBefore = {};
  const b = before.balancer;
  if (b && 'mode' in b) now.balancer = { mode: b.mode === 'off' ? 'full' : 'off' };
  if (before.chunkSetting !== undefined)
    now.chunkSetting = before.chunkSetting === null ? { value: 'changed' } : null;
  if (before.collectionChunk)
    now.collectionChunk = {
      ns: before.collectionChunk.ns,
      bytes: before.collectionChunk.bytes === null ? -1 : null,
    };
  return now;
}

function writeErrorOf(reply: Doc): string | undefined {
  const writeErrors = reply.writeErrors as { errmsg?: string }[] | undefined;
  if (writeErrors && writeErrors.length > 0) return writeErrors[0].errmsg ?? 'write error';
  const wce = reply.writeConcernError;
  return isPlainObject(wce) ? String(wce.errmsg ?? 'write concern error') : undefined;
}
