import { basename, dirname } from 'node:path';
import { Command } from 'commander';
import { CliContext } from './context';
import { EXIT } from '../config/errors';
import { z } from 'zod';
import { intArg } from '../config/validate';
import { addOptions, option, TableValues } from '../config/option-table';
import { writeJsonAtomically } from '../common/atomic-write';
import { counted, dropUndefined } from '../common/values';
import { fileEntries, FileWrites, FORCE_OPTION } from '../common/file-plan';
import {
  CALIBRATE_DEFAULTS,
  CALIBRATE_HEADER,
  CalibrateEvent,
  calibrateRowCells,
  formatCalibrateTable,
  runCalibration,
  validateCalibrateSettings,
  workerCounts,
} from '../calibrate/calibrate';

/** calibrate's options, one row each (no config file: the flags alone), in --help's order. */
const CALIBRATE_OPTIONS = {
  workersMax: option({
    flag: '--workers-max <n>',
    help: 'last worker count of the doubling 1, 2, 4, ...; by default the cores available minus one (at least 1), so on this machine',
    schema: z.number(),
    default: CALIBRATE_DEFAULTS.workersMax,
    arg: intArg,
  }),
  clients: option({
    flag: '--clients <n>',
    help: 'clients per worker (each row runs workers x clients; the plain loop runs as many)',
    schema: z.number(),
    default: CALIBRATE_DEFAULTS.clientsPerWorker,
    arg: intArg,
  }),
  seconds: option({
    flag: '--seconds <n>',
    help: 'measured seconds per run',
    schema: z.number(),
    default: CALIBRATE_DEFAULTS.seconds,
    arg: intArg,
  }),
  warmup: option({
    flag: '--warmup <n>',
    help: 'seconds run before each measured run, not counted',
    schema: z.number(),
    default: CALIBRATE_DEFAULTS.warmupSeconds,
    arg: intArg,
  }),
  docSize: option({
    flag: '--doc-size <bytes>',
    help: 'size of the document the null server returns for each findOne',
    schema: z.number(),
    default: CALIBRATE_DEFAULTS.docBytes,
    arg: intArg,
  }),
  plain: option({ flag: '--no-plain', help: 'skip the plain driver loop', schema: z.boolean() }),
  wire: option({
    flag: '--no-wire',
    help: 'skip the engine through the wire client (--driver wire)',
    schema: z.boolean(),
  }),
  json: option({
    flag: '--json <file>',
    help: 'also write the figures as JSON to this file',
    schema: z.string(),
  }),
  force: FORCE_OPTION,
};

/** What commander hands over: only what was typed (the defaults are applied by validateCalibrateSettings's caller). */
type CalibrateFlags = TableValues<typeof CALIBRATE_OPTIONS>;

export function registerCalibrate(program: Command, ctx: CliContext): void {
  const command = program
    .command('calibrate')
    .description(
      'measure what this machine can drive: the engine against a built-in null server at 1, 2, 4, ... workers, next to a plain driver loop',
    );
  addOptions(command, CALIBRATE_OPTIONS)
    .addHelpText(
      'after',
      '\nNo server is needed: a null server (a MongoDB wire-protocol responder that answers at once and stores nothing)\n' +
        'runs in a child process on 127.0.0.1 for the duration. Each row runs the 6to1 preset on the engine, then a plain\n' +
        'driver loop (findOne/updateOne 6:1) at the same concurrency on one event loop. Columns:\n' +
        "  cpu µs/op              this process's CPU (every thread) over the measured window / ops: the client's cost\n" +
        "  scaling                ops/s over the one-worker row's\n" +
        "  engine/plain per core  engine ops per CPU-second over the plain loop's (> 1: the engine costs less per op)\n" +
        "  server cpu µs/op       the null server's own CPU per op (its process), to show it stayed out of the way\n" +
        'These figures measure mongo-bench, never MongoDB. On a shared or busy machine, repeat and compare.',
    )
    .action((flags: CalibrateFlags) => calibrateAction(flags, ctx));
}

async function calibrateAction(flags: CalibrateFlags, ctx: CliContext): Promise<void> {
  const given = {
    workersMax: flags.workersMax,
    clientsPerWorker: flags.clients,
    seconds: flags.seconds,
    warmupSeconds: flags.warmup,
    docBytes: flags.docSize,
    plain: flags.plain,
    wire: flags.wire,
  };
  const settings = validateCalibrateSettings({ ...CALIBRATE_DEFAULTS, ...dropUndefined(given) });
  // Before measuring: a file of the user's at --json's path is refused. The figures carry their schema, which
  // is how a later calibrate knows them, so no marker file is left beside them.
  if (flags.json !== undefined)
    FileWrites.check(fileEntries(dirname(flags.json), [basename(flags.json)], 'calibrate'), {
      force: flags.force,
      marker: false,
    });
  const controller = new AbortController();
  const onSigint = () => controller.abort('SIGINT');
  process.once('SIGINT', onSigint);
  const workers = workerCounts(settings.workersMax);
  ctx.out(
    `calibrate: 6to1 preset against the null server; workers ${workers.join(', ')} x ${settings.clientsPerWorker} clients; ${settings.warmupSeconds} s warm-up + ${settings.seconds} s per run`,
  );
  const onEvent = (event: CalibrateEvent) => {
    switch (event.type) {
      case 'server':
        ctx.err(`null server on ${event.uri} (pid ${event.pid})`);
        break;
      case 'run-start':
        ctx.err(
          `  ${event.what === 'plain' ? 'plain driver loop' : `engine (--driver ${event.what === 'wire' ? 'wire' : 'node'}), ${event.workers} worker(s)`}, ${counted(event.clients, 'client')}: ${event.seconds} s ...`,
        );
        break;
      case 'row': {
        const cells = calibrateRowCells(event.row);
        ctx.err(`  => ${CALIBRATE_HEADER.map((h, i) => `${h} ${cells[i]}`).join(', ')}`);
        break;
      }
    }
  };
  try {
    const result = await runCalibration(settings, onEvent, controller.signal);
    ctx.out('');
    ctx.out(formatCalibrateTable(result.rows));
    ctx.out(`\n${result.note}`);
    if (flags.json) {
      await writeJsonAtomically(flags.json, result);
      ctx.out(`figures written to ${flags.json}`);
    }
    if (controller.signal.aborted) ctx.exitCode = EXIT.sigint;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
