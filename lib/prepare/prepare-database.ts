/**
 * What `run` may change on the target before the benchmark: drop the collections the load replaces
 * (--drop, nothing else is ever dropped), and on an existing sharded cluster (--uri ... --setup)
 * the plan's data-distribution steps: enableSharding, shardCollection, chunk size, pre-split,
 * balancer stop (the balancer and the chunk size are set back at the run's end:
 * lib/run/cluster-restore.ts). On a deployment mongo-bench did not start the caller's check (the run's
 * write plan) runs first, before any of it. Every command goes to the command log.
 */
import { MongoClient } from 'mongodb';
import { RunError } from '../config/errors';
import { redactUri } from '../security/redact';
import { Target } from '../server/target';
import { dropCollection, GuardCommand, guardPolicy } from '../server/data-guard';
import {
  applyPlan,
  CommandLogEntry,
  dataDistributionSteps,
  driverConnector,
  parseServerVersion,
  SetupPlan,
  SetupStep,
  versionNotes,
} from '../topology';
import { messageOf } from '../common/values';
import type { ClusterBefore } from '../server/cluster-state';
import type { Namespace } from '../workload/language/op-spec';

export interface PrepareHooks {
  onCommand(entry: CommandLogEntry): void;
  onNote(text: string): void;
  onStep?(event: { step: number; steps: number; description: string; status: string }): void;
  /** --setup: the plan as it will be applied here (its steps and targets), before the first step. */
  onPlanned?(plan: SetupPlan): void;
}

export interface PrepareOptions {
  target: Target;
  /** --drop: the collections the load replaces, dropped first. */
  drops: Namespace[];
  /** --uri --setup: the plan whose sharding spec is applied (data-distribution steps only). */
  setup?: SetupPlan;
  serverSelectionTimeoutMS: number;
  /** Runs before anything is dropped or applied, on the same connection; throws to refuse (the run's write plan). */
  check?(client: MongoClient): Promise<void>;
  /**
   * The cluster's state before the run (lib/run/cluster-restore.ts), which the run sets back at its end:
   * a balancer that was not running is not started after a pre-split, and --stop-balancer stops a
   * running one whatever its chunks.
   */
  clusterBefore?: ClusterBefore;
}

export interface Prepared {
  /** The plan as applied to this deployment (its steps and targets), for setup.js. */
  plan?: SetupPlan;
  steps: SetupStep[];
}

export async function prepareDatabase(
  options: PrepareOptions,
  hooks: PrepareHooks,
): Promise<Prepared> {
  if (options.drops.length === 0 && !options.setup) return { steps: [] };
  const { target } = options;
  return target.withClient(
    async (client) => {
      const address = client.options.hosts.map((h) => h.toString()).join(',');
      await client.connect();
      await options.check?.(client);
      for (const ns of options.drops) await dropReplaced(client, ns, target, address, hooks);
      if (!options.setup) return { steps: [] };
      return await applyDistribution(client, options, address, hooks);
    },
    { serverSelectionTimeoutMS: options.serverSelectionTimeoutMS },
  );
}

/** One collection the load replaces, dropped (--drop is the consent; the write plan passed). */
async function dropReplaced(
  client: MongoClient,
  ns: Namespace,
  target: Target,
  address: string,
  hooks: PrepareHooks,
): Promise<void> {
  const started = Date.now();
  const log = (c: GuardCommand) =>
    hooks.onCommand({
      step: 0,
      steps: 0,
      description: '--drop',
      target: 'target',
      address,
      purpose: 'apply',
      ...c,
      durationMs: Date.now() - started,
    });
  try {
    await dropCollection(client, ns.db, ns.coll, guardPolicy(target.origin, true), {
      onCommand: log,
    });
  } catch (err) {
    throw new RunError(
      `--drop: could not drop ${ns.db}.${ns.coll} on ${redactUri(target.uri)}: ${messageOf(err)}`,
    );
  }
}

async function applyDistribution(
  client: MongoClient,
  options: PrepareOptions,
  address: string,
  hooks: PrepareHooks,
): Promise<Prepared> {
  const plan = options.setup!;
  const sharding = plan.topology.sharding!;
  const admin = client.db('admin');
  // What the cluster is: logged like the plan's own checks.
  const ask = async (command: Record<string, unknown>) => {
    const started = Date.now();
    const entry = {
      step: 0,
      steps: 0,
      description: '--setup',
      target: 'mongos-0',
      address,
      db: 'admin',
      command,
      purpose: 'check' as const,
    };
    try {
      const reply = await admin.command(command);
      hooks.onCommand({ ...entry, ok: true, durationMs: Date.now() - started });
      return reply;
    } catch (err) {
      hooks.onCommand({
        ...entry,
        ok: false,
        error: messageOf(err),
        durationMs: Date.now() - started,
      });
      throw err;
    }
  };
  let shardIds: string[];
  try {
    const reply = await ask({ listShards: 1 });
    shardIds = ((reply.shards as { _id: string }[] | undefined) ?? []).map((s) => s._id);
  } catch (err) {
    throw new RunError(
      `--setup: ${redactUri(options.target.uri)} did not answer listShards (${messageOf(err)}); --setup needs a mongos of a sharded cluster`,
    );
  }
  const build = await ask({ buildInfo: 1 });
  // The patch matters (6.0.3 stops auto-splitting; hello from 4.4.2): keep X.Y.Z, drop a suffix such as -rc0.
  const version =
    typeof build.version === 'string'
      ? (/^\d+\.\d+(\.\d+)?/.exec(build.version)?.[0] ?? plan.topology.serverVersion.text)
      : plan.topology.serverVersion.text;
  hooks.onNote(
    `existing cluster: shards ${shardIds.join(', ') || '(none)'}, MongoDB ${String(build.version ?? 'unknown')}`,
  );
  // primaryShard: null = leave the database's primary shard alone; moves already in place are skipped by their checks.
  const { steps: planned, warnings } = dataDistributionSteps(sharding, {
    shardIds,
    serverVersion: parseServerVersion(version, "--uri (the cluster's buildInfo.version)"),
    target: 'mongos-0',
    primaryShard: null,
  });
  for (const w of warnings) hooks.onNote(`warning: ${w}`);
  const steps = asFound(planned, sharding.stopBalancer, options.clusterBefore, hooks);
  const targets: SetupPlan['targets'] = {
    'mongos-0': { name: 'mongos-0', kind: 'mongos', address },
  };
  // The existing cluster's processes are not ours: only the version notes apply (no cache or quiesce note).
  const applied: SetupPlan = { ...plan, steps, targets, notes: versionNotes(plan.topology) };
  hooks.onPlanned?.(applied);
  const connector = driverConnector({
    uri: options.target.uri,
    clientOptions: {
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
      ...options.target.clientOptions,
    },
  });
  try {
    await applyPlan({ steps, targets }, connector.connect, {
      onCommand: (e) => hooks.onCommand(e),
      onStep: (e) => hooks.onStep?.(e),
    });
  } finally {
    await connector.close().catch(() => undefined);
  }
  return { plan: applied, steps };
}

/**
 * The steps on a cluster whose state the run sets back at its end (`before`, read first):
 * - a pre-split without --stop-balancer starts the balancer again after its moves only if it was
 *   running before the run: one the user had stopped stays stopped;
 * - --stop-balancer stops a running balancer, even where the chunks are already in place (a second run:
 *   the first one's end started it again), so the benchmark runs without it as asked.
 */
function asFound(
  steps: SetupStep[],
  stopBalancer: boolean,
  before: ClusterBefore | undefined,
  hooks: PrepareHooks,
): SetupStep[] {
  const mode = before?.balancer && 'mode' in before.balancer ? before.balancer.mode : undefined;
  if (mode === undefined) return steps;
  return steps.flatMap((step): SetupStep[] => {
    if (step.command.balancerStart !== undefined && mode !== 'full') {
      hooks.onNote(
        `the balancer was "${mode}" before the run: it is not started again after the pre-split`,
      );
      return [];
    }
    if (
      stopBalancer &&
      step.command.balancerStop !== undefined &&
      step.check?.kind === 'balancerStoppedOrDistributed'
    )
      return [{ ...step, check: { kind: 'balancerStopped' } }];
    return [step];
  });
}
