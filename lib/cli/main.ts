import { Command, CommanderError } from 'commander';
import { CliContext, processContext } from './context';
import { EXIT, exitCodesHelp, RunError, UsageError } from '../config/errors';
import { toolInfo } from '../common/version';
import { registerRun } from './run';
import { registerScripts } from './scripts';
import { registerReport } from './report';
import { registerMatrix } from './matrix';
import { registerDiskperf } from './diskperf';
import { registerCalibrate } from './calibrate';
import { registerCompare } from './compare';
import { registerPerfSuite } from './perf-suite';
import { registerAgent } from './agent';
import { registerHistory } from './history';
import { registerCapture } from './capture';
import { docsHelp } from './docs-help';
import { suggestOptions } from './did-you-mean';
import { uriPasswordWarnings } from './uri-warnings';

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('mongo-bench');
  program
    .description(
      'Benchmark MongoDB deployments: topology setup scripts, benchRun-style client sweeps, reports and charts.',
    )
    .version(toolInfo().version, '-V, --version')
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => ctx.out(s),
      writeErr: (s) => ctx.err(s),
      outputError: (s, write) => write(suggestOptions(s, program)),
    })
    .addHelpText('after', `\n${exitCodesHelp()}${docsHelp()}`)
    .exitOverride();
  registerRun(program, ctx);
  registerScripts(program, ctx);
  registerReport(program, ctx);
  registerMatrix(program, ctx);
  registerDiskperf(program, ctx);
  registerCalibrate(program, ctx);
  registerCompare(program, ctx);
  registerPerfSuite(program, ctx);
  registerAgent(program, ctx);
  registerHistory(program, ctx);
  registerCapture(program, ctx);
  // A password typed inside a URI flag is in `ps` for every user of the machine: warn as --password does.
  program.hook('preAction', (_program, action) =>
    uriPasswordWarnings(action, (text) => ctx.err(`warning: ${text}\n`)),
  );
  for (const command of program.commands) {
    command
      .showSuggestionAfterError(true)
      .configureOutput({
        writeOut: (s) => ctx.out(s),
        writeErr: (s) => ctx.err(s),
        outputError: (s, write) => write(suggestOptions(s, command)),
      })
      .exitOverride();
  }
  return program;
}

/** Runs the CLI and returns the exit code; never calls process.exit itself. */
export async function main(argv: string[], ctx: CliContext = processContext()): Promise<number> {
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv);
    return ctx.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
      )
        return EXIT.ok;
      // commander already printed its message (unknown option, missing argument, ...): bad input.
      return EXIT.usage;
    }
    if (err instanceof UsageError) {
      ctx.err(`mongo-bench: error: ${err.message}`);
      return EXIT.usage;
    }
    if (err instanceof RunError) {
      ctx.err(`mongo-bench: ${err.message}`);
      return err.exitCode;
    }
    ctx.err(
      `mongo-bench: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    return EXIT.failed;
  }
}
