// Every command's --help, byte for byte: moving an option's declaration must not change what a user
// reads. A change to the help text is deliberate: update the snapshot with `npx jest -u` and review the diff.
import os from 'node:os';
import type { Command } from 'commander';
import { buildProgram } from '../../lib/cli/main';
import { captureContext } from '../support/cli';

/** The commands and subcommands, by their path from the program ("history check", ...). */
function allCommands(
  command: Command,
  path: string[] = [],
): Array<{ path: string[]; command: Command }> {
  const here = [{ path, command }];
  return here.concat(...command.commands.map((sub) => allCommands(sub, [...path, sub.name()])));
}

/** Help depends on the terminal's width and, in two defaults, on this machine (its cores, its temp dir): fixed here. */
function helpOf(command: Command): string {
  command.configureOutput({ getOutHelpWidth: () => 100, getErrHelpWidth: () => 100 });
  return command
    .helpInformation()
    .replace(/(on this machine[^(]*\(default: )\d+\)/g, '$1<cores - 1>)')
    .split(`here ${os.tmpdir()})`)
    .join('here <tmpdir>)');
}

describe('--help of every command', () => {
  const program = buildProgram(captureContext());
  for (const { path, command } of allCommands(program)) {
    it(`mongo-bench ${path.join(' ')} --help`.replace(/\s+--help/, ' --help'), () => {
      expect(helpOf(command)).toMatchSnapshot();
    });
  }
});
