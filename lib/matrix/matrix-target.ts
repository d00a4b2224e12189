/**
 * The matrix's target, chosen and acquired the way `mongo-bench run` does it: lib/deployment's
 * resolveTargetPlan picks it (an existing --uri, the embedded mongodb-memory-server, or processes
 * launched from a setup plan; a sharded cluster up to its shards, no collection sharded) and its
 * acquireTarget starts it, applies the plan and gives a Target (lib/server) that stops it. This
 * file only adapts the two to the matrix: which flags go in, and command-log.txt / setup.js in the
 * matrix folder.
 */
import { UsageError } from '../config/errors';
import { z } from 'zod';
import { kebab, parseOptions } from '../config/validate';
import { acquireTarget } from '../deployment/acquire';
import { CommandLog, SetupJsRecord, setupJsWhy } from '../deployment/command-log';
import { resolveTargetPlan, TargetPlan } from '../deployment/plan';
import { openTarget, Target } from '../server/target';
import { redactUri } from '../security/redact';
import { Experiment } from '../experiments/experiment';
import { allExperiments } from '../experiments/registry';
import { targetShape, TopologyFlags, TOPOLOGY_FLAG_KEYS } from '../deployment/target-options';

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
export function resolveMatrixTarget(
  uri: string | undefined,
  flags: TopologyFlags,
  ctx: ResolveTargetContext,
): MatrixTarget {
  const given = TOPOLOGY_FLAG_KEYS.filter((k) => flags[k] !== undefined);
  if (uri !== undefined) {
    if (given.length > 0)
      throw new UsageError(
        `option --${kebab(given[0])}: does not apply with --uri (the deployment exists; nothing is started)`,
      );
    return { plan: { kind: 'uri', uri }, warnings: [] };
  }
  const topology = flags.topology ?? 'standalone';
  if (ctx.experiment.needs?.topology === 'sharded' && topology !== 'sharded') {
    throw new UsageError(
      `option --topology: ${ctx.experiment.name} needs a sharded cluster (its rows would all be skipped on a ${topology}): ` +
        'add --topology sharded --shards K (with --bin-dir or --mongod-bin), or --uri of an existing mongos with --setup',
    );
  }
  // run's own resolution (binaries from --mongod-bin, --bin-dir, MONGOMS_*/MONGOD_BIN; embedded or
  // launched; the plan), with no benchmark collection: a sharded cluster is planned up to its shards.
  const checked = parseOptions(z.object(targetShape).strict(), flags) as TopologyFlags;
  const resolved = resolveTargetPlan(checked, {
    env: ctx.env ?? process.env,
    now: ctx.now ?? new Date(),
    db: ctx.db,
  });
  return { plan: resolved.target, warnings: resolved.warnings };
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
  return allExperiments()
    .flatMap((e) => (e.needs?.setup ? [`${e.name} ${e.needs.setup.loggedIn}`] : []))
    .join('; ');
}

export interface MatrixTargetHooks {
  signal: AbortSignal;
  note(text: string): void;
}

/**
 * Starts (or finds) the target, logging every process command line and admin command to `log`.
 * On failure everything started is stopped (by acquireTarget) and setup.js shows what was attempted;
 * the Target's release() stops what was started, then writes setup.js if the log was opened.
 */
export async function acquireMatrixTarget(
  target: TargetPlan,
  log: CommandLog,
  outDir: string,
  hooks: MatrixTargetHooks,
): Promise<Target> {
  // Never reached a server (the log not opened): nothing is written.
  const setupJs = new SetupJsRecord(
    outDir,
    log,
    target,
    setupJsWhy(target, 'matrix', { purpose: '', asItIs: selfLogging() }),
  );
  let acquired: Target;
  try {
    acquired = await acquireTarget(target, {
      signal: hooks.signal,
      emit: (e) => {
        if (e.type === 'command-line') log.commandLine(e.line);
        else if (e.type === 'command') log.command(e.entry);
        else if (e.type === 'note') hooks.note(e.text);
        else if (e.type === 'phase') hooks.note(`${e.phase}: ${e.detail}`);
        else if (e.type === 'setup-step') {
          setupJs.step(e);
          if (e.status !== 'running')
            hooks.note(`setup ${e.step}/${e.steps}: ${e.description} (${e.status})`);
        }
      },
    });
  } catch (err) {
    setupJs.write();
    throw err;
  }
  // The embedded server was reached: from here on the folder holds the log.
  if (target.kind !== 'uri') log.open();
  return openTarget(
    {
      uri: acquired.uri,
      origin: acquired.origin,
      stop: async () => {
        try {
          if (acquired.origin !== 'uri') hooks.note('stop: stopping what the matrix started');
          await acquired.release();
        } finally {
          setupJs.write();
        }
      },
    },
    acquired.clientOptions,
  );
}
