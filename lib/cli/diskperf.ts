import { Command } from 'commander';
import { CliContext } from './context';
import { notImplemented } from './not-implemented';

export function registerDiskperf(program: Command, ctx: CliContext): void {
  program
    .command('diskperf')
    .description('probe random 4 KB disk IOPS with threads 1, 2, 4, ... (the mongoperf experiment)')
    .action(() => notImplemented(ctx, 'diskperf'));
}
