/**
 * The one place where mongo-bench drops or empties anything on a server (test/architecture/drop-guard.test.ts
 * fails on a drop, dropDatabase or deleteMany({}) anywhere else in lib/).
 *
 * The rule: on a deployment the tool started (embedded, launched) everything is ours. On one it was given
 * (--uri) a collection is dropped, emptied or filled only when it is absent, or owned by mongo-bench
 * (ownership.ts: marked with the collection's UUID, or, where the server reports none, its count and `_id`
 * range, and unchanged since). Anything else needs the user's consent (`--drop`); a database is dropped only
 * with that consent. Refusals are UsageErrors (exit 2) naming the namespace, its document count and the
 * consent flag.
 */
import { Document, MongoClient, MongoServerError, WriteConcernSettings } from 'mongodb';
import { RunError, UsageError } from '../config/errors';
import { messageOf } from '../common/values';
import type { TargetOrigin } from './target';
import { forgetOwned, markOwned, OWNER_COLLECTION, readNamespaceState } from './ownership';

export { OWNER_COLLECTION };

export interface GuardPolicy {
  /** The deployment was started by this tool (embedded, launched): nothing on it is the user's. */
  ours: boolean;
  /** The user said so (--drop): drop and replace whatever is there. */
  consent: boolean;
  /** The flag that gives consent, for the refusal's message (e.g. "--drop"). */
  consentFlag: string;
  /** What the consent does, for the refusal's message (e.g. "drops database app first"). */
  consentEffect?: string;
}

export function guardPolicy(
  origin: TargetOrigin,
  consent: boolean,
  consentFlag = '--drop',
  consentEffect?: string,
): GuardPolicy {
  return {
    ours: origin !== 'uri',
    consent,
    consentFlag,
    ...(consentEffect ? { consentEffect } : {}),
  };
}

/** What a command was, for a caller's command log. */
export interface GuardCommand {
  db: string;
  command: Document;
  ok: boolean;
  error?: string;
}

export interface Ownership {
  ours: boolean;
  /** Documents the collection holds (estimated count). */
  docs: number;
  /** Why it counts as ours or not, in words. */
  why: string;
}

const namespaceNotFound = (err: unknown) =>
  err instanceof MongoServerError && (err.code === 26 || /ns not found/i.test(err.message));

/**
 * Whether `db.coll` may be dropped and recreated: absent, or mongo-bench's (ownership.ts); reads only. An
 * empty collection that is not mongo-bench's is not: it carries the user's indexes, validator, options and
 * shard key (the write plan's rule, write-plan.ts).
 */
export async function ownership(client: MongoClient, db: string, coll: string): Promise<Ownership> {
  const state = await readNamespaceState(client, db, coll);
  if (!state.exists) return { ours: true, docs: 0, why: 'absent' };
  if (state.docs === 0 && !state.owned)
    return {
      ours: false,
      docs: 0,
      why: `empty, but not mongo-bench's (${state.why}): its indexes, options and shard key are the user's`,
    };
  return { ours: state.owned, docs: state.docs, why: state.why };
}

/** Throws the refusal unless `db.coll` may be dropped, emptied or filled under `policy`. */
export async function assertMayReplace(
  client: MongoClient,
  db: string,
  coll: string,
  policy: GuardPolicy,
  doing = 'drop, empty or fill',
): Promise<void> {
  if (policy.ours || policy.consent) return;
  const found = await ownership(client, db, coll).catch((err: unknown) => {
    // Unchecked is refused: nothing is dropped, emptied or filled on a guess.
    throw new RunError(
      `cannot check whether ${db}.${coll} holds only what mongo-bench loaded, so nothing was changed: ${messageOf(err)}`,
    );
  });
  if (found.ours) return;
  const holds =
    found.docs === 0
      ? `${db}.${coll} is ${found.why}`
      : `${db}.${coll} holds ${found.docs} document${found.docs === 1 ? '' : 's'} mongo-bench did not load (${found.why})`;
  throw new UsageError(
    `${holds}: ` +
      `it will not ${doing} it on a deployment it did not start. Choose another namespace, or give ${policy.consentFlag}` +
      `${policy.consentEffect ? ` (${policy.consentEffect})` : ''} to replace it`,
  );
}

/** Marks `db.coll` as loaded by this tool, its load under way (a later run may drop and reload it). */
export async function claimCollection(
  client: MongoClient,
  db: string,
  coll: string,
  writeConcern?: WriteConcernSettings,
): Promise<void> {
  await markOwned(client, db, coll, 'loading', writeConcern);
}

/**
 * Drops `db.coll` (absent is fine) after the ownership check; with `claim`, marks it ours for what is
 * loaded next. Without `claim` the marker goes too.
 */
export async function dropCollection(
  client: MongoClient,
  db: string,
  coll: string,
  policy: GuardPolicy,
  options: {
    claim?: boolean;
    onCommand?: (c: GuardCommand) => void;
    writeConcern?: WriteConcernSettings;
  } = {},
): Promise<void> {
  await assertMayReplace(client, db, coll, policy);
  const command = { drop: coll };
  try {
    await client.db(db).command(command);
    options.onCommand?.({ db, command, ok: true });
  } catch (err) {
    if (!namespaceNotFound(err)) {
      options.onCommand?.({ db, command, ok: false, error: messageOf(err) });
      throw err;
    }
    options.onCommand?.({ db, command, ok: true });
  }
  await mark(client, db, coll, policy, options.claim === true, options.writeConcern);
}

/** Empties `db.coll` (deleteMany {}), keeping the collection (its sharding, its options), after the ownership check. */
export async function emptyCollection(
  client: MongoClient,
  db: string,
  coll: string,
  policy: GuardPolicy,
  writeConcern?: WriteConcernSettings,
): Promise<void> {
  await assertMayReplace(client, db, coll, policy);
  await client
    .db(db)
    .collection(coll)
    .deleteMany({}, writeConcern ? { writeConcern } : {});
  await mark(client, db, coll, policy, true, writeConcern);
}

/**
 * Drops a collection this process created a moment ago under a name of its own (a probe's scratch
 * collection): no ownership check, since nothing else can have written it; failures are ignored.
 */
export async function dropScratch(client: MongoClient, db: string, coll: string): Promise<void> {
  await client
    .db(db)
    .collection(coll)
    .drop()
    .catch(() => undefined);
}

/** Throws the refusal unless database `db` may be dropped: a server the tool started, or the user's consent. */
export function assertMayDropDatabase(db: string, policy: GuardPolicy): void {
  if (!policy.ours && !policy.consent)
    throw new UsageError(
      `database ${db} is dropped only with ${policy.consentFlag} on a deployment mongo-bench did not start`,
    );
}

/** Drops database `db`: only on a deployment the tool started, or with the user's consent (--drop). */
export async function dropDatabase(
  client: MongoClient,
  db: string,
  policy: GuardPolicy,
  onCommand?: (c: GuardCommand) => void,
): Promise<void> {
  assertMayDropDatabase(db, policy);
  const command = { dropDatabase: 1 };
  try {
    await client.db(db).command(command);
    onCommand?.({ db, command, ok: true });
  } catch (err) {
    onCommand?.({ db, command, ok: false, error: messageOf(err) });
    throw err;
  }
}

async function mark(
  client: MongoClient,
  db: string,
  coll: string,
  policy: GuardPolicy,
  claim: boolean,
  writeConcern?: WriteConcernSettings,
): Promise<void> {
  // A server the tool started needs no marker: everything on it is its own.
  if (policy.ours) return;
  if (claim) await claimCollection(client, db, coll, writeConcern);
  else await forgetOwned(client, db, coll, writeConcern);
}
