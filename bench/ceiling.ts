/**
 * npm run bench:ceiling -- [--workers-max N] [--clients 8] [--seconds 5] [--warmup 1] [--doc-size 1024] [--json FILE]
 *
 * The engine's ceiling on this machine: `mongo-bench calibrate` from the sources (same options, same
 * table; the command alone, not the whole CLI): the 6to1 preset against the built-in null server at 1, 2, 4 ... workers, next to a plain
 * driver loop at the same concurrency, with client CPU µs per op and the per-core ratio. Prints the
 * machine first so the figures can be quoted with it. See docs/calibrate.md.
 */
import { cpus, loadavg } from 'node:os';
import { Command, CommanderError } from 'commander';
import { registerCalibrate } from '../lib/cli/calibrate';
import { processContext } from '../lib/cli/context';
import { UsageError } from '../lib/config/errors';
import { availableCores } from '../lib/metrics/client-load';

async function run(): Promise<void> {
  const cpu = cpus();
  console.log(
    `machine: ${availableCores()} cores available (${cpu[0]?.model ?? 'unknown cpu'}), load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  // Only the calibrate command, so that this bench does not load (or depend on) the other commands.
  const ctx = processContext();
  const program = new Command('ceiling').exitOverride();
  registerCalibrate(program, ctx);
  program.commands[0].exitOverride();
  try {
    await program.parseAsync(['node', 'ceiling', 'calibrate', ...process.argv.slice(2)]);
    process.exitCode = ctx.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) process.exitCode = err.exitCode === 0 ? 0 : 2;
    else if (err instanceof UsageError) {
      console.error(`bench:ceiling: ${err.message}`);
      process.exitCode = 2;
    } else throw err;
  }
}

void run();
