/** The cluster's shards as listShards names them: shared with the run's server sampler (lib/server-stats/shards.ts). */
export { listShards, parseShardHost, shardConnectionString } from '../../server-stats/shards';
export type { ShardInfo } from '../../server-stats/shards';
