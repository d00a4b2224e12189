import { Command } from 'commander';
import { CliContext } from './context';
import { notImplemented } from './not-implemented';

export function registerReport(program: Command, ctx: CliContext): void {
  program
    .command('report')
    .description('render PNG charts, summary.md, results.csv and index.html from one or more results.json files')
    .action(() => notImplemented(ctx, 'report'));
}
