/**
 * The setup plan: the one source of truth that the mongosh scripts (render-mongosh.ts), the
 * process command lines (render-start-sh.ts) and the driver path (apply.ts) are all made from.
 *
 * A step is `{ target, command, description, waitFor? }`: connect to the process named `target`,
 * run the admin command document `command` (on `db`, "admin" unless it says otherwise). `check`
 * describes the read-only test that tells whether the step is already done, so a second run skips
 * it; both renderers implement the same checks.
 */
import {
  Topology,
  ProcessSpec,
  ShardingSpec,
  processByName,
  QUIESCE_MS,
  MAX_VOTING_MEMBERS,
} from './model';
import { describeCacheSize } from './cache-size';
import { presplit } from './split';
import { oneLine } from './js-literal';
import { RunError } from '../config/errors';
import { ServerVersion, versionFeatures } from './server-version';

export type Doc = Record<string, unknown>;

/** Read-only tests: when one reports "done", its step is skipped. */
export type StepCheck =
  /** The member's local.system.replset holds the config of this set (so it was initiated into it). */
  | { kind: 'replSetInitiated'; setName: string }
  /** listShards names this shard. */
  | { kind: 'shardAdded'; shardId: string }
  /**
   * config.databases has the database; with `partitioned` (servers before 6.0) only when it says
   * `partitioned: true`: a database created by a plain write is listed with `partitioned: false`
   * and still needs enableSharding (src/mongo/s/catalog/type_database.idl, r5.0).
   */
  | { kind: 'databaseExists'; db: string; partitioned?: true }
  /** config.collections has the namespace, sharded; with a different key the step fails instead. */
  | { kind: 'collectionSharded'; ns: string; key: Doc }
  /** config.settings {_id: id} has field === value. */
  | { kind: 'settingEquals'; id: string; field: string; value: unknown }
  /** config.chunks has a chunk of ns whose lower bound is `min` (the split point exists). */
  | { kind: 'chunkBoundary'; ns: string; min: Doc }
  /** The chunk of ns identified by `chunk` (its min or its max bound) lives on `shard`. */
  | { kind: 'chunkOnShard'; ns: string; chunk: { min: Doc } | { max: Doc }; shard: string }
  /** config.collections has the namespace with maxChunkSizeBytes === bytes (configureCollectionBalancing, 6.0+). */
  | { kind: 'collectionChunkSize'; ns: string; bytes: number }
  /** balancerStatus says mode "off". */
  | { kind: 'balancerStopped' }
  /**
   * balancerStatus says mode "off", or every chunk of the pre-split already sits on its shard (a
   * second run, after the balancer was started again, has nothing to split or move).
   */
  | {
      kind: 'balancerStoppedOrDistributed';
      ns: string;
      chunks: { chunk: { min: Doc } | { max: Doc }; shard: string }[];
    }
  /** balancerStatus says mode "full". */
  | { kind: 'balancerRunning' }
  /** The connection to the target authenticated as the plan's admin user (so the user exists). */
  | { kind: 'userAuthenticated' };

/**
 * Stand-ins for the credentials inside a plan's commands: the plan, the scripts, the plan table and
 * the command log show these; the executors (the mongosh runtime, applyPlan) put the real values in
 * at the last moment, from MONGO_BENCH_USER / MONGO_BENCH_PASSWORD or the prompt.
 */
export const CREDENTIAL_PLACEHOLDERS = {
  user: '<MONGO_BENCH_USER>',
  password: '<MONGO_BENCH_PASSWORD>',
} as const;

/**
 * Wait until the set has a PRIMARY that accepts writes: the member the target names as primary (or
 * the target itself) must say `isWritablePrimary: true` (`ismaster: true` where hello is unknown).
 * A new primary first drains its oplog buffer while it already reports itself as `primary` with
 * `isWritablePrimary: false` (src/mongo/db/repl/replication_coordinator_impl.cpp, signalDrainComplete;
 * hello's isWritablePrimary is canAcceptNonLocalWrites), and a write sent then fails NotWritablePrimary.
 */
export interface WaitForPrimary {
  kind: 'primary';
  setName: string;
  timeoutMs: number;
}

export interface SetupStep {
  /** The process to connect to: a replica-set member or a mongos (a ProcessSpec name). */
  target: string;
  /** The database the command runs on. */
  db: string;
  command: Doc;
  description: string;
  check?: StepCheck;
  waitFor?: WaitForPrimary;
  /**
   * Set when the plan already knows this step should turn out to be a no-op (its check will find
   * it done), with the reason; the step stays in the plan because only the run-time check can be sure.
   */
  expectSkip?: string;
  /** Which script the step belongs to. */
  phase: 'replsets' | 'cluster';
  /**
   * Run the command on the PRIMARY of the target's replica set (which the target names in hello
   * once the election is over) rather than on the target itself: createUser needs the primary.
   */
  onPrimary?: boolean;
}

export interface PlanProcess {
  name: string;
  kind: ProcessSpec['kind'];
  address: string;
  /** The replica set the target belongs to, for a member. */
  replSet?: string;
}

export interface SetupPlan {
  topology: Topology;
  /** Every process to start, in port order (same objects as topology.processes). */
  processes: ProcessSpec[];
  /** Where each step's target lives. */
  targets: Record<string, PlanProcess>;
  steps: SetupStep[];
  /** Version-dependent facts worth saying in the scripts' comments. */
  notes: string[];
  /** Doubts about the inputs (even member counts, empty chunks, ...). */
  warnings: string[];
}

/** How long to wait for an election after replSetInitiate, unless told otherwise. */
export const PRIMARY_TIMEOUT_MS = 60_000;

export interface PlanOptions {
  primaryTimeoutMs?: number;
}

export function buildSetupPlan(topology: Topology, options: PlanOptions = {}): SetupPlan {
  const timeoutMs = options.primaryTimeoutMs ?? PRIMARY_TIMEOUT_MS;
  const steps: SetupStep[] = [];
  const warnings: string[] = [];

  // 1. Initiate every replica set on its first member, config servers first (mongos needs them).
  for (const rs of topology.replicaSets) {
    const target = rs.processes[0];
    steps.push({
      phase: 'replsets',
      target,
      db: 'admin',
      command: { replSetInitiate: rs.config },
      description: `Initiate replica set ${rs.name} (${rs.config.members.map((m) => m.host).join(', ')})`,
      check: { kind: 'replSetInitiated', setName: rs.name },
      waitFor: { kind: 'primary', setName: rs.name, timeoutMs },
    });
    if (topology.auth)
      steps.push(firstUserStep(target, 'replsets', `on the PRIMARY of ${rs.name}`));
  }
  // A standalone has no set to initiate: only its first user.
  if (topology.auth && topology.kind === 'standalone')
    steps.push(firstUserStep(topology.processes[0].name, 'replsets', 'on the standalone'));

  if (topology.kind === 'sharded' && topology.sharding) {
    const mongos = topology.routers[0];
    // 2. Register the shards with the cluster.
    for (const shard of topology.shards) {
      steps.push({
        phase: 'cluster',
        target: mongos,
        db: 'admin',
        command: { addShard: shard.connectionString },
        description: `Add shard ${shard.id}`,
        check: { kind: 'shardAdded', shardId: shard.id },
      });
    }
    // 3-6. Shard the collection and distribute its data.
    const distribution = dataDistributionSteps(topology.sharding, {
      shardIds: topology.shards.map((s) => s.id),
      serverVersion: topology.serverVersion,
      target: mongos,
    });
    steps.push(...distribution.steps);
    warnings.push(...distribution.warnings);
  }

  const targets: Record<string, PlanProcess> = {};
  for (const step of steps) {
    const p = processByName(topology, step.target);
    targets[p.name] = {
      name: p.name,
      kind: p.kind,
      address: p.address,
      ...(p.replSet ? { replSet: p.replSet } : {}),
    };
  }
  return {
    topology,
    processes: topology.processes,
    targets,
    steps,
    notes: [...versionNotes(topology), ...votingNotes(topology), ...processNotes(topology)],
    warnings,
  };
}

/**
 * createUser for the first admin user, through the localhost exception (open until a first user
 * exists): root, so the later steps and the benchmark can do everything. Every replica set gets
 * one: the config servers' user is the cluster's (mongos reads users from them); a shard's own
 * user closes that shard's localhost exception.
 */
export function firstUserStep(target: string, phase: SetupStep['phase'], where: string): SetupStep {
  return {
    phase,
    target,
    db: 'admin',
    command: {
      createUser: CREDENTIAL_PLACEHOLDERS.user,
      pwd: CREDENTIAL_PLACEHOLDERS.password,
      roles: [{ role: 'root', db: 'admin' }],
    },
    description: `Create the first admin user ${where} (localhost exception)`,
    check: { kind: 'userAuthenticated' },
    onPrimary: true,
  };
}

/** A copy of a command with the credential stand-ins replaced by the real values. */
export function withCredentials(
  command: Doc,
  credentials: { username: string; password: string },
): Doc {
  const fill = (value: unknown): unknown => {
    if (value === CREDENTIAL_PLACEHOLDERS.user) return credentials.username;
    if (value === CREDENTIAL_PLACEHOLDERS.password) return credentials.password;
    if (Array.isArray(value)) return value.map(fill);
    if (
      value !== null &&
      typeof value === 'object' &&
      Object.getPrototypeOf(value) === Object.prototype
    ) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    }
    return value;
  };
  return fill(command) as Doc;
}

export interface DistributionContext {
  /** The cluster's shard ids, in the order chunks are dealt to them. */
  shardIds: string[];
  serverVersion: ServerVersion;
  /** The mongos the steps target; any name when applyPlan's connect ignores it (an existing cluster). */
  target?: string;
  /**
   * Ask enableSharding for this primary shard (default: the first shard id, when the server
   * supports the field). With it the plan knows where the collection's first chunk starts.
   */
  primaryShard?: string | null;
}

/**
 * The data-distribution steps: what `run --setup` applies to an existing cluster. enableSharding,
 * shardCollection, chunk size, pre-split (split + moveChunk), balancer stop, in that order.
 */
export function dataDistributionSteps(
  sharding: ShardingSpec,
  ctx: DistributionContext,
): { steps: SetupStep[]; warnings: string[] } {
  const target = ctx.target ?? 'mongos-0';
  if (ctx.shardIds.length === 0)
    throw new RunError(
      'cannot plan the data distribution: the cluster has no shards (listShards is empty)',
    );
  const features = versionFeatures(ctx.serverVersion);
  const steps: SetupStep[] = [];
  const warnings: string[] = [];
  const cluster = (s: Omit<SetupStep, 'phase' | 'target' | 'db'> & { db?: string }): SetupStep => ({
    phase: 'cluster',
    target,
    db: s.db ?? 'admin',
    ...s,
  });

  // enableSharding's primaryShard exists on every supported server (4.2.2+; the floor is 4.4).
  const primaryShard =
    ctx.primaryShard === null ? undefined : (ctx.primaryShard ?? ctx.shardIds[0]);
  steps.push(
    cluster({
      command: { enableSharding: sharding.db, ...(primaryShard ? { primaryShard } : {}) },
      description: `Enable sharding for database ${sharding.db}${primaryShard ? ` (primary shard ${primaryShard})` : ''}`,
      check: {
        kind: 'databaseExists',
        db: sharding.db,
        ...(features.partitionedField ? { partitioned: true as const } : {}),
      },
    }),
  );
  steps.push(
    cluster({
      command: { shardCollection: sharding.ns, key: sharding.key },
      description: `Shard collection ${sharding.ns} on key ${oneLine(sharding.key)}${sharding.hashed ? ' (hashed)' : ' (ranged)'}`,
      check: { kind: 'collectionSharded', ns: sharding.ns, key: sharding.key },
    }),
  );
  if (sharding.chunkSizeMb !== undefined && features.collectionChunkSize) {
    // 6.0+: the chunk size of this collection only (stored as config.collections maxChunkSizeBytes,
    // src/mongo/db/s/config/configsvr_configure_collection_balancing.cpp), not the cluster's.
    steps.push(
      cluster({
        command: { configureCollectionBalancing: sharding.ns, chunkSize: sharding.chunkSizeMb },
        description: `Set the chunk size of ${sharding.ns} to ${sharding.chunkSizeMb} MB`,
        check: {
          kind: 'collectionChunkSize',
          ns: sharding.ns,
          bytes: sharding.chunkSizeMb * 1024 * 1024,
        },
      }),
    );
  } else if (sharding.chunkSizeMb !== undefined) {
    steps.push(
      cluster({
        db: 'config',
        command: {
          update: 'settings',
          updates: [
            { q: { _id: 'chunksize' }, u: { $set: { value: sharding.chunkSizeMb } }, upsert: true },
          ],
        },
        description: `Set the chunk size to ${sharding.chunkSizeMb} MB`,
        check: {
          kind: 'settingEquals',
          id: 'chunksize',
          field: 'value',
          value: sharding.chunkSizeMb,
        },
      }),
    );
  }
  if (sharding.presplit) {
    const field = sharding.shardKey;
    const split = presplit(sharding.presplit, ctx.shardIds.length);
    warnings.push(...split.warnings);
    const identityOf = (chunk: (typeof split.chunks)[number]) =>
      // A chunk is named by a bound that no later split changes: its max for the first chunk, else its min.
      chunk.min === 'MinKey'
        ? { max: { [field]: chunk.max as number } }
        : { min: { [field]: chunk.min as number } };
    if (split.splitPoints.length > 0) {
      // The balancer must be off before the first split: on 4.4-6.0.2 a running balancer starts
      // migrating the new chunks and a manual moveChunk then collides with its migration
      // (ConflictingOperationInProgress). Since 4.2 balancerStop also stops the auto-splitter and
      // balancerStart starts it again (docs: reference/command/balancerStop, v4.4 and v5.0).
      steps.push(
        cluster({
          command: { balancerStop: 1 },
          description: 'Stop the balancer before splitting and moving chunks',
          check: {
            kind: 'balancerStoppedOrDistributed',
            ns: sharding.ns,
            chunks: split.chunks.map((c) => ({
              chunk: identityOf(c),
              shard: ctx.shardIds[c.shardIndex],
            })),
          },
        }),
      );
    }
    for (const point of split.splitPoints) {
      steps.push(
        cluster({
          command: { split: sharding.ns, middle: { [field]: point } },
          description: `Split ${sharding.ns} at ${field} = ${point}`,
          check: { kind: 'chunkBoundary', ns: sharding.ns, min: { [field]: point } },
        }),
      );
    }
    if (split.splitPoints.length > 0) {
      for (const chunk of split.chunks) {
        const to = ctx.shardIds[chunk.shardIndex];
        const identity = identityOf(chunk);
        const range = `[${chunk.min === 'MinKey' ? 'MinKey' : chunk.min}, ${chunk.max === 'MaxKey' ? 'MaxKey' : chunk.max})`;
        steps.push(
          cluster({
            command: { moveChunk: sharding.ns, find: { [field]: chunk.findPoint }, to },
            description: `Move the chunk ${range} (found by ${field} = ${chunk.findPoint}) to ${to}`,
            check: { kind: 'chunkOnShard', ns: sharding.ns, chunk: identity, shard: to },
            ...(to === primaryShard
              ? {
                  expectSkip: `the collection's chunks start on the database's primary shard ${primaryShard}, so this chunk is already there`,
                }
              : {}),
          }),
        );
      }
    }
  }
  const stoppedForSplit = steps.some((s) => s.command.balancerStop !== undefined);
  if (sharding.stopBalancer && !stoppedForSplit) {
    steps.push(
      cluster({
        command: { balancerStop: 1 },
        description: 'Stop the balancer',
        check: { kind: 'balancerStopped' },
      }),
    );
  } else if (!sharding.stopBalancer && stoppedForSplit) {
    // Stopped only for the splits and moves: the cluster goes back to balancing (--stop-balancer keeps it off).
    steps.push(
      cluster({
        command: { balancerStart: 1 },
        description: 'Start the balancer again',
        check: { kind: 'balancerRunning' },
      }),
    );
  }
  return { steps, warnings };
}

/** Which members of which replica sets are planned without a vote (past the 7 voting members MongoDB allows). */
export function votingNotes(topology: Topology): string[] {
  const notes: string[] = [];
  for (const rs of topology.replicaSets) {
    const silent = rs.config.members.filter((m) => m.votes === 0);
    if (silent.length === 0) continue;
    notes.push(
      `Replica set ${rs.name} has ${rs.config.members.length} members, but MongoDB allows at most ${MAX_VOTING_MEMBERS} voting members ` +
        `(ReplSetConfig::validate, src/mongo/db/repl/repl_set_config.cpp): ${silent.map((m) => m.host).join(', ')} ` +
        `${silent.length === 1 ? 'is' : 'are'} planned with votes: 0, priority: 0 (they replicate and can serve reads, but never vote or become primary).`,
    );
  }
  return notes;
}

/** What the scripts should say about the processes they start (not for an existing cluster's --setup). */
export function processNotes(topology: Topology): string[] {
  const notes = [
    describeCacheSize(
      topology.processes.filter((p) => p.kind === 'mongod').length,
      topology.options.cacheSizeGb,
    ),
  ];
  if (versionFeatures(topology.serverVersion).quiesceParameters) {
    notes.push(
      `Every process starts with a ${QUIESCE_MS / 1000} s quiesce period for a signalled shutdown (the server's default is 15 s since 5.0), so stopping the deployment tier by tier is quick.`,
    );
  }
  return notes;
}

/** What the scripts should say about the server version they were planned for. */
export function versionNotes(topology: Topology): string[] {
  const v = topology.serverVersion;
  const features = versionFeatures(v);
  const notes: string[] = [`Planned for MongoDB ${v.text} (--server-version).`];
  if (topology.kind === 'sharded') {
    notes.push(
      'Shards and config servers are replica sets (required since MongoDB 3.6); the seeds (MongoDB 1.8) ran plain --shardsvr/--configsvr processes.',
    );
    const s = topology.sharding;
    if (s?.presplit) {
      notes.push(
        features.autoSplit
          ? s.stopBalancer
            ? 'The balancer is stopped before the splits and stays off; since 4.2 balancerStop also stops the auto-splitter, so the pre-split alone decides how the data is distributed.'
            : 'The balancer is stopped for the splits and moves (since 4.2 balancerStop also stops the auto-splitter) and started again at the end; from then on this server auto-splits chunks as they grow.'
          : 'Since 6.0.3 MongoDB no longer auto-splits chunks: the pre-split alone decides how the data is distributed.',
      );
      if (features.shardAndDistribute) {
        notes.push(
          `Alternative on 8.0: sh.shardAndDistributeCollection("${s.ns}", ${oneLine(s.key)}) shards the collection and spreads its chunks in one call (instead of split + moveChunk).`,
        );
      }
    } else if (s && !s.hashed && !features.autoSplit) {
      notes.push(
        'Since 6.0.3 MongoDB no longer auto-splits chunks: without a pre-split the balancer only moves data by size.',
      );
    }
    if (features.enableShardingOptional)
      notes.push(
        'Since 6.0 enableSharding only creates the database; it is kept to choose the primary shard.',
      );
  }
  return notes;
}
