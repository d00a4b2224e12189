import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { intArg, oneOfError, parseOptions } from '../config/validate';
import { option, tableDefaults, TableShape, tableShape } from '../config/option-table';
import { dropUndefined } from '../common/values';
import { FORCE_OPTION } from '../common/file-plan';
import { BLOCK_SIZE, DiskperfSettings, IoMode } from './result';

/** libuv's thread pool, which the Node engine runs its reads and writes on, has at most 1024 threads. */
export const MAX_THREADS_LIMIT = 1024;

export const DISKPERF_DEFAULTS = {
  /** mongoperf's sample config used 1000 MB; 1 GiB keeps the file larger than most device caches. */
  fileSizeMB: 1024,
  maxThreads: 1024,
  seconds: 5,
} as const;

const ENGINE_CHOICES = ['auto', 'node', 'fio'] as const;

/** diskperf's options, one row each (flags only), in --help's order; lib/cli/diskperf.ts adds them. */
export const DISKPERF_OPTIONS = {
  read: option({
    flag: '--read',
    help: 'random reads (with --write, or with neither: a 50/50 mix of reads and writes)',
    schema: z.boolean(),
  }),
  write: option({
    flag: '--write',
    help: 'random writes (with --read, or with neither: a 50/50 mix of reads and writes)',
    schema: z.boolean(),
  }),
  fileSizeMb: option({
    flag: '--file-size-mb <n>',
    help: 'size of the test file in MB (make it larger than any cache in front of the disk)',
    schema: z
      .number()
      .int()
      .min(1, 'must be at least 1 (MB)')
      .max(1024 * 1024, 'must be at most 1048576 (1 TB)'),
    default: DISKPERF_DEFAULTS.fileSizeMB,
    arg: intArg,
  }),
  dir: option({
    flag: '--dir <path>',
    help: `directory on the disk to test (default: the OS temp dir, here ${tmpdir()})`,
    schema: z.string().min(1, 'must not be empty'),
  }),
  maxThreads: option({
    flag: '--max-threads <n>',
    help: `last thread count of the doubling 1, 2, 4, ... (1..${MAX_THREADS_LIMIT})`,
    schema: z
      .number()
      .int()
      .min(1, 'must be at least 1')
      .max(MAX_THREADS_LIMIT, `must be at most ${MAX_THREADS_LIMIT} (the libuv thread pool limit)`),
    default: DISKPERF_DEFAULTS.maxThreads,
    arg: intArg,
  }),
  seconds: option({
    flag: '--seconds <n>',
    help: 'seconds per thread count',
    schema: z.number().int().min(1, 'must be at least 1').max(3600, 'must be at most 3600'),
    default: DISKPERF_DEFAULTS.seconds,
    arg: intArg,
  }),
  engine: option({
    flag: '--engine <name>',
    help: 'who does the I/O: auto (fio when installed, else node), node, fio',
    // Any text comes in (RawDiskperfOptions); the enum names the choices.
    schema: z.string().pipe(z.enum(ENGINE_CHOICES, { error: oneOfError(ENGINE_CHOICES) })),
    default: 'auto',
    shownDefault: '"auto"',
  }),
  direct: option({
    flag: '--no-direct',
    help: 'buffered I/O through the page cache instead of O_DIRECT (inflates the figures)',
    schema: z.boolean(),
  }),
  out: option({
    flag: '--out <dir>',
    help: 'output folder (default: reports/<timestamp>-diskperf)',
    schema: z.string(),
  }),
  force: FORCE_OPTION,
};

/** The options as commander hands them over, less --out and --force (the command's, not the probe's). */
export type RawDiskperfOptions = Omit<
  z.input<z.ZodObject<TableShape<typeof DISKPERF_OPTIONS>>>,
  'out' | 'force'
>;

const { out: _out, force: _force, ...settingsShape } = tableShape(DISKPERF_OPTIONS);
const schema = z.object(settingsShape).strict();
const defaults = tableDefaults(DISKPERF_OPTIONS);

/**
 * Validates the flags and fills in the defaults. Neither --read nor --write means both (a 50/50
 * mix), like the seed's mongoperf config { r: true, w: true }.
 * The directory itself is checked later, when the test file is created (see test-dir.ts).
 */
export function resolveDiskperfSettings(raw: RawDiskperfOptions): DiskperfSettings {
  const o = { ...defaults, direct: true, ...dropUndefined(parseOptions(schema, raw)) };
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
