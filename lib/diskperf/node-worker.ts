/**
 * The Node engine's child process: random block reads/writes on the libuv thread pool.
 *
 * It runs in its own process because the pool's size (UV_THREADPOOL_SIZE, up to 1024) is fixed the
 * first time the pool is used, which in the CLI or a test runner has long happened. The parent sets
 * UV_THREADPOOL_SIZE to the largest thread count; a step with N threads keeps exactly N operations
 * in flight, so N pool threads each sit in one pread/pwrite, as mongoperf's N threads did.
 */
import { constants as fsConstants, openSync, read, write } from 'node:fs';
import { randomFillSync } from 'node:crypto';
import { alignedBuffers } from './aligned';
import type { TestFileSpec } from './engine';
import type { IoMode } from './result';
import { messageOf } from '../common/values';

export type ToWorker =
  | { type: 'init'; target: TestFileSpec }
  | { type: 'step'; threads: number; seconds: number; mode: IoMode }
  | { type: 'stop' };

export type FromWorker =
  | { type: 'ready'; poolSize: number }
  | { type: 'second'; t: number; reads: number; writes: number }
  | {
      type: 'done';
      reads: number;
      writes: number;
      elapsedSeconds: number;
      latencySumMicros: number;
      busy: number;
      stopped: boolean;
    }
  | { type: 'error'; message: string };

let fd = -1;
let target: TestFileSpec | undefined;
let buffers: Buffer[] = [];
let stopRequested = false;

function send(message: FromWorker): void {
  process.send?.(message);
}

function init(t: TestFileSpec): void {
  target = t;
  const directFlag = t.direct ? (fsConstants.O_DIRECT ?? 0) : 0;
  fd = openSync(t.file, fsConstants.O_RDWR | directFlag);
  buffers = alignedBuffers(t.maxThreads, t.blockSize);
  for (const buffer of buffers) randomFillSync(buffer);
  send({ type: 'ready', poolSize: Number(process.env.UV_THREADPOOL_SIZE ?? 4) });
}

function runStep(threads: number, seconds: number, mode: IoMode): void {
  const t = target;
  if (!t) throw new Error('step before init');
  const blocks = Math.floor(t.fileBytes / t.blockSize);
  stopRequested = false;
  let reads = 0;
  let writes = 0;
  let latencySum = 0;
  let lastReads = 0;
  let lastWrites = 0;
  let second = 0;
  let failed = false;
  let inFlight = threads;
  const start = performance.now();
  const loopAtStart = performance.eventLoopUtilization();
  const deadline = start + seconds * 1000;

  const ticker = setInterval(() => {
    send({ type: 'second', t: second++, reads: reads - lastReads, writes: writes - lastWrites });
    lastReads = reads;
    lastWrites = writes;
  }, 1000);

  const finishOne = () => {
    if (--inFlight > 0) return;
    clearInterval(ticker);
    if (!failed) {
      const busy = performance.eventLoopUtilization(loopAtStart).utilization;
      send({
        type: 'done',
        reads,
        writes,
        elapsedSeconds: (performance.now() - start) / 1000,
        latencySumMicros: latencySum,
        busy,
        stopped: stopRequested,
      });
    }
  };

  // Each slot is one "thread": it issues its next operation when the previous one completes.
  const issue = (slot: number, n: number) => {
    const now = performance.now();
    if (failed || stopRequested || now >= deadline) return finishOne();
    const isWrite = mode === 'write' || (mode === 'mixed' && n % 2 === 1); // mixed alternates, like mongoperf
    const position = Math.floor(Math.random() * blocks) * t.blockSize;
    const done = (err: NodeJS.ErrnoException | null, bytes: number) => {
      if (err || bytes !== t.blockSize) {
        const why = err
          ? (err.code ?? err.message)
          : `${bytes} of ${t.blockSize} bytes (did the test file shrink?)`;
        if (!failed)
          send({
            type: 'error',
            message: `${isWrite ? 'write' : 'read'} at offset ${position} failed: ${why}`,
          });
        failed = true;
        return finishOne();
      }
      latencySum += (performance.now() - now) * 1000;
      if (isWrite) writes++;
      else reads++;
      issue(slot, n + 1);
    };
    if (isWrite) write(fd, buffers[slot], 0, t.blockSize, position, done);
    else read(fd, buffers[slot], 0, t.blockSize, position, done);
  };
  for (let slot = 0; slot < threads; slot++) issue(slot, slot);
}

// The parent decides what Ctrl-C means (stop, report, clean up); the terminal sends it to us too.
process.on('SIGINT', () => undefined);
process.on('disconnect', () => process.exit(0));
process.on('message', (message: ToWorker) => {
  try {
    if (message.type === 'init') init(message.target);
    else if (message.type === 'step') runStep(message.threads, message.seconds, message.mode);
    else if (message.type === 'stop') stopRequested = true;
  } catch (err) {
    send({ type: 'error', message: (err as NodeJS.ErrnoException).code ?? messageOf(err) });
  }
});
