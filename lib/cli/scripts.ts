import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { CliContext } from './context';
import { UsageError } from '../config/errors';
import { z } from 'zod';
import { intArg, kebab, parseOptions } from '../config/validate';
import { addOptions, option, tableShape, TableValues } from '../config/option-table';
import { dropUndefined } from '../common/values';
import { fileEntries, FileWrites, FORCE_OPTION } from '../common/file-plan';
import { assertWritableDir } from '../common/dir-check';
import { TOPOLOGY_OPTIONS } from '../topology/options';
import {
  GeneratedFile,
  planFromOptions,
  renderPlanTable,
  renderScriptFiles,
  SetupPlan,
  TopologyInput,
} from '../topology';
import { CLUSTER_SHAPE_KEYS } from '../deployment/target-options';
import { presetOps, renderLegacyBenchRunScript, scriptFileName } from '../workload';
import { RUN_DEFAULTS } from '../run/options/run-options';

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

/** scripts' own options (the topology's are TOPOLOGY_OPTIONS), one row each, in --help's order. */
const atLeastOne = z.number().min(1, {
  error: (issue) => `must be at least 1 (got ${String(issue.input)})`,
});

const SCRIPTS_OPTIONS = {
  out: option({
    flag: '--out <dir>',
    help: 'output folder (default: shell-scripts/<topology-name>)',
    schema: z.string(),
  }),
  dryRun: option({
    flag: '--dry-run',
    help: 'print the plan as a table instead of writing files',
    schema: z.boolean(),
  }),
  workload: option({
    flag: '--workload <name>',
    help: 'also write benchrun-<name>.js: the sweep as benchRun() calls for the legacy mongo shell (MongoDB 5.0 and older), e.g. 6to1',
    schema: z.string(),
  }),
  maxClients: option({
    flag: '--max-clients <n>',
    help: 'with --workload: clients 1, 2, 4, ... up to n',
    schema: atLeastOne,
    default: RUN_DEFAULTS.maxClients,
    arg: intArg,
  }),
  seconds: option({
    flag: '--seconds <s>',
    help: 'with --workload: seconds per client count',
    schema: atLeastOne,
    default: RUN_DEFAULTS.seconds,
    arg: intArg,
  }),
  docs: option({
    flag: '--docs <n>',
    help: 'with --workload: documents loaded, random _id drawn from [0, n)',
    schema: atLeastOne,
    default: RUN_DEFAULTS.docs,
    arg: intArg,
  }),
  force: FORCE_OPTION,
};

const scriptsSchema = z.object(tableShape(SCRIPTS_OPTIONS)).strict();

/** The rows of TOPOLOGY_OPTIONS scripts shows after the cluster shape: all but the shape, in the table's order. */
const TOPOLOGY_KEYS = (Object.keys(TOPOLOGY_OPTIONS) as (keyof typeof TOPOLOGY_OPTIONS)[]).filter(
  (key) => !(CLUSTER_SHAPE_KEYS as readonly string[]).includes(key),
);

type ScriptsFlags = TopologyInput & TableValues<typeof SCRIPTS_OPTIONS>;

export function registerScripts(program: Command, ctx: CliContext, deps: ScriptsDeps = {}): void {
  const command = program
    .command('scripts')
    .description(
      'plan a topology and write the mongod/mongos command lines and mongosh setup scripts',
    );
  // The cluster shape first, as run shows it; scripts launches nothing, so none of run's binary or launch flags.
  addOptions(command, TOPOLOGY_OPTIONS, CLUSTER_SHAPE_KEYS);
  addOptions(command, TOPOLOGY_OPTIONS, TOPOLOGY_KEYS);
  addOptions(command, SCRIPTS_OPTIONS).action(async (flags: ScriptsFlags) => {
    const { out, dryRun, workload, maxClients, seconds, docs, force, ...input } = flags;
    const workloadOptions = { maxClients, seconds, docs };
    if (workload === undefined) {
      for (const [key, value] of Object.entries(workloadOptions)) {
        if (value !== undefined)
          throw new UsageError(`option --${kebab(key)}: only applies with --workload`);
      }
    }
    parseOptions(
      scriptsSchema,
      dropUndefined({ out, dryRun, workload, force, ...workloadOptions }),
    );
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
    assertWritableDir(dir, out !== undefined ? 'option --out' : 'scripts folder');
    // Before the first write: a README.md or script of the user's by one of these names is refused.
    const writes = FileWrites.check(
      fileEntries(
        dir,
        files.map((f) => f.file),
        'scripts',
      ),
      { force },
    );
    mkdirSync(dir, { recursive: true });
    for (const file of files) {
      const target = path.join(dir, file.file);
      writeFileSync(target, file.text);
      if (file.executable) chmodSync(target, 0o755);
      ctx.out(`wrote ${target}`);
    }
    await writes.record();
    ctx.out(`next: read ${path.join(dir, 'README.md')} (the order to run the files in)`);
  });
}
