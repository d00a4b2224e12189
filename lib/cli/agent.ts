import { hostname } from 'node:os';
import { Command } from 'commander';
import { CliContext } from './context';
import { EXIT, UsageError } from '../config/errors';
import { z } from 'zod';
import { MAX_WORKERS, workersArg } from '../run/options/run-options';
import { intArg, parseOptions } from '../config/validate';
import { addOptions, option, tableDefaults, tableShape, TableValues } from '../config/option-table';
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

const CONTROL_URI = /^mongodb(\+srv)?:\/\//;
const AGENT_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/** agent's own options (the connection options are added beside them), one row each, in --help's order. */
const AGENT_OPTIONS = {
  controlUri: option({
    flag: '--control-uri <uri>',
    help: 'the MongoDB deployment that coordinates the run (the target, or another one)',
    schema: z
      .string()
      .regex(CONTROL_URI, 'expected a mongodb:// or mongodb+srv:// connection string'),
  }),
  controlDb: option({
    flag: '--control-db <name>',
    help: 'the control database',
    schema: z.string(),
    default: DEFAULT_CONTROL_DB,
  }),
  name: option({
    flag: '--name <name>',
    help: "this agent's name, unique among live agents (default: <hostname>-<pid>)",
    schema: z.string().regex(AGENT_NAME, {
      error: (issue) =>
        `letters, digits, '_', '.' and '-' only (1 to 100), got "${String(issue.input)}"`,
    }),
  }),
  once: option({ flag: '--once', help: 'exit after one run', schema: z.boolean() }),
  workers: option({
    flag: '--workers <n>',
    help: `worker threads for this agent's share of each step; 1 = one event loop, no thread (default: auto = min(its clients, cores - 1))`,
    // workersArg leaves text that is neither auto nor a whole number as it is, so this names it.
    schema: z.custom<number | 'auto'>(
      (w) => w === 'auto' || (typeof w === 'number' && w >= 1 && w <= MAX_WORKERS),
      {
        error: (issue) =>
          `must be auto or a whole number from 1 to ${MAX_WORKERS}, got "${String(issue.input)}"`,
      },
    ),
    arg: () => workersArg,
  }),
  uri: option({
    flag: '--uri <uri>',
    help: 'the target as this machine reaches it (default: the URI the coordinator published, without credentials)',
    schema: z.string(),
  }),
  printK8sJob: option({
    flag: '--print-k8s-job <n>',
    help: 'print a Kubernetes Indexed Job manifest of n agents and exit',
    schema: z.number().min(1, {
      error: (issue) => `the agent count must be at least 1, got ${String(issue.input)}`,
    }),
    arg: intArg,
  }),
  image: option({
    flag: '--image <image>',
    help: 'with --print-k8s-job: the container image',
    schema: z.string(),
    default: 'node:20',
  }),
  secret: option({
    flag: '--secret <name>',
    help: 'with --print-k8s-job: the Secret holding CONTROL_URI and credentials',
    schema: z.string(),
    default: 'mongo-bench-agents',
  }),
};

const AGENT_DEFAULTS = tableDefaults(AGENT_OPTIONS);
const agentShape = tableShape(AGENT_OPTIONS);

/** What commander hands over: the table's values (as typed, not yet validated) and the connection flags. */
type AgentFlags = TableValues<typeof AGENT_OPTIONS> & ConnectionFlags;

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
    );
  addOptions(command, AGENT_OPTIONS);
  addConnectionOptions(command);
  command
    .addHelpText('after', AGENT_HELP)
    .action(async (flags: AgentFlags) => agentAction(flags, ctx));
}

async function agentAction(given: AgentFlags, ctx: CliContext): Promise<void> {
  if (given.printK8sJob !== undefined) {
    // The manifest reads these alone: the other options are not checked.
    const job = parseOptions(
      z.object(agentShape).pick({ printK8sJob: true, image: true, secret: true }),
      given,
    );
    ctx.out(
      renderK8sJob({
        agents: job.printK8sJob ?? given.printK8sJob,
        image: job.image ?? AGENT_DEFAULTS.image,
        name: 'mongo-bench-agents',
        secret: job.secret ?? AGENT_DEFAULTS.secret,
        version: toolInfo().version,
      }),
    );
    return;
  }
  if (!given.controlUri)
    throw new UsageError(
      'option --control-uri: required: the MongoDB deployment that coordinates the run, e.g. --control-uri mongodb://127.0.0.1:27017',
    );
  const {
    controlUri: _controlUri,
    controlDb: _controlDb,
    name: _name,
    once: _once,
    uri: _uri,
    workers: _workers,
    printK8sJob: _k8s,
    image: _image,
    secret: _secret,
    ...connectionFlags
  } = given;
  const { controlDb, name, once, uri, workers } = parseOptions(z.object(agentShape), given);
  const connection = resolveConnectionOptions(connectionFlags, process.env, 'flag', uri);
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
      controlUri: given.controlUri,
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
