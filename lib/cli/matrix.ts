import { Command } from 'commander';
import { CliContext } from './context';
import { notImplemented } from './not-implemented';

export function registerMatrix(program: Command, ctx: CliContext): void {
  program
    .command('matrix')
    .description("run a list of labelled configurations (the articles' experiments) and compare them")
    .action(() => notImplemented(ctx, 'matrix'));
}
