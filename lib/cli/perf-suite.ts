import { join } from 'node:path';
import { assertWritableDir } from '../common/dir-check';
import { Command } from 'commander';
import { CliContext } from './context';
import { EXIT, UsageError } from '../config/errors';
import { z } from 'zod';
import { intArg, intListArg, MAX_TRIALS, parseOptions, trialCount } from '../config/validate';
import { addOptions, option, tableDefaults, tableShape } from '../config/option-table';
import { defaultOutDir, RUN_DEFAULTS, workersArg } from '../run/options/run-options';
import { RUN_OPTIONS } from '../run/options/run-option-table';
import { RESET_CHOICES } from '../workload/language/setup-spec';
import {
  runMongoPerfSuite,
  SUITE_FILE,
  suiteFileNames,
  SuiteOptions,
  TestOutcome,
} from '../run/perf-suite';
import { fileEntries, FileWrites, FORCE_OPTION } from '../common/file-plan';
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
import { dropUndefined, messageOf } from '../common/values';

const HELP = `
Runs MongoDB's own mongo-perf test files (your checkout of github.com/mongodb/mongo-perf,
testcases/*.js) unchanged: each test's ops as mongo-perf's harness hands them to benchRun, its pre()
as the set-up (before every client count and trial, as mongo-perf does), one results.json per test
under --out, and suite.json with every test's outcome (ran, errors, unsupported, failed: and why).

Examples:
  mongo-bench perf-suite --uri mongodb://127.0.0.1:27017 ~/mongo-perf/testcases/simple_insert.js
  mongo-bench perf-suite --uri ... ~/mongo-perf/testcases/*.js --tags core --clients 1,2,4,8 --seconds 5`;

/** perf-suite's own options (the connection options are added beside them), one row each, in --help's order. */
const PERF_SUITE_OPTIONS = {
  uri: option({ flag: '--uri <uri>', help: 'the deployment (required)', schema: z.string() }),
  tests: option({
    flag: '--tests <regex>',
    help: 'only tests whose name matches',
    schema: z.string().transform((text, check) => {
      try {
        return new RegExp(text);
      } catch (err) {
        check.addIssue({ code: 'custom', message: `not a regular expression: ${messageOf(err)}` });
        return z.NEVER;
      }
    }),
  }),
  tags: option({
    flag: '--tags <list>',
    help: 'only tests with one of these tags (comma-separated), e.g. core,regression',
    schema: z.string(),
  }),
  clients: option({
    flag: '--clients <list>',
    help: 'client counts',
    schema: z.array(z.number()),
    default: [1, 2, 4],
    arg: intListArg,
  }),
  seconds: option({
    flag: '--seconds <s>',
    help: (d) => `measured seconds per step (default: ${d}, as mongo-perf)`,
    schema: z.number(),
    default: 5,
    arg: intArg,
  }),
  warmup: option({
    flag: '--warmup <s>',
    help: 'seconds before each measured step',
    schema: z.number(),
    default: 0,
    arg: intArg,
  }),
  trials: option({
    flag: '--trials <n>',
    help: `trials per client count (1 to ${MAX_TRIALS})`,
    schema: trialCount('trials per step'),
    default: 1,
    arg: intArg,
  }),
  reset: option({
    flag: '--reset <when>',
    help: (d) => `${d} (default, as mongo-perf: the set-up before every step) or once`,
    schema: z.enum(RESET_CHOICES, {
      error: (issue) => `must be ${RESET_CHOICES.join(' or ')}, got ${String(issue.input)}`,
    }),
    default: 'each-step',
  }),
  seed: option({
    flag: '--seed <n>',
    help: 'random seed',
    schema: z.number(),
    default: RUN_DEFAULTS.seed,
    arg: intArg,
  }),
  workers: option({
    flag: '--workers <n>',
    help: 'worker threads per step (default: auto)',
    // workersArg leaves text that is neither auto nor a whole number as it is, so this names it.
    schema: z.custom<number | 'auto'>((w) => w === 'auto' || (typeof w === 'number' && w >= 1), {
      error: (issue) => `must be auto or a whole number >= 1, got ${String(issue.input)}`,
    }),
    arg: () => workersArg,
  }),
  // The same row as run's: one declaration of --driver.
  driver: RUN_OPTIONS.driver,
  out: option({
    flag: '--out <dir>',
    help: 'output folder (default: reports/<timestamp>-perf-suite/)',
    schema: z.string(),
  }),
  testDouble: option({
    flag: '--test-double',
    help: 'mark the target as a test double (mongo-java-server is detected by itself)',
    schema: z.boolean(),
  }),
  json: option({ flag: '--json', help: 'print suite.json on stdout', schema: z.boolean() }),
  force: FORCE_OPTION,
};

const PERF_SUITE_DEFAULTS = tableDefaults(PERF_SUITE_OPTIONS);
const perfSuiteSchema = z.object(tableShape(PERF_SUITE_OPTIONS));

/** What commander hands over: the table's values (as typed, not yet validated) and the connection flags. */
type PerfSuiteFlags = z.input<typeof perfSuiteSchema> & ConnectionFlags;

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
    .argument('<files...>', 'mongo-perf test files (testcases/*.js of your mongo-perf checkout)');
  addOptions(command, PERF_SUITE_OPTIONS);
  addConnectionOptions(command);
  command.addHelpText('after', HELP).action(async (files: string[], given: PerfSuiteFlags) => {
    if (!given.uri)
      throw new UsageError('option --uri: required, e.g. --uri mongodb://127.0.0.1:27017');
    const uri = given.uri;
    const flags = {
      ...PERF_SUITE_DEFAULTS,
      ...dropUndefined(parseOptions(perfSuiteSchema, splitConnectionFlags(given).rest)),
    };
    const { reset, tests, workers } = flags;
    const outDir = flags.out ?? defaultOutDir('perf-suite', new Date());
    assertWritableDir(outDir, 'option --out');
    const connection = resolveConnectionOptions(
      splitConnectionFlags(given).connection,
      process.env,
      'flag',
      flags.uri,
    );
    const secrets = connectionSecrets(connection.options);
    const err = (text: string) => ctx.err(redactText(text, secrets));
    for (const w of connection.warnings) err(`warning: ${w}`);
    const suiteOptions: SuiteOptions = {
      files,
      uri,
      tests,
      tags: flags.tags
        ?.split(',')
        .map((t) => t.trim())
        .filter(Boolean),
      clients: flags.clients,
      seconds: flags.seconds,
      warmupSeconds: flags.warmup,
      trials: flags.trials,
      reset,
      outDir,
      randomSeed: flags.seed,
      serverSelectionTimeoutMS: RUN_DEFAULTS.serverSelectionTimeout,
      opTimeoutMS: RUN_DEFAULTS.opTimeout,
      ...(workers !== undefined ? { workers } : {}),
      ...(flags.driver !== undefined ? { driver: flags.driver } : {}),
      ...(flags.testDouble ? { testDouble: true } : {}),
    };
    // Before the first test runs: a suite.json or a test's results.json of the user's there is refused.
    const writes = FileWrites.check(
      fileEntries(outDir, suiteFileNames(suiteOptions), 'perf-suite'),
      flags,
    );
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
      report = await runMongoPerfSuite(suiteOptions, {
        onTest: (o) => err(line(o)),
        // Progress within a test: a line per finished step (a suite runs for minutes).
        onEvent: (test, e) => {
          if (e.type === 'step-done')
            err(
              `  ${test}: ${e.step.clients} client${e.step.clients === 1 ? '' : 's'} done, ${Math.round(e.step.opsPerSec.reads + e.step.opsPerSec.writes)} ops/s`,
            );
        },
        signal: interrupt.signal,
        target: uriTarget(uri, toMongoClientOptions(connection.options)),
      });
    } finally {
      interrupt.dispose();
      await writes.record();
    }
    const count = (s: TestOutcome['status']) =>
      report.outcomes.filter((o) => o.status === s).length;
    err(
      `${report.outcomes.length} test${report.outcomes.length === 1 ? '' : 's'}: ${count('ran')} ran, ${count('errors')} ran with errors, ${count('unsupported')} unsupported, ${count('failed')} failed; ${join(outDir, SUITE_FILE)}`,
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
