/**
 * The matrix's target, chosen and acquired the way `mongo-bench run` does it: lib/run's
 * resolveRunPlan picks it (an existing --uri, the embedded mongodb-memory-server, or processes
 * launched from a setup plan) and lib/run's acquireTarget starts it, applies the plan and stops
 * it. This file only adapts the two to the matrix: which flags go in, which plan steps a matrix
 * needs, and command-log.txt / setup.js in the matrix folder.
 */
import { UsageError } from '../config/errors';
import { kebab } from '../config/validate';
import { acquireTarget, AcquiredTarget } from '../run/acquire-target';
import { CommandLog, renderSetupJs, writeSetupJs } from '../run/artifacts';
import { resolveRunPlan, TargetPlan } from '../run/run-plan';
import { SetupPlan, SetupStep } from '../topology';
import { redactUri } from '../security/redact';
import { Experiment } from '../experiments/experiment';
import { allExperiments } from '../experiments/registry';
import { TopologyFlags, TOPOLOGY_FLAG_KEYS } from '../target/flags';

export interface MatrixTarget {
  plan: TargetPlan;
  /** Said before the run and in command-log.txt (e.g. even member counts). */
  warnings: string[];
}

export interface ResolveTargetContext {
  db: string;
  experiment: Experiment;
  env?: Readonly<Record<string, string | undefined>>;
  now?: Date;
}

/** --uri, or the topology flags -> the target plan. Every error is a UsageError naming the flag. */
export function resolveMatrixTarget(uri: string | undefined, flags: TopologyFlags, ctx: ResolveTargetContext): MatrixTarget {
  const given = TOPOLOGY_FLAG_KEYS.filter((k) => flags[k] !== undefined);
  if (uri !== undefined) {
    if (given.length > 0) throw new UsageError(`option --${kebab(given[0])}: does not apply with --uri (the deployment exists; nothing is started)`);
    return { plan: { kind: 'uri', uri }, warnings: [] };
  }
  const topology = flags.topology ?? 'standalone';
  if (ctx.experiment.needs?.topology === 'sharded' && topology !== 'sharded') {
    throw new UsageError(
      `option --topology: ${ctx.experiment.name} needs a sharded cluster (its rows would all be skipped on a ${topology}): ` +
        'add --topology sharded --shards K (with --bin-dir or --mongod-bin), or --uri of an existing mongos with --setup',
    );
  }
  // run's own resolution: binaries (--mongod-bin, --bin-dir, MONGOMS_*/MONGOD_BIN), embedded or launched, the plan.
  // For a sharded cluster run also plans the sharding of its benchmark collection, which clusterOnly
  // drops again; a hashed key keeps it from planning a pre-split (and from naming the cluster "-presplit").
  const runPlan = resolveRunPlan({ ...flags, db: ctx.db, ...(topology === 'sharded' ? { hashed: true } : {}) }, { env: ctx.env, now: ctx.now });
  const plan = runPlan.target;
  if (plan.kind === 'launched' && plan.plan.topology.kind === 'sharded') {
    return { plan: { ...plan, plan: clusterOnly(plan.plan) }, warnings: runPlan.warnings };
  }
  return { plan, warnings: runPlan.warnings };
}

/**
 * A launched cluster's plan up to the shards being added: run's plan also shards its benchmark
 * collection, which no matrix experiment uses (an experiment that shards shards its own collection).
 */
export function clusterOnly(plan: SetupPlan): SetupPlan {
  return {
    ...plan,
    steps: plan.steps.filter((s) => s.phase === 'replsets' || 'addShard' in s.command),
    notes: plan.notes.filter((n) => !n.includes('enableSharding')),
  };
}

/** One line on where the server comes from, for the progress, the log and matrix.json. */
export function describeTarget(plan: TargetPlan): string {
  switch (plan.kind) {
    case 'uri':
      return `the existing deployment at ${redactUri(plan.uri)} (nothing is started or stopped)`;
    case 'embedded':
      return `embedded MongoDB (mongodb-memory-server): ${plan.topology === 'standalone' ? 'a standalone' : `a ${plan.replicas}-member replica set`} on 127.0.0.1, stopped and removed at the end`;
    case 'launched':
      return `a local ${plan.plan.topology.name} cluster launched from the setup plan with ${plan.binaries.origin}, stopped at the end`;
  }
}

/** "<name> <where it logs its own setup>" for each experiment that changes a deployment's setup. */
function selfLogging(): string {
  return allExperiments().flatMap((e) => (e.needs?.setup ? [`${e.name} ${e.needs.setup.loggedIn}`] : [])).join('; ');
}

export interface MatrixTargetHooks {
  signal: AbortSignal;
  note(text: string): void;
}

export interface AcquiredMatrixTarget {
  uri: string;
  /** Stops what was started (also after a failure), then writes setup.js if the log was opened. */
  release(): Promise<void>;
}

/**
 * Starts (or finds) the target, logging every process command line and admin command to `log`.
 * On failure everything started is stopped (by acquireTarget) and setup.js shows what was attempted.
 */
export async function acquireMatrixTarget(target: TargetPlan, log: CommandLog, outDir: string, hooks: MatrixTargetHooks): Promise<AcquiredMatrixTarget> {
  const setupPlan = target.kind === 'launched' ? target.plan : undefined;
  const attempted: SetupStep[] = [];
  const writeSetup = () => {
    if (!log.opened) return; // never reached a server: nothing is written
    const purpose = target.kind === 'launched' ? `the setup plan of the launched ${target.plan.topology.name}` : '';
    const nothingBecause =
      target.kind === 'embedded'
        ? 'the embedded MongoDB (mongodb-memory-server) gets no setup steps from mongo-bench'
        : target.kind === 'uri'
          ? `an existing deployment (--uri) is used as it is (${selfLogging()})`
          : target.plan.steps.length === 0
            ? 'a standalone needs no setup steps'
            : 'the matrix stopped before the first setup step';
    writeSetupJs(outDir, renderSetupJs(setupPlan, attempted, { purpose, nothingBecause }));
  };
  let acquired: AcquiredTarget;
  try {
    acquired = await acquireTarget(target, {
      signal: hooks.signal,
      onCommandLine: (line) => log.commandLine(line),
      onCommand: (entry) => log.command(entry),
      onNote: hooks.note,
      onPhase: (phase, detail) => hooks.note(`${phase}: ${detail}`),
      onStep: (e) => {
        const step = setupPlan?.steps[e.step - 1];
        if (e.status === 'running' && step && !attempted.includes(step)) attempted.push(step);
        if (e.status !== 'running') hooks.note(`setup ${e.step}/${e.steps}: ${e.description} (${e.status})`);
      },
    });
  } catch (err) {
    writeSetup();
    throw err;
  }
  // The embedded server was reached: from here on the folder holds the log.
  if (target.kind !== 'uri') log.open();
  let released = false;
  return {
    uri: acquired.uri,
    release: async () => {
      if (released) return;
      released = true;
      try {
        if (target.kind !== 'uri') hooks.note('stop: stopping what the matrix started');
        await acquired.release();
      } finally {
        writeSetup();
      }
    },
  };
}
