import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { CliContext } from './context';
import { UsageError } from '../config/errors';
import { intArg, kebab, numberArg } from '../config/validate';
import {
  GeneratedFile,
  planFromOptions,
  renderPlanTable,
  renderScriptFiles,
  SetupPlan,
  TopologyInput,
} from '../topology';
import { addClusterShapeOptions } from './topology-options';
import { presetOps, renderLegacyBenchRunScript, scriptFileName } from '../workload';
import { RUN_DEFAULTS } from '../run/run-options';

export interface WorkloadScriptOptions {
  maxClients?: number;
  seconds?: number;
  docs?: number;
  docSize?: number;
}

/** `--workload NAME`: extra files for the output folder, given the workload name and the plan. */
export type WorkloadScriptRenderer = (
  workload: string,
  plan: SetupPlan,
  options: WorkloadScriptOptions,
) => GeneratedFile[];

export interface ScriptsDeps {
  /** Replaceable so tests can capture the plan the command built. */
  renderWorkload?: WorkloadScriptRenderer;
}

/** The legacy shell's benchRun() sweep over the plan's collection (MongoDB 5.0 and older). */
export const renderBenchRunWorkload: WorkloadScriptRenderer = (workload, plan, options) => {
  const ns = `${plan.topology.options.db}.${plan.topology.options.collection}`;
  const docs = options.docs ?? RUN_DEFAULTS.docs;
  const ops = presetOps(workload, { ns, docs, docSize: options.docSize ?? RUN_DEFAULTS.docSize });
  const text = renderLegacyBenchRunScript({
    workload: { name: workload, ops },
    ns,
    maxClients: options.maxClients ?? RUN_DEFAULTS.maxClients,
    seconds: options.seconds ?? RUN_DEFAULTS.seconds,
    // The legacy mongo shell ends with 5.0: a plan for a newer server is run from a 5.0 shell.
    shellVersion:
      plan.topology.serverVersion.major >= 5 ? { major: 5, minor: 0 } : plan.topology.serverVersion,
  });
  return [{ file: scriptFileName(workload), text }];
};

interface ScriptsFlags extends TopologyInput, WorkloadScriptOptions {
  out?: string;
  dryRun?: boolean;
  workload?: string;
}

function numberListArg(flag: string) {
  const one = numberArg(flag);
  return (value: string): number[] => value.split(',').map((part) => one(part));
}

export function registerScripts(program: Command, ctx: CliContext, deps: ScriptsDeps = {}): void {
  const command = program
    .command('scripts')
    .description(
      'plan a topology and write the mongod/mongos command lines and mongosh setup scripts',
    );
  // run's cluster shape flags; scripts launches nothing, so none of run's binary or launch flags.
  addClusterShapeOptions(command);
  command
    .option('--arbiter', 'replset: add an arbiter')
    .option(
      '--priorities <list>',
      'replset: member priorities in member order, e.g. 2,1,1',
      numberListArg('--priorities'),
    )
    .option(
      '--host <host>',
      'the address the processes use for each other and clients use (default: 127.0.0.1)',
    )
    .option('--bind-ip <list>', 'what the processes listen on (default: 127.0.0.1)')
    .option(
      '--base-port <port>',
      'first port; the processes take consecutive ports (default: 27017)',
      intArg('--base-port'),
    )
    .option('--data-dir <dir>', 'one folder per process under it (default: mongo-bench-data)')
    .option('--db <name>', 'sharded: database to shard (default: mongo_bench)')
    .option(
      '--collection <name>',
      'sharded: collection to shard (default: docs, where run loads its documents)',
    )
    .option('--shard-key <field>', 'sharded: shard key field (default: _id)')
    .option('--hashed', 'sharded: hashed shard key instead of ranged')
    .option(
      '--presplit <min:max>',
      'sharded: pre-split a numeric ranged key over [min, max) into one chunk per shard',
    )
    .option(
      '--chunk-size <mb>',
      'sharded: chunk size in MB (config.settings)',
      intArg('--chunk-size'),
    )
    .option(
      '--stop-balancer',
      'sharded: leave the balancer stopped (a --presplit stops it before the splits and otherwise starts it again at the end)',
    )
    .option('--server-version <x.y>', 'MongoDB version to plan for (default: 7.0; at least 4.4)')
    .option(
      '--cache-size-gb <gb>',
      "each mongod's WiredTiger cache in GB (default: computed when 00-start.sh runs: 50% of (RAM - 1 GB) shared by the mongods, at least 0.25)",
      numberArg('--cache-size-gb'),
    )
    .option(
      '--auth',
      'access control: keyfile between members (--auth for a standalone) and a first admin user; the scripts read the password from MONGO_BENCH_PASSWORD or ask',
    )
    .option(
      '--auth-user <name>',
      'with --auth: the first admin user (default: admin; MONGO_BENCH_USER overrides it when the scripts run)',
    )
    .option('--out <dir>', 'output folder (default: shell-scripts/<topology-name>)')
    .option('--dry-run', 'print the plan as a table instead of writing files')
    .option(
      '--workload <name>',
      'also write benchrun-<name>.js: the sweep as benchRun() calls for the legacy mongo shell (MongoDB 5.0 and older), e.g. 6to1',
    )
    .option(
      '--max-clients <n>',
      `with --workload: clients 1, 2, 4, ... up to n (default: ${RUN_DEFAULTS.maxClients})`,
      intArg('--max-clients'),
    )
    .option(
      '--seconds <s>',
      `with --workload: seconds per client count (default: ${RUN_DEFAULTS.seconds})`,
      intArg('--seconds'),
    )
    .option(
      '--docs <n>',
      `with --workload: documents loaded, random _id drawn from [0, n) (default: ${RUN_DEFAULTS.docs})`,
      intArg('--docs'),
    )
    .action((flags: ScriptsFlags) => {
      const { out, dryRun, workload, maxClients, seconds, docs, docSize, ...input } = flags;
      const workloadOptions = { maxClients, seconds, docs, docSize };
      if (workload === undefined) {
        for (const [key, value] of Object.entries(workloadOptions)) {
          if (value !== undefined)
            throw new UsageError(`option --${kebab(key)}: only applies with --workload`);
        }
      }
      for (const [key, value] of Object.entries(workloadOptions)) {
        if (value !== undefined && value < 1)
          throw new UsageError(`option --${kebab(key)}: must be at least 1 (got ${value})`);
      }
      const plan = planFromOptions(input);
      for (const warning of plan.warnings) ctx.err(`warning: ${warning}`);
      const files = renderScriptFiles(plan);
      if (workload !== undefined)
        files.push(
          ...(deps.renderWorkload ?? renderBenchRunWorkload)(workload, plan, workloadOptions),
        );
      if (dryRun) {
        ctx.out(renderPlanTable(plan));
        return;
      }
      const dir = out ?? path.join('shell-scripts', plan.topology.name);
      mkdirSync(dir, { recursive: true });
      for (const file of files) {
        const target = path.join(dir, file.file);
        writeFileSync(target, file.text);
        if (file.executable) chmodSync(target, 0o755);
        ctx.out(`wrote ${target}`);
      }
      ctx.out(`next: read ${path.join(dir, 'README.md')} (the order to run the files in)`);
    });
}
