import { Command } from 'commander';
import { CliContext } from './context';
import { notImplemented } from './not-implemented';

export function registerScripts(program: Command, ctx: CliContext): void {
  program
    .command('scripts')
    .description('plan a topology and write the mongod/mongos command lines and mongosh setup scripts')
    .action(() => notImplemented(ctx, 'scripts'));
}
