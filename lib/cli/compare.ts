import { join } from 'node:path';
import { assertWritableDir } from '../common/dir-check';
import { Command } from 'commander';
import { CliContext } from './context';
import { EXIT, UsageError } from '../config/errors';
import { z } from 'zod';
import { numberArg } from '../config/validate';
import { addOptions, option, TableValues } from '../config/option-table';
import { ResultDocument, loadResult } from '../result';
import {
  COMPARE_DEFAULTS,
  compareResults,
  renderComparisonText,
  writeComparison,
} from '../compare';
import { fileTimestamp, messageOf } from '../common/values';
import { intArg, intListArg } from '../config/validate';
import { compareRuns, readBenchmarkConfig } from '../api';
import { installInterrupt } from '../run/interrupt';
import { Comparison } from '../compare';
import { COMPARISON_FILES } from '../compare/write';
import { RESULTS_FILE } from '../run/benchmark';
import { fileEntries, FileWrites, FORCE_OPTION } from '../common/file-plan';
import { checkJunitFile, writeJunit } from '../report/junit';
import { compareJunitSuite } from '../compare/junit';

const COMPARE_HELP = `
Per client count: the ratio B/A of ops/s and of the p50/p99 latencies, and a verdict on throughput:
"faster", "slower", "no difference beyond noise" or "not compared". The verdict comes from a
Mann-Whitney U test (two-sided) on the replicates' ops/s: each trial (run --trials N, each with its
own warm-up) of each result file is one replicate. The seconds of one run are not: one run each
gives the ratio and "not compared". A side needs 4 or more replicates (run --trials 5).
"faster"/"slower" needs p < --alpha and a change of at least --noise percent.
A and B may each name several result files of one configuration, comma separated.

With --run, A and B are run configurations (config files as run --config reads them: uri,
workload, clients, seconds, trials, ...), measured now in randomized interleaved trials: first an
unmeasured round of A and B (the server's cold start falls on no measured trial); then, for each
client count, each round runs A once and B once, rounds in pairs of reversed order (AB then BA, or
BA then AB, drawn per pair from --seed; an odd last round drawn alone; recorded in compare.json's
design), each trial with its own warm-up (the loader once per side; again before every trial when
the workload writes). A drift of the machine then weighs on both alike. They may differ in
uri, write concern, workload or driver options; different clients, seconds or trials are refused
(exit 2) unless --clients gives both the same counts. Each side's results.json goes to --out/A and
--out/B (read by compare and report as usual).

Writes compare.md, compare.json, compare-ratios.png and index.html (the interactive page) to --out;
prints the table.
A result from a test double (target.testDouble) is never compared with one from MongoDB (exit 2);
two servers that are both not MongoDB (a test double, FerretDB, an unidentified server) are compared,
each named. With --run, both servers are identified at connect and this is decided there, before
the first trial.

Examples:
  mongo-bench compare reports/main/results.json reports/branch/results.json
  mongo-bench compare baseline.json results.json --threshold 10 --out reports/compare-pr-42
  mongo-bench compare main-1.json,main-2.json pr-1.json,pr-2.json
  mongo-bench compare --run main.yaml pr.yaml --out reports/compare-pr-42

Exit codes:
  0    no regression (B may be faster, equal, or slower within --threshold)
  1    a regression: B is significantly slower than A by more than --threshold at some client count
  2    bad input: a missing or invalid result file, a test double against MongoDB, a bad option
  3    not compared: no client count could be tested (one run each, too few trials, failed steps)`;

/** compare's options, one row each (flags only: a run configuration is a config file of run's), in --help's order. */
const COMPARE_OPTIONS = {
  threshold: option({
    flag: '--threshold <percent>',
    help: 'a significant ops/s drop beyond this is a regression, exit code 1',
    schema: z.number(),
    default: COMPARE_DEFAULTS.threshold,
    arg: numberArg,
  }),
  noise: option({
    flag: '--noise <percent>',
    help: 'significant changes smaller than this count as noise',
    schema: z.number(),
    default: COMPARE_DEFAULTS.noise,
    arg: numberArg,
  }),
  alpha: option({
    flag: '--alpha <p>',
    help: (d) => `significance level of the test (default: ${d}, i.e. 95% confidence)`,
    schema: z.number(),
    default: COMPARE_DEFAULTS.alpha,
    arg: numberArg,
  }),
  out: option({
    flag: '-o, --out <dir>',
    help: 'where compare.md, compare.json, compare-ratios.png and index.html go (default: reports/compare-<timestamp>/)',
    schema: z.string(),
  }),
  json: option({
    flag: '--json',
    help: 'print the comparison as JSON on stdout instead of the table',
    schema: z.boolean(),
  }),
  run: option({
    flag: '--run',
    help: 'A and B are run configurations (config files): run them now in randomized interleaved trials, then compare',
    schema: z.boolean(),
  }),
  seed: option({
    flag: '--seed <n>',
    help: "with --run: seed of the trials' order (default: 1)",
    schema: z.number(),
    arg: intArg,
  }),
  clients: option({
    flag: '--clients <list>',
    help: "with --run: the client counts for both (overrides the configurations')",
    schema: z.array(z.number()),
    arg: intListArg,
  }),
  paired: option({
    flag: '--paired',
    help: 'with --run, 6 or more rounds: the Wilcoxon signed-rank test on the per-round ratios instead of Mann-Whitney on the trials',
    schema: z.boolean(),
  }),
  junit: option({
    flag: '--junit <file>',
    help: 'also write a JUnit XML file for CI: a test case per client count (a regression fails, not compared is skipped)',
    schema: z.string(),
  }),
  force: FORCE_OPTION,
};

type CompareFlags = TableValues<typeof COMPARE_OPTIONS>;

/** compare --run's sides: each side's results.json in its own folder. */
const RUN_SIDE_FILES = ['A', 'B'].map((side) => join(side, RESULTS_FILE));

/** "a.json,b.json" -> both files: several result files of one configuration on one side. */
function sideFiles(arg: string): string[] {
  return arg
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f.length > 0);
}

async function loadBoth(files: [string, string]): Promise<[ResultDocument[], ResultDocument[]]> {
  const [aFiles, bFiles] = files.map(sideFiles);
  const settled = await Promise.allSettled([...aFiles, ...bFiles].map((f) => loadResult(f)));
  const problems = settled.flatMap((s) => (s.status === 'rejected' ? [messageOf(s.reason)] : []));
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  const docs = settled.map((s) => (s as PromiseFulfilledResult<ResultDocument>).value);
  return [docs.slice(0, aFiles.length), docs.slice(aFiles.length)];
}

export function registerCompare(program: Command, ctx: CliContext): void {
  const command = program
    .command('compare')
    .description(
      'compare two results.json files (A the baseline, B the candidate): ratios by client count, a verdict that accounts for noise, exit 1 on a regression',
    )
    .argument(
      '<a>',
      'the baseline result file (results.json); several of one configuration: comma separated',
    )
    .argument('<b>', 'the result file(s) to judge against it');
  addOptions(command, COMPARE_OPTIONS)
    .addHelpText('after', COMPARE_HELP)
    .action(async (fileA: string, fileB: string, flags: CompareFlags) => {
      if (flags.out !== undefined) assertWritableDir(flags.out, 'option --out');
      if (flags.junit !== undefined) checkJunitFile(flags.junit, 'compare', flags.force);
      const runOnly = (['seed', 'clients', 'paired'] as const).find((k) => flags[k] !== undefined);
      if (!flags.run && runOnly) throw new UsageError(`option --${runOnly}: only with --run`);
      const outDir = flags.out ?? join('reports', `compare-${fileTimestamp(new Date())}`);
      // Before measuring or writing anything: the files of a user's folder by these names are refused.
      const writes = FileWrites.check(
        fileEntries(
          outDir,
          flags.run ? [...COMPARISON_FILES, ...RUN_SIDE_FILES] : COMPARISON_FILES,
          'compare',
        ),
        flags,
      );
      if (flags.run) {
        const [inputA, inputB] = [readBenchmarkConfig(fileA), readBenchmarkConfig(fileB)];
        // Ctrl-C (or SIGTERM) stops both runs; what they measured is still compared and written.
        const interrupt = installInterrupt({
          onSignal: (name, first) =>
            ctx.err(
              first
                ? `\n${name}: stopping A and B, comparing and writing what they measured (${name === 'SIGINT' ? 'Ctrl-C' : 'SIGTERM'} again quits at once)`
                : `\n${name} again: quitting now`,
            ),
        });
        let outcome: Awaited<ReturnType<typeof compareRuns>>;
        try {
          outcome = await compareRuns(inputA, inputB, {
            threshold: flags.threshold,
            alpha: flags.alpha,
            noise: flags.noise,
            seed: flags.seed,
            clients: flags.clients,
            paired: flags.paired,
            out: outDir,
            signal: interrupt.signal,
            onEvent: (side, e) => {
              if (e.type === 'unmeasured-trial')
                ctx.err(
                  `${side}: unmeasured first trial (the server's cold start), ${e.seconds} s`,
                );
              if (e.type === 'step-done')
                ctx.err(`${side}: ${e.step.clients} client${e.step.clients === 1 ? '' : 's'} done`);
            },
          });
        } finally {
          interrupt.dispose();
          await writes.record();
        }
        const { comparison, files } = outcome;
        finishCompare(
          ctx,
          comparison,
          [...files, ...RUN_SIDE_FILES.map((file) => join(outDir, file))],
          flags,
        );
        await writeCompareJunit(ctx, comparison, flags.junit);
        if (interrupt.signal.aborted) {
          ctx.err(
            `mongo-bench compare: interrupted (${String(interrupt.signal.reason)}): the trials that finished were compared and written`,
          );
          ctx.exitCode = interrupt.signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
        }
        return;
      }
      const [a, b] = await loadBoth([fileA, fileB]);
      const comparison = compareResults(
        a,
        b,
        { threshold: flags.threshold, alpha: flags.alpha, noise: flags.noise },
        { a: fileA, b: fileB },
      );
      // The page overlays the first result of each side; the verdicts cover every file given.
      const { files } = await writeComparison(comparison, outDir, [a[0], b[0]]);
      await writes.record();
      finishCompare(ctx, comparison, files, flags);
      await writeCompareJunit(ctx, comparison, flags.junit);
    });
}

/** --junit, once the comparison is made; a write that fails now is said, and the exit code stays the verdict's. */
async function writeCompareJunit(
  ctx: CliContext,
  comparison: Comparison,
  file: string | undefined,
): Promise<void> {
  if (file === undefined) return;
  await writeJunit(file, compareJunitSuite(comparison)).then(
    () => ctx.err(`wrote ${file}`),
    (err: unknown) => ctx.err(`warning: --junit: cannot write ${file}: ${messageOf(err)}`),
  );
}

function finishCompare(
  ctx: CliContext,
  comparison: Comparison,
  files: string[],
  flags: Pick<CompareFlags, 'json'>,
): void {
  if (flags.json) ctx.out(`${JSON.stringify(comparison, null, 2)}\n`);
  else ctx.out(renderComparisonText(comparison));
  ctx.err(`wrote ${files.join(', ')}`);
  ctx.exitCode =
    comparison.outcome === 'regression'
      ? EXIT.failed
      : comparison.outcome === 'not compared'
        ? EXIT.notCompared
        : EXIT.ok;
}
