/**
 * The three ways to import, each defined as the `mongo-bench scripts` options that set it up, so
 * its setup comes from the topology plan (one source of truth): the scripts a person runs by hand
 * and the steps the experiment applies are made by the same functions.
 */
import {
  dataDistributionSteps,
  planFromOptions,
  SetupStep,
  ShardingSpec,
  TopologyInput,
} from '../../topology';
import { ServerVersion } from '../../topology/server-version';
import { PresplitImportSettings, WayName } from './options';

export interface WayDefinition {
  name: WayName;
  /** The letter: (a), (b), (c). */
  letter: 'a' | 'b' | 'c';
  title: string;
  description: string;
}

export const WAY_DEFINITIONS: Record<WayName, WayDefinition> = {
  ranged: {
    name: 'ranged',
    letter: 'a',
    title: 'ranged key, no pre-split, balancer on',
    description:
      'Shard on the ranged key and import: the collection starts as one chunk on one shard, and only the balancer (and, before 6.0.3, the auto-splitter) spreads it.',
  },
  presplit: {
    name: 'presplit',
    letter: 'b',
    title: 'pre-split, chunks moved, balancer stopped, larger chunks',
    description:
      'Split the key range into one chunk per shard, move each chunk to its shard, raise the chunk size and stop the balancer before importing (seed 003; seed 000 Test Results 4).',
  },
  hashed: {
    name: 'hashed',
    letter: 'c',
    title: 'hashed shard key',
    description:
      'Shard on a hashed key: MongoDB creates and spreads the initial chunks itself, and the hash spreads the inserts.',
  },
};

export function wayLabel(way: WayName): string {
  const def = WAY_DEFINITIONS[way];
  return `(${def.letter}) ${def.title}`;
}

/** The `mongo-bench scripts` options that set the way up on a cluster of `shards` shards. */
export function wayTopologyInput(
  way: WayName,
  settings: PresplitImportSettings,
  shards: number,
  serverVersion: ServerVersion,
): TopologyInput {
  const base: TopologyInput = {
    topology: 'sharded',
    shards,
    db: settings.db,
    collection: settings.collection,
    serverVersion: serverVersion.text,
  };
  switch (way) {
    case 'ranged':
      return { ...base, shardKey: settings.shardKey };
    case 'presplit':
      return {
        ...base,
        shardKey: settings.shardKey,
        presplit: `${settings.range.min}:${settings.range.max}`,
        chunkSize: settings.chunkSizeMb,
        stopBalancer: true,
      };
    case 'hashed':
      return { ...base, shardKey: settings.hashedKey, hashed: true };
  }
}

/** The same options as command-line flags: `mongo-bench scripts <these>` writes the way's setup scripts. */
export function wayScriptsArgs(
  way: WayName,
  settings: PresplitImportSettings,
  shards: number,
  serverVersion: ServerVersion,
): string[] {
  const input = wayTopologyInput(way, settings, shards, serverVersion);
  const args = [
    '--topology',
    'sharded',
    '--shards',
    String(shards),
    '--db',
    settings.db,
    '--collection',
    settings.collection,
  ];
  args.push('--shard-key', String(input.shardKey));
  if (input.hashed) args.push('--hashed');
  if (input.presplit !== undefined) args.push('--presplit', String(input.presplit));
  if (input.chunkSize !== undefined) args.push('--chunk-size', String(input.chunkSize));
  if (input.stopBalancer) args.push('--stop-balancer');
  args.push('--server-version', serverVersion.text);
  return args;
}

/** The way's sharding spec, made by the topology planner from the scripts options. */
export function waySharding(
  way: WayName,
  settings: PresplitImportSettings,
  shards: number,
  serverVersion: ServerVersion,
): ShardingSpec {
  const sharding = planFromOptions(wayTopologyInput(way, settings, shards, serverVersion)).topology
    .sharding;
  if (!sharding) throw new Error('a sharded plan without a sharding spec'); // cannot happen: topology is 'sharded'
  return sharding;
}

export interface WaySetup {
  steps: SetupStep[];
  warnings: string[];
}

/**
 * The steps that set the way up on an existing cluster: exactly `dataDistributionSteps` of the
 * scripts plan (enableSharding, shardCollection, chunk size, split + moveChunk, balancer stop).
 */
export function waySetupSteps(
  way: WayName,
  settings: PresplitImportSettings,
  cluster: { shardIds: string[]; serverVersion: ServerVersion; target?: string },
): WaySetup {
  const sharding = waySharding(way, settings, cluster.shardIds.length, cluster.serverVersion);
  return dataDistributionSteps(sharding, {
    shardIds: cluster.shardIds,
    serverVersion: cluster.serverVersion,
    target: cluster.target,
  });
}
