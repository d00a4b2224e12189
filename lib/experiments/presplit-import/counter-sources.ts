/**
 * Where the sampler's counters come from: `serverStatus` -> `opcounters.insert` on the mongos (the
 * cluster total as the router counts it) and on each shard's primary (connected through the shard's
 * replica set, as listShards names it).
 */
import { MongoClient, MongoClientOptions } from 'mongodb';
import { SampleSource, Sampler } from '../../server-stats/sampler';
import { shardConnectionString, ShardInfo } from '../../server-stats/shards';
import { messageOf } from '../../common/values';

// The per-shard sampler is the general server sampler reading one counter per source.
export type CounterSource = SampleSource<number>;
export const CounterSampler = Sampler<number>;
export type CounterSampler = Sampler<number>;

type Doc = Record<string, unknown>;

/** Runs one admin command; what a counter source needs from a connection. */
export type AdminCommand = (command: Doc) => Promise<Doc>;

/** Only the opcounters section is needed: leave out the expensive ones (unknown names are ignored by the server). */
export const SERVER_STATUS_COMMAND: Doc = {
  serverStatus: 1,
  repl: 0,
  metrics: 0,
  locks: 0,
  wiredTiger: 0,
  tcmalloc: 0,
  transactions: 0,
};

export function insertCounterOf(reply: Doc): number {
  const opcounters = reply.opcounters as Doc | undefined;
  const raw = opcounters?.insert;
  const value =
    typeof raw === 'object' && raw !== null && 'toNumber' in raw
      ? (raw as { toNumber(): number }).toNumber()
      : Number(raw);
  if (raw === undefined || raw === null || !Number.isFinite(value))
    throw new Error('serverStatus has no opcounters.insert');
  return value;
}

export function insertCounterSource(id: string, run: AdminCommand): CounterSource {
  return { id, read: async () => insertCounterOf(await run(SERVER_STATUS_COMMAND)) };
}

/** Opens a connection to a shard's primary; tests (and tunnels) may pass their own. */
export type ConnectShard = (shard: ShardInfo) => { command: AdminCommand; close(): Promise<void> };

/** The driver, through the shard's replica set (or directly to a standalone shard). */
export function driverShardConnector(
  intervalMs: number,
  clientOptions: MongoClientOptions = {},
): ConnectShard {
  return (shard) => {
    let client: MongoClient | undefined;
    let failure: Error | undefined;
    try {
      client = new MongoClient(shardConnectionString(shard), {
        // Short timeouts: a shard that cannot be reached is a gap in its series, not a long stall.
        serverSelectionTimeoutMS: Math.max(2000, intervalMs * 2),
        connectTimeoutMS: Math.max(2000, intervalMs * 2),
        maxPoolSize: 2,
        ...clientOptions,
      });
    } catch (err) {
      failure = new Error(`cannot connect to shard ${shard.id} (${shard.host}): ${messageOf(err)}`);
    }
    return {
      command: async (command) => {
        if (!client) throw failure!;
        return client.db('admin').command(command);
      },
      close: async () => {
        await client?.close();
      },
    };
  };
}
