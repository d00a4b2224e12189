/**
 * The lines of the log files named on the command line: plain or gzip (by content, not by name),
 * several files, or a directory (its files, sorted by name, not recursing). Each line comes with its
 * file and 1-based number so every message can point at it.
 */
import type { Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { UsageError } from '../config/errors';
import { messageOf } from '../common/values';

export interface SourceLine {
  file: string;
  line: number;
  text: string;
}

/** The files to read: each argument that is a file, and the files directly inside each directory argument. */
export async function expandSources(sources: string[]): Promise<string[]> {
  if (sources.length === 0)
    throw new UsageError(
      'capture: name at least one log file or directory (or --uri with --db for the profiler)',
    );
  const files: string[] = [];
  for (const source of sources) {
    let info;
    try {
      info = await stat(source);
    } catch (err) {
      throw new UsageError(
        `capture: cannot read ${source}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : messageOf(err)}`,
      );
    }
    if (info.isDirectory()) {
      const names = (await readdir(source, { withFileTypes: true }))
        .filter((d) => d.isFile() && !d.name.startsWith('.'))
        .map((d) => d.name)
        .sort();
      if (names.length === 0) throw new UsageError(`capture: directory ${source} holds no files`);
      files.push(...names.map((n) => join(source, n)));
    } else {
      files.push(source);
    }
  }
  return files;
}

async function isGzip(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/**
 * Every line of one file; a read or gzip error becomes a UsageError naming the file and the line reached.
 * `digest` is fed the file's bytes as read (a gzip file's compressed bytes), for workload.json's hash.
 */
export async function* fileLines(file: string, digest?: Hash): AsyncGenerator<SourceLine> {
  let gz: boolean;
  try {
    gz = await isGzip(file);
  } catch (err) {
    throw new UsageError(`capture: cannot read ${file}: ${messageOf(err)}`);
  }
  const raw = createReadStream(file);
  if (digest) raw.on('data', (chunk) => digest.update(chunk));
  const input = gz ? raw.pipe(createGunzip()) : raw;
  let failure: Error | undefined;
  raw.on('error', (err) => (failure ??= err));
  if (gz) input.on('error', (err: Error) => (failure ??= err));
  const reader = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of reader) {
      line++;
      yield { file, line, text };
    }
  } catch (err) {
    failure ??= err as Error;
  } finally {
    reader.close();
    raw.destroy();
  }
  if (failure) {
    const what = gz ? 'not a complete gzip stream' : 'read failed';
    throw new UsageError(`capture: ${file}:${line + 1}: ${what} (${failure.message})`);
  }
}
