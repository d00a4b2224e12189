/**
 * Is the results store usable, before a run measures anything? A folder: creatable and writable
 * (lib/common/dir-check). A MongoDB store: reachable; absent, empty or already a results store, never a
 * user's collection (lib/server/role-check.ts, read before any write); and it takes a write (a probe
 * document inserted and deleted by its own _id in the store's collection), after which it is marked a
 * results store. Refusals are UsageErrors (exit 2) naming the store.
 */
import { MongoClient } from 'mongodb';
import { UsageError } from '../config/errors';
import { dirProblem } from '../common/dir-check';
import { messageOf } from '../common/values';
import { redactUri } from '../security/redact';
import { parseStoreUri } from './mongo-store';
import { isMongoStoreSpec } from './store';
import { refusedSingleHost } from '../server/connect';
import { checkRole } from '../server/role-check';
import { markRole } from '../server/ownership';
import { clientTimeouts } from '../common/client-timeouts';

export async function assertStoreWritable(
  spec: string,
  options: { serverSelectionTimeoutMS?: number; option?: string } = {},
): Promise<void> {
  const option = options.option ?? 'option --store';
  if (!isMongoStoreSpec(spec)) {
    const problem = dirProblem(spec);
    if (problem) throw new UsageError(`${option}: cannot use ${spec}: ${problem}`);
    return;
  }
  const { uri, db, collection } = parseStoreUri(spec);
  const client = new MongoClient(uri, {
    ...clientTimeouts(options.serverSelectionTimeoutMS),
  });
  const refused = await refusedSingleHost(client);
  if (refused) {
    await client.close().catch(() => undefined);
    throw new UsageError(
      `${option}: the results store ${redactUri(spec)} cannot be reached: ${refused}`,
    );
  }
  try {
    // A user's collection is refused before the probe touches it.
    const state = await checkRole(client, {
      role: 'store',
      db,
      coll: collection,
      option,
      at: spec,
    });
    await probeWrite(client, db, collection).catch((err: unknown) => {
      throw new UsageError(
        `${option}: the results store ${redactUri(spec)} (${db}.${collection}) cannot be written: ${redactUri(messageOf(err))}`,
      );
    });
    // The probe created it where it was absent: marked now, so the next run finds a results store.
    if (!(state.exists && state.role === 'store'))
      await markRole(client, db, 'store', collection).catch((err: unknown) => {
        throw new UsageError(
          `${option}: the results store ${redactUri(spec)} (${db}.${collection}) cannot be marked as one: ${redactUri(messageOf(err))}`,
        );
      });
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** A probe document inserted and deleted by its own _id. */
async function probeWrite(client: MongoClient, db: string, collection: string): Promise<void> {
  const probe = `mongo-bench-write-check-${process.pid}-${Date.now()}`;
  const coll = client.db(db).collection<{ _id: string }>(collection);
  await coll.insertOne({ _id: probe });
  await coll.deleteOne({ _id: probe });
}
