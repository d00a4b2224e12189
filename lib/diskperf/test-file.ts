import { constants as fsConstants, promises as fsp } from 'node:fs';
import { randomBytes, randomFillSync } from 'node:crypto';
import { join } from 'node:path';
import { getSystemErrorMap } from 'node:util';
import { alignedBuffers } from './aligned';
import { MEMORY_FILESYSTEMS } from './test-dir';
import { BYTES_PER_MB } from './result';
import { UsageError } from '../config/errors';
import { messageOf } from '../common/values';

const CHUNK = BYTES_PER_MB;

export interface TestFileReady {
  /** True when O_DIRECT works for this file: the engines then bypass the page cache. */
  direct: boolean;
  directUnavailableReason?: string;
  seconds: number;
}

export function testFilePath(dir: string): string {
  return join(dir, `mongo-bench-diskperf-${process.pid}-${randomBytes(4).toString('hex')}.dat`);
}

/** Thrown when the run is aborted (SIGINT/SIGTERM) while the file is being written. */
export class AbortedError extends Error {
  constructor() {
    super('aborted');
    this.name = 'AbortedError';
  }
}

/**
 * Writes the whole test file with real data: reads of a sparse or fallocated file return zeros without
 * touching the disk. Finds out on the way whether direct I/O works here. The caller deletes the file.
 */
export async function createTestFile(
  path: string,
  bytes: number,
  opts: {
    directRequested: boolean;
    filesystem?: string;
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => void;
  },
): Promise<TestFileReady> {
  const started = performance.now();
  await createEmpty(path);

  let direct = false;
  let reason: string | undefined = opts.directRequested ? undefined : 'turned off with --no-direct';
  let handle: fsp.FileHandle | undefined;
  if (opts.directRequested) {
    const support = await openDirect(path, opts.filesystem);
    handle = support.handle;
    direct = handle !== undefined;
    reason = support.reason;
  }
  handle ??= await fsp.open(path, 'r+');

  try {
    const [chunk] = alignedBuffers(1, CHUNK);
    randomFillSync(chunk);
    for (let done = 0; done < bytes; done += CHUNK) {
      if (opts.signal?.aborted) throw new AbortedError();
      // A different stamp in every 4 KB block, so no layer can deduplicate the file into nothing.
      for (let block = 0; block < CHUNK; block += 4096)
        chunk.writeUInt32LE((done + block) / 4096, block);
      await writeFully(handle, chunk, done, path);
      opts.onProgress?.(done + CHUNK, bytes);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { direct, directUnavailableReason: reason, seconds: (performance.now() - started) / 1000 };
}

async function createEmpty(path: string): Promise<void> {
  try {
    const handle = await fsp.open(path, 'wx');
    await handle.close();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const meaning = e.errno !== undefined ? getSystemErrorMap().get(e.errno)?.[1] : undefined;
    throw new UsageError(
      `option --dir: cannot create the test file in "${join(path, '..')}": ${e.code ?? e.message}${meaning ? ` (${meaning})` : ''}`,
    );
  }
}

/** Opens the file with O_DIRECT and proves it with one aligned read; says why when it cannot. */
async function openDirect(
  path: string,
  filesystem?: string,
): Promise<{ handle?: fsp.FileHandle; reason?: string }> {
  const flag = fsConstants.O_DIRECT;
  if (flag === undefined) return { reason: `Node has no O_DIRECT on ${process.platform}` };
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(path, fsConstants.O_RDWR | flag);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const fs = filesystem ? `${filesystem} ` : '';
    const memory =
      filesystem && MEMORY_FILESYSTEMS.has(filesystem)
        ? ' (it lives in RAM: this measures memory, not a disk)'
        : '';
    return { reason: `the ${fs}filesystem of --dir refuses O_DIRECT (${code})${memory}` };
  }
  try {
    const [block] = alignedBuffers(1, 4096);
    await handle.write(block, 0, 4096, 0);
    await handle.read(block, 0, 4096, 0);
    return { handle };
  } catch (err) {
    await handle.close();
    return {
      reason: `an aligned O_DIRECT read/write failed here (${(err as NodeJS.ErrnoException).code ?? messageOf(err)})`,
    };
  }
}

async function writeFully(
  handle: fsp.FileHandle,
  chunk: Buffer,
  position: number,
  path: string,
): Promise<void> {
  try {
    const { bytesWritten } = await handle.write(chunk, 0, chunk.length, position);
    if (bytesWritten !== chunk.length)
      throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOSPC')
      throw new UsageError(
        `option --file-size-mb: the disk of --dir filled up while writing "${path}"`,
      );
    throw err;
  }
}

/** Deletes the test file; a file that is already gone is fine. */
export async function removeTestFile(path: string): Promise<void> {
  await fsp.rm(path, { force: true });
}
