/**
 * Cluster state around the ways. The ways' own setup comes from the topology plan; these are the
 * commands that put the cluster back where a way expects to start: the benchmark collection dropped,
 * the balancer running, the chunk size as it was before the experiment. At the end the balancer
 * mode and the chunk size are restored to what the experiment found.
 */
import { Db, MongoClient } from 'mongodb';
import { ServerVersion } from '../../topology/server-version';
import { HousekeepingRecord } from './result';
import { dropCollection as guardedDrop, GuardPolicy } from '../../server/data-guard';
import { messageOf } from '../../common/values';

type Doc = Record<string, unknown>;

export interface ClusterBaseline {
  /** balancerStatus.mode ("full", "off"), or null when the server did not say. */
  balancerMode: string | null;
  /** config.settings {_id: "chunksize"}.value, or null when the cluster uses its default. */
  chunkSizeMb: number | null;
}

export async function readBaseline(client: MongoClient): Promise<ClusterBaseline> {
  let balancerMode: string | null = null;
  try {
    const status = await client.db('admin').command({ balancerStatus: 1 });
    balancerMode = typeof status.mode === 'string' ? status.mode : null;
  } catch {
    // Older servers have no balancerStatus: leave the balancer as it is found.
  }
  const setting = await client
    .db('config')
    .collection<Doc>('settings')
    .findOne({ _id: 'chunksize' } as Doc);
  const value = setting?.value;
  return {
    balancerMode,
    chunkSizeMb: typeof value === 'number' ? value : value == null ? null : Number(value),
  };
}

async function send(
  db: Db,
  description: string,
  command: Doc,
  log: HousekeepingRecord[],
  tolerate?: (err: unknown) => boolean,
): Promise<void> {
  try {
    await db.command(command);
    log.push({ description, db: db.databaseName, command, ok: true });
  } catch (err) {
    if (tolerate?.(err)) {
      log.push({ description, db: db.databaseName, command, ok: true });
      return;
    }
    log.push({ description, db: db.databaseName, command, ok: false, error: messageOf(err) });
    throw err;
  }
}

/** --setup (or a cluster the matrix started) is the consent to drop the way's collection (lib/server/data-guard). */
const SETUP_CONSENT: GuardPolicy = { ours: false, consent: true, consentFlag: '--setup' };

export async function dropCollection(
  client: MongoClient,
  db: string,
  collection: string,
  log: HousekeepingRecord[],
): Promise<void> {
  const description = `Drop ${db}.${collection} (and its chunks)`;
  await guardedDrop(client, db, collection, SETUP_CONSENT, {
    onCommand: (c) => log.push({ description, ...c }),
  });
}

// balancerStart/balancerStop exist on every supported server (3.4+; mongo-bench's floor is 4.4).
function balancerCommand(start: boolean, _version: ServerVersion): { db: string; command: Doc } {
  return { db: 'admin', command: start ? { balancerStart: 1 } : { balancerStop: 1 } };
}

async function setChunkSize(
  client: MongoClient,
  chunkSizeMb: number | null,
  log: HousekeepingRecord[],
): Promise<void> {
  const config = client.db('config');
  if (chunkSizeMb === null) {
    await send(
      config,
      'Back to the default chunk size',
      { delete: 'settings', deletes: [{ q: { _id: 'chunksize' }, limit: 1 }] },
      log,
    );
  } else {
    await send(
      config,
      `Chunk size back to ${chunkSizeMb} MB`,
      {
        update: 'settings',
        updates: [{ q: { _id: 'chunksize' }, u: { $set: { value: chunkSizeMb } }, upsert: true }],
      },
      log,
    );
  }
}

/** Before a way: no collection, the balancer running, the chunk size the experiment found. */
export async function resetForWay(
  client: MongoClient,
  target: { db: string; collection: string },
  baseline: ClusterBaseline,
  version: ServerVersion,
): Promise<HousekeepingRecord[]> {
  const log: HousekeepingRecord[] = [];
  await dropCollection(client, target.db, target.collection, log);
  const start = balancerCommand(true, version);
  await send(
    client.db(start.db),
    'Start the balancer (an earlier way may have stopped it)',
    start.command,
    log,
  );
  await setChunkSize(client, baseline.chunkSizeMb, log);
  return log;
}

/** After the experiment: the balancer mode and chunk size as found; the collection dropped unless kept. */
export async function restoreBaseline(
  client: MongoClient,
  target: { db: string; collection: string; keepData: boolean },
  baseline: ClusterBaseline,
  version: ServerVersion,
): Promise<{ log: HousekeepingRecord[]; warnings: string[] }> {
  const log: HousekeepingRecord[] = [];
  const warnings: string[] = [];
  const attempt = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      warnings.push(`could not ${what}: ${messageOf(err)}`);
    }
  };
  if (!target.keepData)
    await attempt(`drop ${target.db}.${target.collection}`, () =>
      dropCollection(client, target.db, target.collection, log),
    );
  if (baseline.balancerMode !== null) {
    const cmd = balancerCommand(baseline.balancerMode !== 'off', version);
    await attempt(`put the balancer back (${baseline.balancerMode})`, () =>
      send(client.db(cmd.db), `Balancer back to "${baseline.balancerMode}"`, cmd.command, log),
    );
  }
  await attempt('put the chunk size back', () => setChunkSize(client, baseline.chunkSizeMb, log));
  return { log, warnings };
}
