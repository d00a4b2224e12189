import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { oneOfError, parseOptions } from '../config/validate';
import { BLOCK_SIZE, DiskperfSettings, IoMode } from './result';

/** libuv's thread pool, which the Node engine runs its reads and writes on, has at most 1024 threads. */
export const MAX_THREADS_LIMIT = 1024;

export const DISKPERF_DEFAULTS = {
  /** mongoperf's sample config used 1000 MB; 1 GiB keeps the file larger than most device caches. */
  fileSizeMB: 1024,
  maxThreads: 1024,
  seconds: 5,
} as const;

/** The options as commander hands them over (flag names camel-cased). */
export interface RawDiskperfOptions {
  read?: boolean;
  write?: boolean;
  fileSizeMb?: number;
  dir?: string;
  maxThreads?: number;
  seconds?: number;
  engine?: string;
  direct?: boolean;
}

const schema = z
  .object({
    read: z.boolean().optional(),
    write: z.boolean().optional(),
    fileSizeMb: z
      .number()
      .int()
      .min(1, 'must be at least 1 (MB)')
      .max(1024 * 1024, 'must be at most 1048576 (1 TB)')
      .default(DISKPERF_DEFAULTS.fileSizeMB),
    dir: z.string().min(1, 'must not be empty').optional(),
    maxThreads: z
      .number()
      .int()
      .min(1, 'must be at least 1')
      .max(MAX_THREADS_LIMIT, `must be at most ${MAX_THREADS_LIMIT} (the libuv thread pool limit)`)
      .default(DISKPERF_DEFAULTS.maxThreads),
    seconds: z
      .number()
      .int()
      .min(1, 'must be at least 1')
      .max(3600, 'must be at most 3600')
      .default(DISKPERF_DEFAULTS.seconds),
    engine: z
      .enum(['auto', 'node', 'fio'], { error: oneOfError(['auto', 'node', 'fio']) })
      .default('auto'),
    direct: z.boolean().default(true),
  })
  .strict();

/**
 * Validates the flags and fills in the defaults. Neither --read nor --write means both (a 50/50
 * mix), like the seed's mongoperf config { r: true, w: true }.
 * The directory itself is checked later, when the test file is created (see test-dir.ts).
 */
export function resolveDiskperfSettings(raw: RawDiskperfOptions): DiskperfSettings {
  const o = parseOptions(schema, raw);
  const mode: IoMode = o.read && !o.write ? 'read' : o.write && !o.read ? 'write' : 'mixed';
  return {
    dir: resolve(o.dir ?? tmpdir()),
    fileSizeMB: o.fileSizeMb,
    blockSize: BLOCK_SIZE,
    mode,
    threads: doublingThreads(o.maxThreads),
    seconds: o.seconds,
    directRequested: o.direct,
    engine: o.engine,
  };
}

/** 1, 2, 4, ... up to max; max itself is the last step even when it is not a power of two. */
export function doublingThreads(max: number): number[] {
  const steps: number[] = [];
  for (let t = 1; t < max; t *= 2) steps.push(t);
  steps.push(max);
  return steps;
}
