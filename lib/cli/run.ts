import { Command } from 'commander';
import { warningLines } from '../metrics/warnings';
import { URI_ENV } from '../security/uri-credentials';
import { CliContext, rawArgs } from './context';
import { EXIT, UsageError } from '../config/errors';
import {
  autoWarmupCap,
  BenchmarkFlags,
  RATE_PROBE_DEFAULT_SECONDS,
  RunFlags,
  RUN_DEFAULTS,
} from '../run/options/run-options';
import { RUN_OPTIONS, RUN_OUTPUT_KEYS, RUN_OUTPUT_OPTIONS } from '../run/options/run-option-table';
import { addOptions } from '../config/option-table';
import { RUN_PRESET_NAMES, RUN_PRESETS, RunPresetName } from '../run/options/presets';
import { clientCountsUpTo } from '../workload/language/sweep';
import { redactText } from '../security/redact';
import { addTopologyOptions } from './topology-options';
import {
  addConnectionOptions,
  ConnectionFlags,
  connectionSecrets,
  describeConnection,
  resolveConnectionOptions,
  splitConnectionFlags,
  toMongoClientOptions,
} from '../security/connection';
import { resolveRunPlan } from '../run/options/run-plan';
import { checkWireMechanism } from '../run/options/driver-check';
import { TARGET_OPTIONS } from '../deployment/target-options';
import { RUN_SOURCE_OPTIONS } from '../run/options/run-source-options';
import { renderDryRun } from '../run/options/dry-run';
import { executeRun } from '../run/execute';
import { installInterrupt } from '../run/interrupt';
import { AGENT_RUN_OPTIONS, resolveAgentRunOptions } from '../agents/options';
import { startCoordinator } from '../run/start-coordinator';
import { uriTarget } from '../server/target';
import type { Coordinator } from '../agents/coordinator';
import { afterRun } from '../run/after-run';
import { describeVerdict } from '../slo/check';
import type { ResultDocument } from '../result';
import { ProgressTracker } from '../run/progress';
import { formatDuration, sweepSeconds } from '../run/options/sweep-time';
import { dropUndefined } from '../common/values';
import { RunEvent } from '../run/events';
import { ProgressPrinter, SilentPrinter } from './progress-printer';

const RUN_HELP = `
Where the server comes from:
  (default)                  an embedded MongoDB (mongodb-memory-server): a standalone, or
                             --topology replset --replicas 3; its mongod from --mongod-bin, MONGOMS_SYSTEM_BINARY,
                             its cache or its download. Offline with none, the run fails at once and says how to go on.
  --topology sharded         a local cluster launched from the setup plan (mongod and mongos from --bin-dir or
                             --mongod-bin); --mongod-bin/--bin-dir with standalone or replset launch it the same way
  --uri URI                  an existing deployment: every write is listed (--dry-run prints them) and checked
                             before the first; a collection mongo-bench does not own is refused (exit 2) unless its
                             consent is given (--drop, --no-load, --allow-setup-writes); --setup also shards the
                             collection there

Everything goes to one folder, reports/<timestamp>-<label>/ (or --out): results.json, the PNG charts,
summary.md, results.csv, index.html, setup.js (the mongosh equivalent of what was applied) and
command-log.txt (every process command line and admin command, in order, credentials removed).
Ctrl-C or SIGTERM stops the clients, writes the partial result and its report, stops every process
the run started, and exits 130 / 143 (a second Ctrl-C quits at once). A step fails when the server goes
away, it overruns its window by more than --op-timeout, or more than --max-error-rate (default 50%) of its
ops failed (the first server error is printed); then the run stops (--on-error stop, the default) or goes
on with the next step (--on-error continue); either way every finished step is kept.

Warnings qualify the figures (docs/report.md lists them): errors (over 1% of ops failed), few-samples (a
percentile from too few ops: shown as "p99: 12 samples"), mix-not-held, not-steady (ops/s, or the open
model's latency, trended by 10% or more), client-bound, probe-client-bound, nothing-scheduled,
nothing-measured. Each step's table prints them, --quiet prints them at the end (stderr under --json),
and the result keeps them (steps[].warnings).

The open model (--rate): ops are due on one schedule for the step (from its start, warm-up included); a
free client takes the next due op, and latency counts from its due time. An op started more than 5 ms
after its due time is late; one that could not start within 500 ms (every client busy) is dropped: never
started, counted per second, so a rate above capacity shows as dropped ops, not as ever-growing latency.
  --rate 500                 a constant 500 ops/s
  --rate 80%                 a closed probe first (--rate-probe-clients, default the sweep's counts, each
                             --rate-probe-seconds, default ${RATE_PROBE_DEFAULT_SECONDS}); its best ops/s is the maximum, then every step
                             holds 80% of it; the result keeps the probe (rateProbe)
  --rate 100:30s,2000:2m     stages: 100 ops/s for 30 s, then a ramp to 2000 ops/s over 2 minutes (k6's
                             ramping-arrival-rate); a config file writes rate: [{ rate: 100, for: 30s }, ...]

Credentials: --username with the password from env MONGO_BENCH_PASSWORD (--password works but shows in ps);
they reach the driver as options, never the URI, and are removed from every file and message.

Presets (--preset NAME; a config file and flags override them):
${RUN_PRESET_NAMES.map((n) => `  ${n.padEnd(17)}${RUN_PRESETS[n].description} (sweep ~${presetSweep(n)})`).join('\n')}

Examples:
  mongo-bench run --preset quick
  mongo-bench run --uri mongodb://127.0.0.1:27017 --max-clients 32 --seconds 20
  mongo-bench run --topology sharded --shards 2 --replicas 1 --bin-dir /opt/mongodb/bin --stop-balancer
  mongo-bench run --config run.yaml --dry-run

Exit codes:
  0    success
  1    the run failed (no server, a setup step or a benchmark step failed, a step's ops failed beyond
       --max-error-rate); what was measured is kept
  2    bad input: an unknown or invalid option, config key or file (nothing was started)
  99   an objective (--slo) failed at some step; the results and the report were written
  130  interrupted by Ctrl-C (SIGINT); partial results were written, every process stopped
  143  terminated (SIGTERM); the same
When several apply, the first of 2, 130/143, 1, 99 wins.`;

/** The sweep time a preset amounts to with the defaults it leaves alone. */
function presetSweep(name: RunPresetName): string {
  const v: BenchmarkFlags = RUN_PRESETS[name].values;
  const clients = v.clients ?? clientCountsUpTo(v.maxClients ?? RUN_DEFAULTS.maxClients);
  return formatDuration(
    sweepSeconds({
      clients,
      trials: v.trials ?? RUN_DEFAULTS.trials,
      seconds: v.seconds ?? RUN_DEFAULTS.seconds,
      warmupSeconds:
        v.warmup === 'auto'
          ? (v.warmupMax ?? RUN_DEFAULTS.warmupMax)
          : (v.warmup ?? RUN_DEFAULTS.warmup),
    }),
  );
}

/** TARGET_OPTIONS's rows under "Setup (sharding, the benchmark database):". */
const SETUP_KEYS = [
  'setup',
  'drop',
  'db',
  'collection',
  'shardKey',
  'hashed',
  'presplit',
  'chunkSize',
  'stopBalancer',
] as const;

/** The table's rows under "Benchmark:" (the output rows go under "Output:"). */
const BENCHMARK_KEYS = (Object.keys(RUN_OPTIONS) as (keyof typeof RUN_OPTIONS)[]).filter(
  (key) => !(RUN_OUTPUT_KEYS as readonly string[]).includes(key),
);

export function registerRun(program: Command, ctx: CliContext): void {
  const command = program.command('run');
  command
    .description(
      'benchmark a MongoDB deployment end to end: get a server (embedded, launched, or --uri), set it up, load, sweep 1, 2, 4, ... clients, write the report',
    )
    .optionsGroup('Existing deployment:');
  addOptions(command, TARGET_OPTIONS, ['uri']);
  command.optionsGroup('Options from elsewhere:');
  addOptions(command, RUN_SOURCE_OPTIONS);
  command.optionsGroup('Launched or embedded server:');
  addTopologyOptions(command, {
    serverVersion: 'launched or --setup: the MongoDB version the plan is for (default: 7.0)',
  });
  addOptions(command, TARGET_OPTIONS, ['auth']);
  command.optionsGroup('Setup (sharding, the benchmark database):');
  addOptions(command, TARGET_OPTIONS, SETUP_KEYS);
  command.optionsGroup('Benchmark:');
  addOptions(command, RUN_OPTIONS, BENCHMARK_KEYS);
  command.optionsGroup('Several load machines (docs/agents.md):');
  addOptions(command, AGENT_RUN_OPTIONS);
  command.optionsGroup('Credentials and TLS (every connection: benchmark, --drop, --setup):');
  addConnectionOptions(command);
  command.optionsGroup('Output:');
  addOptions(command, RUN_OPTIONS, RUN_OUTPUT_KEYS);
  addOptions(command, RUN_OUTPUT_OPTIONS)
    .addHelpText('after', RUN_HELP)
    .action(async (_flags: RunFlags, cmd: Command) =>
      runAction(commandLineFlags(cmd), ctx, ['mongo-bench', ...rawArgs(cmd)].join(' ')),
    );
}

/** Only what was typed: commander's defaults (--no-load's true) must not override a config file. */
function commandLineFlags(command: Command): RunFlags {
  const values = command.opts<Record<string, unknown>>();
  const typed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const source = command.getOptionValueSource(key);
    if (source === 'cli' || source === 'env') typed[key] = value;
  }
  return typed as RunFlags;
}

async function runAction(typedFlags: RunFlags, ctx: CliContext, typed: string): Promise<void> {
  const { connection: connectionFlags, rest: flags } = splitConnectionFlags(
    typedFlags as RunFlags & ConnectionFlags,
  );
  const connection = resolveConnectionOptions(
    connectionFlags,
    process.env,
    'flag',
    flags.uri ?? process.env[URI_ENV],
  );
  const secrets = connectionSecrets(connection.options);
  try {
    await runWith(flags, connection, secrets, ctx, typed);
  } catch (e) {
    // main() prints the message of what escapes: scrub it first (a driver error may quote a URI or the password).
    if (e instanceof Error) e.message = redactText(e.message, secrets);
    throw e;
  }
}

async function runWith(
  flags: RunFlags,
  connection: ReturnType<typeof resolveConnectionOptions>,
  secrets: string[],
  ctx: CliContext,
  typed: string,
): Promise<void> {
  const { username, password } = connection.options;
  if (flags.auth && (username === undefined || password === undefined)) {
    throw new UsageError(
      "option --auth: needs the first admin user's name and password: --username (or env MONGO_BENCH_USER) and env MONGO_BENCH_PASSWORD (or, visible in ps, --password)",
    );
  }
  const plan = resolveRunPlan(flags, { authUser: username });
  checkWireMechanism(plan.benchmark.driver, connection.options.authMechanism);
  const agentOptions = resolveAgentRunOptions(
    plan.agents,
    plan.target.kind === 'uri' ? plan.target.uri : undefined,
  );
  // Every line this command prints goes through the redaction of the run's secrets.
  const out = (text: string) => ctx.out(redactText(text, secrets));
  const err = (text: string) => ctx.err(redactText(text, secrets));
  const warn = (text: string) => err(`warning: ${text}\n`);
  if (plan.dryRun) {
    out(renderDryRun(plan));
    return;
  }
  for (const w of [...connection.warnings, ...plan.warnings]) warn(w);

  const tracker = new ProgressTracker({
    clients: plan.benchmark.clients,
    trials: plan.benchmark.trials,
    seconds: plan.benchmark.seconds,
    warmupSeconds: plan.benchmark.warmupSeconds,
    ...dropUndefined({ warmupMax: autoWarmupCap(plan.benchmark) }),
  });
  const printer = plan.quiet
    ? new SilentPrinter(tracker, err)
    : new ProgressPrinter(tracker, {
        progress: err,
        // With --json, stdout holds the result document only.
        tables: plan.json ? err : out,
        tty: process.stderr.isTTY === true,
      });
  const interrupt = installInterrupt({
    onSignal: (name, first) => {
      printer.stop();
      err(
        first
          ? `\n${name}: stopping the clients, writing what was measured, stopping every process this run started (${name === 'SIGINT' ? 'Ctrl-C' : 'SIGTERM'} again quits at once)\n`
          : `\n${name} again: quitting now; the processes this run started are killed\n`,
      );
    },
  });
  // Credentials and TLS: folded into the run's Target (lib/server) for every connection to it.
  const clientOptions = toMongoClientOptions(connection.options);
  let coordinator: Coordinator | undefined;
  try {
    if (agentOptions && plan.target.kind === 'uri') {
      coordinator = await startCoordinator(
        agentOptions,
        plan,
        uriTarget(plan.target.uri, clientOptions),
        { signal: interrupt.signal, note: (text) => err(`${text}\n`) },
      );
      if (!coordinator) {
        err('mongo-bench run: interrupted while waiting for the agents; nothing was measured\n');
        ctx.exitCode = interrupt.signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
        return;
      }
    }
    let outcome = await executeRun(plan, {
      signal: interrupt.signal,
      emit: (event: RunEvent) => printer.handle(event),
      commandLine: redactText(typed, secrets),
      clientOptions,
      ...(flags.auth && username !== undefined && password !== undefined
        ? { credentials: { username, password } }
        : {}),
      secrets,
      connectionNote: describeConnection(connection.options),
      ...(coordinator ? { stepExecutor: coordinator } : {}),
    });
    printer.stop();
    // The step tables carried each step's warnings; --quiet prints no tables, so it gets them here.
    if (plan.quiet && outcome.result)
      for (const line of warningLines(outcome.result)) (plan.json ? err : out)(`${line}\n`);
    for (const line of sloLines(outcome.result)) (plan.json ? err : out)(`${line}\n`);
    outcome = await afterRun(outcome, plan.store, { note: (text) => err(`${text}\n`) });
    if (plan.json && outcome.result) out(`${JSON.stringify(outcome.result, null, 2)}\n`);
    if (outcome.message) err(`mongo-bench run: ${outcome.message}\n`);
    const where = `${outcome.result ? 'results, report, ' : ''}setup.js and command-log.txt in ${outcome.outDir}/`;
    if (plan.json) err(`${where}\n`);
    else
      out(
        `${where}${outcome.result?.steps.length ? ` (open ${outcome.outDir}/index.html)` : ''}\n`,
      );
    ctx.exitCode = outcome.exitCode;
    await coordinator?.end(
      outcome.exitCode === 0 ? 'done' : interrupt.signal.aborted ? 'cancelled' : 'failed',
      outcome.message,
    );
  } finally {
    // A failed run (exit 1) ends here too: the agents must not wait for steps that will not come.
    await coordinator?.end(
      interrupt.signal.aborted ? 'cancelled' : 'failed',
      'the coordinator stopped',
    );
    await coordinator?.close();
    printer.stop();
    interrupt.dispose();
  }
}

/** The objectives' verdicts, one line each, after the step tables. */
function sloLines(result: ResultDocument | undefined): string[] {
  if (!result?.slo) return [];
  return ['objectives:', ...result.slo.verdicts.map((v) => `  ${describeVerdict(v)}`)];
}
