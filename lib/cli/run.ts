import { Command } from 'commander';
import { CliContext } from './context';
import { notImplemented } from './not-implemented';

export function registerRun(program: Command, ctx: CliContext): void {
  program
    .command('run')
    .description('load data and sweep a benchRun-style workload over 1, 2, 4, ... clients, then write results and charts')
    .action(() => notImplemented(ctx, 'run'));
}
