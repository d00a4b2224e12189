/**
 * The chunk distribution reader: how many chunks of a collection each shard holds, from the config
 * database (through the mongos). Since MongoDB 5.0 config.chunks names the collection by its uuid
 * (found in config.collections), before by its namespace; the query asks for either.
 */
import { MongoClient } from 'mongodb';

type Doc = Record<string, unknown>;

export interface ChunkDistribution {
  /** When it was read (ISO time). */
  at: string;
  /** config.collections lists the namespace as sharded. */
  sharded: boolean;
  /** Chunks per shard id; every shard of the cluster is listed, with 0 when it holds none. */
  perShard: Record<string, number>;
  total: number;
}

export async function readChunkDistribution(
  client: MongoClient,
  ns: string,
  shardIds: readonly string[],
): Promise<ChunkDistribution> {
  const config = client.db('config');
  const collection = await config.collection<Doc>('collections').findOne({ _id: ns } as Doc);
  const sharded =
    collection !== null && collection.dropped !== true && collection.unsplittable !== true;
  const perShard: Record<string, number> = Object.fromEntries(shardIds.map((id) => [id, 0]));
  let total = 0;
  if (sharded) {
    const filter: Doc = collection.uuid ? { $or: [{ uuid: collection.uuid }, { ns }] } : { ns };
    const cursor = config
      .collection<Doc>('chunks')
      .find(filter, { projection: { _id: 0, shard: 1 } });
    for await (const chunk of cursor) {
      const shard = String(chunk.shard);
      perShard[shard] = (perShard[shard] ?? 0) + 1;
      total++;
    }
  }
  return { at: new Date().toISOString(), sharded, perShard, total };
}
