import { Command, Option } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import { CliContext } from './context';
import { EXIT } from '../config/errors';
import { intArg, intListArg, numberArg } from '../config/validate';
import { resolveRunOptions, RunFlags, RUN_DEFAULTS } from '../config/run-options';
import { BenchmarkEvent, runBenchmark } from '../workload/benchmark';
import { PRESET_NAMES } from '../workload/presets';
import { formatStepTable } from '../metrics/format-step';

export function registerRun(program: Command, ctx: CliContext): void {
  program
    .command('run')
    .description('load data and sweep a benchRun-style workload over 1, 2, 4, ... clients, then write results.json')
    .option('--uri <uri>', 'the deployment to benchmark (mongodb://host:port/...)')
    .option('--workload <name>', `a preset: ${PRESET_NAMES.join(', ')} (default: ${RUN_DEFAULTS.workload})`)
    .option('--workload-file <file>', 'a benchRun ops array (JSON), or {"ops": [...], "ns": "db.coll"}')
    .option('--clients <list>', 'explicit client counts, e.g. 1,3,9', intListArg('--clients'))
    .option('--max-clients <n>', `sweep 1, 2, 4, ... up to n (default: ${RUN_DEFAULTS.maxClients})`, intArg('--max-clients'))
    .option('--seconds <s>', `measured seconds per step (default: ${RUN_DEFAULTS.seconds})`, intArg('--seconds'))
    .option('--warmup <s>', `seconds run before each measured step, not counted (default: ${RUN_DEFAULTS.warmup})`, intArg('--warmup'))
    .option('--trials <n>', `trials per client count: mean, median and stdev across them (default: ${RUN_DEFAULTS.trials})`, intArg('--trials'))
    .option('--rate <ops>', 'target total ops/s; latency is measured from each op\'s intended start', numberArg('--rate'))
    .option('--docs <n>', `documents to load, _id 0..n-1 (default: ${RUN_DEFAULTS.docs})`, intArg('--docs'))
    .option('--doc-size <bytes>', `approximate BSON size of each document (default: ${RUN_DEFAULTS.docSize})`, intArg('--doc-size'))
    .option('--batch-size <n>', `documents per insert batch while loading (default: ${RUN_DEFAULTS.batchSize})`, intArg('--batch-size'))
    .option('--write-concern <w>', 'for loading and for workload writes without one: 1, majority, or {"w":1,"j":true}')
    .option('--no-load', 'use the existing data (--docs must match it)')
    .option('--ns <db.coll>', `namespace of the loaded documents (default: ${RUN_DEFAULTS.ns})`)
    .option('--seed <n>', `random seed; client i uses seed + i (default: ${RUN_DEFAULTS.seed})`, intArg('--seed'))
    .option('--label <label>', 'name of this run (default: the workload name)')
    .option('--out <dir>', 'where results.json goes (default: reports/<timestamp>-<label>/)')
    .option('--json', 'print the result document on stdout (tables go to stderr)')
    .option('--server-selection-timeout <ms>', `give up on an unreachable server after this long (default: ${RUN_DEFAULTS.serverSelectionTimeout})`, intArg('--server-selection-timeout'))
    .addOption(new Option('--test-double', 'mark the server as a test double in the result (auto-detected for mongo-java-server)'))
    .action(async (flags: RunFlags) => {
      const options = resolveRunOptions(flags);
      // Every message ends its line itself: test contexts capture text as given.
      const show = flags.json ? (t: string) => ctx.err(t) : (t: string) => ctx.out(t);
      const progress = new ProgressPrinter(ctx, show);
      const controller = new AbortController();
      const onSigint = () => controller.abort('SIGINT');
      const onSigterm = () => controller.abort('SIGTERM');
      process.once('SIGINT', onSigint);
      process.once('SIGTERM', onSigterm);
      try {
        const result = await runBenchmark(options, { signal: controller.signal, onEvent: (e) => progress.handle(e) });
        if (flags.json) ctx.out(`${JSON.stringify(result, null, 2)}\n`);
        if (!result.complete) {
          ctx.err(`mongo-bench run: ${result.incompleteReason ?? 'incomplete'}; partial results were written\n`);
          ctx.exitCode = controller.signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
        }
      } finally {
        progress.stop();
        process.removeListener('SIGINT', onSigint);
        process.removeListener('SIGTERM', onSigterm);
      }
    });
}

/** Subscribes to the engine's events and draws them: a load bar, live per-second counts, a table per step. */
class ProgressPrinter {
  private bar?: SingleBar;
  private lastMilestone = -1;
  private readonly tty = process.stderr.isTTY === true;
  private liveLine = false;

  constructor(
    private readonly ctx: CliContext,
    private readonly show: (text: string) => void,
  ) {}

  handle(event: BenchmarkEvent): void {
    switch (event.type) {
      case 'connected': {
        const t = event.target;
        const double = t.testDouble ? ' [TEST DOUBLE: these numbers are not MongoDB numbers]' : '';
        this.ctx.err(`connected to ${t.uri}: server ${t.serverVersion ?? 'unknown'}, ${t.topology}${double}\n`);
        break;
      }
      case 'load-start':
        this.ctx.err(`loading ${event.docs} documents of ~${event.docSize} bytes into ${event.ns} (batches of ${event.batchSize})\n`);
        if (this.tty) {
          this.bar = new SingleBar({ stream: process.stderr, format: '  load [{bar}] {percentage}% | {value}/{total} docs | eta {eta}s' }, Presets.shades_classic);
          this.bar.start(event.docs, 0);
        }
        break;
      case 'load-progress':
        if (this.bar) this.bar.update(event.loaded);
        else {
          const milestone = Math.floor((event.loaded / Math.max(1, event.total)) * 4);
          if (milestone > this.lastMilestone) {
            this.lastMilestone = milestone;
            this.ctx.err(`  loaded ${event.loaded}/${event.total}\n`);
          }
        }
        break;
      case 'load-done':
        this.bar?.stop();
        this.bar = undefined;
        this.ctx.err(`loaded ${event.docs} documents in ${event.seconds.toFixed(1)} s\n`);
        break;
      case 'step-start':
        this.ctx.err(
          `clients ${event.clients}${event.trials > 1 ? ` (trial ${event.trial}/${event.trials})` : ''}: ${event.warmupSeconds} s warm-up, ${event.seconds} s measured\n`,
        );
        break;
      case 'tick':
        if (this.tty) {
          const t = event.tick;
          process.stderr.write(`\r  ${t.phase} ${t.second + 1}s: ${t.reads} reads/s, ${t.writes} writes/s${t.errors ? `, ${t.errors} errors/s` : ''}   `);
          this.liveLine = true;
        }
        break;
      case 'step-done':
        this.clearLive();
        this.show(`${formatStepTable(event.step)}\n`);
        break;
      case 'results-written':
        break;
    }
  }

  private clearLive(): void {
    if (this.liveLine) process.stderr.write('\r\x1b[K');
    this.liveLine = false;
  }

  stop(): void {
    this.bar?.stop();
    this.clearLive();
  }
}
