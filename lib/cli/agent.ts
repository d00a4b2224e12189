import { hostname } from 'node:os';
import { Command } from 'commander';
import { CliContext } from './context';
import { EXIT, UsageError } from '../config/errors';
import { MAX_WORKERS, workersArg } from '../run/run-options';
import { intArg } from '../config/validate';
import { redactText } from '../security/redact';
import {
  addConnectionOptions,
  ConnectionFlags,
  connectionSecrets,
  resolveConnectionOptions,
  toMongoClientOptions,
} from '../security/connection';
import { installInterrupt } from '../run/interrupt';
import { runAgent } from '../agents/agent';
import { DEFAULT_CONTROL_DB } from '../agents/control';
import { renderK8sJob } from '../agents/k8s-job';
import { toolInfo } from '../common/version';

interface AgentFlags extends ConnectionFlags {
  controlUri?: string;
  controlDb?: string;
  name?: string;
  once?: boolean;
  uri?: string;
  printK8sJob?: number;
  image?: string;
  secret?: string;
  workers?: number | 'auto' | string;
}

const AGENT_HELP = `
An agent is one load machine of a run spread over several (see docs/agents.md). Start one per machine
(its share of each step runs on worker threads, one per core but one, as a local run does), then on any machine:
  mongo-bench run --agents N --control-uri URI --uri TARGET ...
The agent registers in the control database (${DEFAULT_CONTROL_DB}), heartbeats, runs its share of every
step of the run it claims, and waits for the next run until Ctrl-C (or exits after one with --once).
The control database never holds credentials: the target's come from this agent's own flags and
environment (MONGO_BENCH_USER, MONGO_BENCH_PASSWORD), as for run.

Examples:
  mongo-bench agent --control-uri mongodb://control.example:27017
  ssh load1 mongo-bench agent --control-uri mongodb://control.example:27017 --once
  mongo-bench agent --print-k8s-job 8 > agents.yaml

Exit codes:
  0    stopped (Ctrl-C while waiting, or --once after its run)
  1    the control database could not be used, or the name is taken
  2    bad input
  130  stopped by Ctrl-C during a step (its partial measurement was written)`;

export function registerAgent(program: Command, ctx: CliContext): void {
  const command = program
    .command('agent')
    .description(
      'one load machine of a run spread over several machines: register in the control database, wait for runs, run a share of their clients',
    )
    .option(
      '--control-uri <uri>',
      'the MongoDB deployment that coordinates the run (the target, or another one)',
    )
    .option('--control-db <name>', `the control database (default: ${DEFAULT_CONTROL_DB})`)
    .option(
      '--name <name>',
      "this agent's name, unique among live agents (default: <hostname>-<pid>)",
    )
    .option('--once', 'exit after one run')
    .option(
      '--workers <n>',
      `worker threads for this agent's share of each step; 1 = one event loop, no thread (default: auto = min(its clients, cores - 1))`,
      workersArg,
    )
    .option(
      '--uri <uri>',
      'the target as this machine reaches it (default: the URI the coordinator published, without credentials)',
    )
    .option(
      '--print-k8s-job <n>',
      'print a Kubernetes Indexed Job manifest of n agents and exit',
      intArg('--print-k8s-job'),
    )
    .option('--image <image>', 'with --print-k8s-job: the container image (default: node:20)')
    .option(
      '--secret <name>',
      'with --print-k8s-job: the Secret holding CONTROL_URI and credentials (default: mongo-bench-agents)',
    );
  addConnectionOptions(command);
  command
    .addHelpText('after', AGENT_HELP)
    .action(async (flags: AgentFlags) => agentAction(flags, ctx));
}

async function agentAction(flags: AgentFlags, ctx: CliContext): Promise<void> {
  if (flags.printK8sJob !== undefined) {
    if (flags.printK8sJob < 1)
      throw new UsageError(
        `option --print-k8s-job: the agent count must be at least 1, got ${flags.printK8sJob}`,
      );
    ctx.out(
      renderK8sJob({
        agents: flags.printK8sJob,
        image: flags.image ?? 'node:20',
        name: 'mongo-bench-agents',
        secret: flags.secret ?? 'mongo-bench-agents',
        version: toolInfo().version,
      }),
    );
    return;
  }
  if (!flags.controlUri)
    throw new UsageError(
      'option --control-uri: required: the MongoDB deployment that coordinates the run, e.g. --control-uri mongodb://127.0.0.1:27017',
    );
  if (!/^mongodb(\+srv)?:\/\//.test(flags.controlUri))
    throw new UsageError(
      `option --control-uri: expected a mongodb:// or mongodb+srv:// connection string`,
    );
  if (flags.name !== undefined && !/^[A-Za-z0-9_.-]{1,100}$/.test(flags.name))
    throw new UsageError(
      `option --name: letters, digits, '_', '.' and '-' only (1 to 100), got "${flags.name}"`,
    );
  const {
    controlUri,
    controlDb,
    name,
    once,
    uri,
    workers,
    printK8sJob: _k8s,
    image: _image,
    secret: _secret,
    ...connectionFlags
  } = flags;
  if (
    workers !== undefined &&
    workers !== 'auto' &&
    (typeof workers !== 'number' || workers < 1 || workers > MAX_WORKERS)
  ) {
    throw new UsageError(
      `option --workers: must be auto or a whole number from 1 to ${MAX_WORKERS}, got "${String(workers)}"`,
    );
  }
  const connection = resolveConnectionOptions(connectionFlags);
  const secrets = connectionSecrets(connection.options);
  const err = (text: string) =>
    ctx.err(redactText(text.endsWith('\n') ? text : `${text}\n`, secrets));
  for (const w of connection.warnings) err(`warning: ${w}`);
  const interrupt = installInterrupt({
    onSignal: (name, first) =>
      err(
        first
          ? `${name}: stopping the agent (its step, if any, writes what it measured)`
          : `${name} again: quitting now`,
      ),
  });
  try {
    const summary = await runAgent({
      controlUri,
      ...(controlDb ? { controlDb } : {}),
      name: name ?? `${hostname()}-${process.pid}`,
      once: once === true,
      workers: workers ?? 'auto',
      ...(uri ? { targetUri: uri } : {}),
      clientOptions: toMongoClientOptions(connection.options),
      signal: interrupt.signal,
      log: (line) => err(`[agent] ${line}`),
    });
    err(`[agent] stopped after ${summary.runs} run${summary.runs === 1 ? '' : 's'}`);
    ctx.exitCode = summary.interruptedStep ? EXIT.sigint : EXIT.ok;
  } finally {
    interrupt.dispose();
  }
}
