import { rmSync } from 'node:fs';
import { Command } from 'commander';
import { CliContext } from './context';
import { EXIT, RunError } from '../config/errors';
import { addOptions } from '../config/option-table';
import { DISKPERF_OPTIONS } from '../diskperf/options';
import { DISKPERF_FILE_NAMES } from '../diskperf/write';
import { assertWritableDir } from '../common/dir-check';
import { fileEntries, FileWrites } from '../common/file-plan';
import {
  DiskperfEvent,
  RawDiskperfOptions,
  TABLE_HEADER,
  defaultDiskperfOutDir,
  directIoNote,
  engineBoundNote,
  filesystemNote,
  modeLabel,
  peakStep,
  resolveDiskperfSettings,
  runDiskperf,
  tableRow,
  writeDiskperfReport,
} from '../diskperf';

type DiskperfFlags = RawDiskperfOptions & { out?: string; force?: boolean };

export function registerDiskperf(program: Command, ctx: CliContext): void {
  const command = program
    .command('diskperf')
    .description(
      'probe random 4 KB disk IOPS with threads 1, 2, 4, ... (the mongoperf experiment)',
    );
  addOptions(command, DISKPERF_OPTIONS)
    .addHelpText(
      'after',
      '\nWrites diskperf.json, diskperf.csv, summary.md and diskperf.png into --out. The test file is deleted at the end,\n' +
        'also on errors and on Ctrl-C (which stops the run, writes what was measured marked incomplete, and exits 130).',
    )
    .action((flags: DiskperfFlags) => diskperfAction(flags, ctx));
}

async function diskperfAction(flags: DiskperfFlags, ctx: CliContext): Promise<void> {
  const settings = resolveDiskperfSettings({
    read: flags.read,
    write: flags.write,
    fileSizeMb: flags.fileSizeMb,
    dir: flags.dir,
    maxThreads: flags.maxThreads,
    seconds: flags.seconds,
    engine: flags.engine,
    direct: flags.direct,
  });
  const outDir = flags.out ?? defaultDiskperfOutDir();
  assertWritableDir(outDir, flags.out !== undefined ? 'option --out' : 'report folder');
  // Before the test file is written: a summary.md or diskperf.csv of the user's there is refused.
  const writes = FileWrites.check(fileEntries(outDir, DISKPERF_FILE_NAMES, 'diskperf'), flags);
  const status = statusLine();

  const controller = new AbortController();
  let testFile: string | undefined;
  let interrupts = 0;
  // First Ctrl-C: stop, write what was measured, delete the file. Second: say we are on it. Third:
  // delete the file now and die of SIGINT the usual way.
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) controller.abort('SIGINT');
    else if (interrupts === 2)
      ctx.err(
        'mongo-bench diskperf: stopping and deleting the test file (Ctrl-C again to quit at once)',
      );
    else {
      if (testFile) rmSync(testFile, { force: true });
      process.removeListener('SIGINT', onSigint);
      process.kill(process.pid, 'SIGINT');
    }
  };
  const onSigterm = () => controller.abort('SIGTERM');
  process.on('SIGINT', onSigint);
  process.once('SIGTERM', onSigterm);

  ctx.out(
    `diskperf: ${modeLabel(settings.mode)}, ${settings.fileSizeMB} MB file in ${settings.dir}`,
  );
  ctx.out(`threads ${settings.threads.join(', ')}; ${settings.seconds} s each`);
  const onEvent = (event: DiskperfEvent) => {
    switch (event.type) {
      case 'file-progress':
        status.show(
          `writing the test file: ${Math.round((100 * event.bytesDone) / event.bytesTotal)}%`,
        );
        break;
      case 'file-ready':
        testFile = event.file;
        status.clear();
        ctx.out(
          `test file ${event.file}${event.filesystem ? ` (${event.filesystem})` : ''} written in ${event.seconds.toFixed(1)} s`,
        );
        if (filesystemNote(event))
          ctx.err(`mongo-bench diskperf: warning: ${filesystemNote(event)}`);
        if (!event.direct)
          ctx.err(
            `mongo-bench diskperf: warning: ${directIoNote({ direct: false, directUnavailableReason: event.reason })}`,
          );
        break;
      case 'engine':
        ctx.out(
          `I/O by ${event.name} (${event.version}), ${event.name === 'fio' ? 'psync threads' : 'libuv thread pool'}`,
        );
        if (event.name === 'node' && settings.engine === 'auto') {
          ctx.out(
            '(fio is not installed: Node adds 10-20 microseconds to every operation, so fast SSDs show less than they can do)',
          );
        }
        ctx.out('');
        ctx.out(TABLE_HEADER);
        break;
      case 'step-start':
        status.show(`threads ${event.threads} (step ${event.index + 1}/${event.count}): starting`);
        break;
      case 'step-second':
        status.show(
          `threads ${event.threads}: second ${Math.min(event.t + 1, settings.seconds)}/${settings.seconds}` +
            (event.opsPerSec === undefined
              ? ''
              : `, ${Math.round(event.opsPerSec).toLocaleString('en-US')} ops/s`),
        );
        break;
      case 'step-done':
        status.clear();
        ctx.out(tableRow(event.step));
        break;
    }
  };

  let outcome;
  try {
    outcome = await runDiskperf(settings, { onEvent, signal: controller.signal });
  } finally {
    status.clear();
    process.removeListener('SIGINT', onSigint);
    process.removeListener('SIGTERM', onSigterm);
  }
  await reportDiskperf(outcome, outDir, writes, ctx);
  if (outcome.aborted)
    ctx.exitCode = controller.signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
}

/** What was measured: the peak and the notes printed, the report written (and its files recorded). */
async function reportDiskperf(
  outcome: Awaited<ReturnType<typeof runDiskperf>>,
  outDir: string,
  writes: FileWrites,
  ctx: CliContext,
): Promise<void> {
  const { result, error } = outcome;
  const peak = peakStep(result);
  ctx.out('');
  const boundNote = engineBoundNote(result);
  if (boundNote) ctx.out(`${boundNote}\n`);
  if (peak)
    ctx.out(
      `peak: ${Math.round(peak.opsPerSec.total).toLocaleString('en-US')} ops/s, ${peak.mbPerSec.toFixed(1)} MB/s at ${peak.threads} thread${peak.threads === 1 ? '' : 's'}`,
    );
  ctx.out(directIoNote(result.io));
  if (filesystemNote(result.io)) ctx.out(`warning: ${filesystemNote(result.io)}`);
  if (!result.complete) ctx.err(`mongo-bench diskperf: incomplete: ${result.incompleteReason}`);
  const files = await writeDiskperfReport(result, outDir);
  await writes.record();
  ctx.out(`wrote ${files.join(', ')}`);
  ctx.out('test file deleted');
  if (error) throw new RunError(`diskperf: ${error.message.replace(/^diskperf: /, '')}`);
}

/** A one-line, overwritten progress display on an interactive terminal; silent otherwise. */
function statusLine(): { show(text: string): void; clear(): void } {
  const tty = process.stderr.isTTY === true;
  let shown = false;
  let lastShown = 0;
  return {
    show(text) {
      // At most ten redraws a second: the file is written in 1 MB pieces.
      if (!tty || performance.now() - lastShown < 100) return;
      process.stderr.write(`\r\x1b[2K${text}`);
      shown = true;
      lastShown = performance.now();
    },
    clear() {
      if (tty && shown) process.stderr.write('\r\x1b[2K');
      shown = false;
    },
  };
}
