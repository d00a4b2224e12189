import { join } from 'node:path';
import { assertWritableDir } from '../run/out-dir';
import { Command } from 'commander';
import { CliContext } from './context';
import { EXIT, UsageError } from '../config/errors';
import { intArg, intListArg } from '../config/validate';
import { defaultOutDir, RUN_DEFAULTS, workersArg } from '../run/run-options';
import { RESET_CHOICES, ResetMode } from '../workload/language/setup-spec';
import { runMongoPerfSuite, TestOutcome } from '../run/perf-suite';
import { redactText } from '../security/redact';
import {
  addConnectionOptions,
  ConnectionFlags,
  connectionSecrets,
  resolveConnectionOptions,
  splitConnectionFlags,
  toMongoClientOptions,
} from '../security/connection';
import { installInterrupt } from '../run/interrupt';
import { uriTarget } from '../server/target';
import { messageOf } from '../common/values';

const HELP = `
Runs MongoDB's own mongo-perf test files (your checkout of github.com/mongodb/mongo-perf,
testcases/*.js) unchanged: each test's ops as mongo-perf's harness hands them to benchRun, its pre()
as the set-up (before every client count and trial, as mongo-perf does), one results.json per test
under --out, and suite.json with every test's outcome (ran, errors, unsupported, failed: and why).

Examples:
  mongo-bench perf-suite --uri mongodb://127.0.0.1:27017 ~/mongo-perf/testcases/simple_insert.js
  mongo-bench perf-suite --uri ... ~/mongo-perf/testcases/*.js --tags core --clients 1,2,4,8 --seconds 5`;

interface PerfSuiteFlags extends ConnectionFlags {
  uri?: string;
  tests?: string;
  tags?: string;
  clients?: number[];
  seconds?: number;
  warmup?: number;
  trials?: number;
  reset?: string;
  seed?: number;
  workers?: number | 'auto' | string;
  out?: string;
  testDouble?: boolean;
  json?: boolean;
}

function line(o: TestOutcome): string {
  const figures = (o.steps ?? [])
    .map(
      (s) =>
        `${s.clients}:${Math.round(s['totalOps/s'])}${s.errCount ? ` (${s.errCount} err)` : ''}`,
    )
    .join(' ');
  return `${o.status.padEnd(11)} ${o.test}${figures ? `  ${figures}` : ''}${o.reason ? `  -- ${o.reason.slice(0, 200)}` : ''}`;
}

export function registerPerfSuite(program: Command, ctx: CliContext): void {
  const command = program
    .command('perf-suite')
    .description(
      "run mongo-perf test files (testcases/*.js) unchanged: one result per test, pre() as the set-up, mongo-perf's tags kept",
    )
    .argument('<files...>', 'mongo-perf test files (testcases/*.js of your mongo-perf checkout)')
    .option('--uri <uri>', 'the deployment (required)')
    .option('--tests <regex>', 'only tests whose name matches')
    .option(
      '--tags <list>',
      'only tests with one of these tags (comma-separated), e.g. core,regression',
    )
    .option('--clients <list>', 'client counts (default: 1,2,4)', intListArg('--clients'))
    .option(
      '--seconds <s>',
      'measured seconds per step (default: 5, as mongo-perf)',
      intArg('--seconds'),
    )
    .option('--warmup <s>', 'seconds before each measured step (default: 0)', intArg('--warmup'))
    .option('--trials <n>', 'trials per client count (default: 1)', intArg('--trials'))
    .option(
      '--reset <when>',
      `each-step (default, as mongo-perf: the set-up before every step) or once`,
    )
    .option('--seed <n>', `random seed (default: ${RUN_DEFAULTS.seed})`, intArg('--seed'))
    .option('--workers <n>', 'worker threads per step (default: auto)', workersArg)
    .option('--out <dir>', 'output folder (default: reports/<timestamp>-perf-suite/)')
    .option(
      '--test-double',
      'mark the target as a test double (mongo-java-server is detected by itself)',
    )
    .option('--json', 'print suite.json on stdout');
  addConnectionOptions(command);
  command.addHelpText('after', HELP).action(async (files: string[], flags: PerfSuiteFlags) => {
    if (!flags.uri)
      throw new UsageError('option --uri: required, e.g. --uri mongodb://127.0.0.1:27017');
    const reset = (flags.reset ?? 'each-step') as ResetMode;
    if (!RESET_CHOICES.includes(reset))
      throw new UsageError(
        `option --reset: must be ${RESET_CHOICES.join(' or ')}, got ${flags.reset}`,
      );
    let tests: RegExp | undefined;
    try {
      tests = flags.tests !== undefined ? new RegExp(flags.tests) : undefined;
    } catch (err) {
      throw new UsageError(`option --tests: not a regular expression: ${messageOf(err)}`);
    }
    const workers = flags.workers;
    if (workers !== undefined && workers !== 'auto' && (typeof workers !== 'number' || workers < 1))
      throw new UsageError(
        `option --workers: must be auto or a whole number >= 1, got ${String(workers)}`,
      );
    const outDir = flags.out ?? defaultOutDir('perf-suite', new Date());
    assertWritableDir(outDir, 'option --out');
    const connection = resolveConnectionOptions(splitConnectionFlags(flags).connection);
    const secrets = connectionSecrets(connection.options);
    const err = (text: string) => ctx.err(redactText(text, secrets));
    for (const w of connection.warnings) err(`warning: ${w}`);
    // Ctrl-C: the test under way writes what it measured (marked incomplete), and no further test starts.
    const interrupt = installInterrupt({
      onSignal: (name, first) =>
        err(
          first
            ? `${name}: stopping after what the current test measured`
            : `${name} again: quitting now`,
        ),
    });
    let report;
    try {
      report = await runMongoPerfSuite(
        {
          files,
          uri: flags.uri,
          tests,
          tags: flags.tags
            ?.split(',')
            .map((t) => t.trim())
            .filter(Boolean),
          clients: flags.clients ?? [1, 2, 4],
          seconds: flags.seconds ?? 5,
          warmupSeconds: flags.warmup ?? 0,
          trials: flags.trials ?? 1,
          reset,
          outDir,
          randomSeed: flags.seed ?? RUN_DEFAULTS.seed,
          serverSelectionTimeoutMS: RUN_DEFAULTS.serverSelectionTimeout,
          opTimeoutMS: RUN_DEFAULTS.opTimeout,
          ...(workers !== undefined ? { workers: workers as number | 'auto' } : {}),
          ...(flags.testDouble ? { testDouble: true } : {}),
        },
        {
          onTest: (o) => err(line(o)),
          // Progress within a test: a line per finished step (a suite runs for minutes).
          onEvent: (test, e) => {
            if (e.type === 'step-done')
              err(
                `  ${test}: ${e.step.clients} client${e.step.clients === 1 ? '' : 's'} done, ${Math.round(e.step.opsPerSec.reads + e.step.opsPerSec.writes)} ops/s`,
              );
          },
          signal: interrupt.signal,
          target: uriTarget(flags.uri, toMongoClientOptions(connection.options)),
        },
      );
    } finally {
      interrupt.dispose();
    }
    const count = (s: TestOutcome['status']) =>
      report.outcomes.filter((o) => o.status === s).length;
    err(
      `${report.outcomes.length} test${report.outcomes.length === 1 ? '' : 's'}: ${count('ran')} ran, ${count('errors')} ran with errors, ${count('unsupported')} unsupported, ${count('failed')} failed; ${join(outDir, 'suite.json')}`,
    );
    if (report.testDouble) err('the target is a test double: these are not MongoDB numbers');
    if (flags.json) ctx.out(`${redactText(JSON.stringify(report, null, 2), secrets)}\n`);
    ctx.exitCode = interrupt.signal.aborted
      ? EXIT.sigint
      : count('failed') > 0
        ? EXIT.failed
        : EXIT.ok;
  });
}
