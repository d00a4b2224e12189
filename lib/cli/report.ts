import { dirname, join } from 'node:path';
import { assertWritableDir } from '../common/dir-check';
import { Command } from 'commander';
import { CliContext } from './context';
import { UsageError } from '../config/errors';
import { z } from 'zod';
import { addOptions, option, TableValues } from '../config/option-table';
import { ResultDocument, loadResult } from '../result';
import { reportFileNames, writeReport } from '../report/write-report';
import { messageOf } from '../common/values';
import { fileEntries, FileWrites, FORCE_OPTION } from '../common/file-plan';

export const DEFAULT_COMPARISON_DIR = join('reports', 'compare');

/** report's options, one row each (flags only). */
const REPORT_OPTIONS = {
  out: option({
    flag: '-o, --out <dir>',
    help: `output folder (default: the folder of the result file; for several files: ${DEFAULT_COMPARISON_DIR})`,
    schema: z.string(),
  }),
  force: FORCE_OPTION,
};

type ReportOptions = TableValues<typeof REPORT_OPTIONS>;

/** Loads every file first and reports all the bad ones at once. */
async function loadAll(files: string[]): Promise<ResultDocument[]> {
  const settled = await Promise.allSettled(files.map((f) => loadResult(f)));
  const problems = settled.flatMap((s) => (s.status === 'rejected' ? [messageOf(s.reason)] : []));
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  return settled.map((s) => (s as PromiseFulfilledResult<ResultDocument>).value);
}

export function registerReport(program: Command, ctx: CliContext): void {
  const command = program
    .command('report')
    .description(
      'render PNG charts, summary.md, results.csv and index.html from one or more results.json files',
    )
    .argument(
      '<results...>',
      "result files (results.json); several are compared, one series per result, legend = each result's label",
    );
  addOptions(command, REPORT_OPTIONS)
    .addHelpText(
      'after',
      '\nExamples:\n  mongo-bench report reports/run-1/results.json\n  mongo-bench report w0.json w1.json j-true.json --out reports/write-concern',
    )
    .action(async (files: string[], options: ReportOptions) => {
      const outDir =
        options.out ?? (files.length === 1 ? dirname(files[0]) : DEFAULT_COMPARISON_DIR);
      // Before the work: an unwritable folder is refused (exit 2) naming it.
      assertWritableDir(outDir, options.out !== undefined ? 'option --out' : 'report folder');
      const results = await loadAll(files);
      // Reading the results wrote nothing: the files this report draws are known, and checked before it draws one.
      const writes = FileWrites.check(
        fileEntries(outDir, reportFileNames(results), 'report'),
        options,
      );
      const started = process.hrtime.bigint();
      const { files: written } = await writeReport(results, outDir);
      await writes.record();
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.out(`wrote ${written.length} files to ${outDir} in ${Math.round(ms)} ms:`);
      for (const file of written) ctx.out(`  ${file}`);
      ctx.out(`open ${join(outDir, 'index.html')} to see charts and tables together`);
    });
}
