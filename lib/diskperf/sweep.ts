import { cpus, hostname, totalmem } from 'node:os';
import { checkTestDir } from './test-dir';
import { AbortedError, createTestFile, removeTestFile, testFilePath } from './test-file';
import { TestFileSpec, IoEngine } from './engine';
import { NodeEngine } from './node-engine';
import { FioEngine, findFio } from './fio-engine';
import {
  BYTES_PER_MB,
  DISKPERF_SCHEMA,
  DiskperfResult,
  DiskperfSettings,
  DiskperfStep,
  EngineName,
  toStep,
} from './result';
import { toolInfo } from '../common/version';
import { UsageError } from '../config/errors';

export type DiskperfEvent =
  | { type: 'file-progress'; bytesDone: number; bytesTotal: number }
  | {
      type: 'file-ready';
      file: string;
      seconds: number;
      direct: boolean;
      reason?: string;
      filesystem?: string;
    }
  | { type: 'engine'; name: EngineName; version: string }
  | { type: 'step-start'; threads: number; seconds: number; index: number; count: number }
  /** Once a second during a step; opsPerSec when the engine reports as it goes (fio reports at the end). */
  | { type: 'step-second'; threads: number; t: number; opsPerSec?: number }
  | { type: 'step-done'; step: DiskperfStep };

export interface DiskperfOutcome {
  result: DiskperfResult;
  /** The error that stopped the run early, if one did (the result holds what was measured before). */
  error?: Error;
  /** True when the signal stopped the run. */
  aborted: boolean;
}

export interface DiskperfRunOptions {
  onEvent?: (event: DiskperfEvent) => void;
  /** Abort to stop (Ctrl-C): the current step ends, the file is deleted, the result is marked incomplete. */
  signal?: AbortSignal;
  /** Where to look for fio (tests point it elsewhere). */
  fioCommand?: string;
}

/**
 * The whole experiment: check --dir, write the test file, run one step per thread count, and always
 * delete the file. Bad input throws a UsageError before anything is measured; later failures and
 * aborts come back in the outcome together with what was measured.
 */
export async function runDiskperf(
  settings: DiskperfSettings,
  options: DiskperfRunOptions = {},
): Promise<DiskperfOutcome> {
  const emit = options.onEvent ?? (() => undefined);
  const signal = options.signal;
  const fileBytes = settings.fileSizeMB * BYTES_PER_MB;
  const engineChoice = chooseEngine(settings.engine, options.fioCommand);
  const dirInfo = await checkTestDir(settings.dir, fileBytes);

  const startedAt = new Date().toISOString();
  const file = testFilePath(settings.dir);
  const steps: DiskperfStep[] = [];
  const result: DiskperfResult = {
    schema: DISKPERF_SCHEMA,
    tool: toolInfo(),
    complete: false,
    startedAt,
    finishedAt: startedAt,
    host: {
      hostname: hostname(),
      platform: `${process.platform} ${process.arch}`,
      cpus: cpus().length,
      memoryMB: Math.round(totalmem() / BYTES_PER_MB),
    },
    settings,
    io: {
      engine: engineChoice.name,
      engineVersion: engineChoice.version,
      direct: false,
      filesystem: dirInfo.filesystem,
      fileCreateSeconds: 0,
    },
    steps,
  };

  let engine: IoEngine | undefined;
  let error: Error | undefined;
  try {
    const ready = await createTestFile(file, fileBytes, {
      directRequested: settings.directRequested,
      filesystem: dirInfo.filesystem,
      signal,
      onProgress: (bytesDone, bytesTotal) => emit({ type: 'file-progress', bytesDone, bytesTotal }),
    });
    result.io.direct = ready.direct;
    result.io.directUnavailableReason = ready.directUnavailableReason;
    result.io.fileCreateSeconds = ready.seconds;
    emit({
      type: 'file-ready',
      file,
      seconds: ready.seconds,
      direct: ready.direct,
      reason: ready.directUnavailableReason,
      filesystem: dirInfo.filesystem,
    });

    const target: TestFileSpec = {
      file,
      fileBytes,
      blockSize: settings.blockSize,
      direct: ready.direct,
      maxThreads: Math.max(...settings.threads),
    };
    engine =
      engineChoice.name === 'fio'
        ? new FioEngine(target, engineChoice.version, options.fioCommand)
        : await NodeEngine.open(target);
    emit({ type: 'engine', name: engine.name, version: engine.version });

    for (const [index, threads] of settings.threads.entries()) {
      if (signal?.aborted) break;
      emit({
        type: 'step-start',
        threads,
        seconds: settings.seconds,
        index,
        count: settings.threads.length,
      });
      let second = 0;
      const clock =
        engine.name === 'fio'
          ? setInterval(() => emit({ type: 'step-second', threads, t: second++ }), 1000)
          : undefined;
      const measured = await engine
        .runStep(
          { threads, seconds: settings.seconds, mode: settings.mode },
          {
            signal,
            onSecond: (s) =>
              emit({ type: 'step-second', threads, t: s.t, opsPerSec: s.reads + s.writes }),
          },
        )
        .finally(() => clearInterval(clock));
      if (!measured) break;
      const step = toStep(measured, settings.blockSize, signal?.aborted ? 'interrupted' : 'ok');
      steps.push(step);
      emit({ type: 'step-done', step });
    }
  } catch (err) {
    if (err instanceof UsageError) throw err; // after `finally` has cleaned up
    if (!(err instanceof AbortedError)) error = err as Error;
  } finally {
    await cleanUp(engine, file);
  }

  const aborted = signal?.aborted ?? false;
  result.finishedAt = new Date().toISOString();
  result.complete = !aborted && !error && steps.length === settings.threads.length;
  const completed = steps.filter((step) => step.status === 'ok').length;
  const cut =
    steps.length > completed
      ? ` (the next one was cut short; its figures are kept, marked interrupted)`
      : '';
  const progress = `after ${completed} of ${settings.threads.length} steps${cut}`;
  if (aborted)
    result.incompleteReason = `interrupted (${String(signal?.reason ?? 'aborted')}) ${progress}`;
  else if (error) result.incompleteReason = `failed ${progress}: ${error.message}`;
  return { result, error, aborted };
}

async function cleanUp(engine: IoEngine | undefined, file: string): Promise<void> {
  try {
    await engine?.close();
  } finally {
    await removeTestFile(file);
  }
}

/** auto: fio when it is installed (standard, well-known numbers), else our Node engine. */
export function chooseEngine(
  choice: DiskperfSettings['engine'],
  fioCommand = 'fio',
): { name: EngineName; version: string } {
  if (choice === 'node') return { name: 'node', version: `node ${process.version}` };
  const fio = findFio(fioCommand);
  if (fio) return { name: 'fio', version: fio };
  if (choice === 'fio')
    throw new UsageError(
      'option --engine: fio was not found on PATH (install the fio package, or use --engine node)',
    );
  return { name: 'node', version: `node ${process.version}` };
}
