import { promises as fsp } from 'node:fs';
import { BYTES_PER_MB } from './result';
import { UsageError } from '../config/errors';
import { messageOf } from '../common/values';

/** Linux statfs magic numbers for the filesystems people run MongoDB (or tests) on. */
const LINUX_FS_TYPES: Record<number, string> = {
  0xef53: 'ext4',
  0x58465342: 'xfs',
  0x9123683e: 'btrfs',
  0x01021994: 'tmpfs',
  0x858458f6: 'ramfs',
  0x2fc12fc1: 'zfs',
  0xf2f52010: 'f2fs',
  0x6969: 'nfs',
  0x794c7630: 'overlayfs',
  0x65735546: 'fuse',
  0x5346544e: 'ntfs',
  0x4d44: 'vfat',
};

/** Filesystems that live in memory: a "disk" test there measures RAM. */
export const MEMORY_FILESYSTEMS = new Set(['tmpfs', 'ramfs']);

/** Free space the test file must leave on the filesystem, so we never fill a disk to the brim. */
const RESERVE_BYTES = 64 * BYTES_PER_MB;

export interface TestDirInfo {
  filesystem?: string;
  freeBytes?: number;
}

/**
 * Checks that --dir exists, is a directory and has room for the test file. Whether it is writable is
 * found out by creating the file itself (see test-file.ts): permission bits do not tell (root, ACLs,
 * read-only mounts).
 */
export async function checkTestDir(dir: string, fileBytes: number): Promise<TestDirInfo> {
  let stat;
  try {
    stat = await fsp.stat(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`option --dir: directory "${dir}" does not exist`);
    throw new UsageError(`option --dir: cannot use "${dir}": ${messageOf(err)}`);
  }
  if (!stat.isDirectory()) throw new UsageError(`option --dir: "${dir}" is not a directory`);

  const info: TestDirInfo = {};
  try {
    const fs = await fsp.statfs(dir);
    // Pseudo filesystems (proc, sysfs) report no blocks at all: no capacity to check against.
    if (Number(fs.blocks) > 0) info.freeBytes = Number(fs.bavail) * Number(fs.bsize);
    if (process.platform === 'linux')
      info.filesystem = LINUX_FS_TYPES[Number(fs.type)] ?? `0x${Number(fs.type).toString(16)}`;
  } catch {
    // statfs is not available everywhere; the write itself will then report a full disk.
  }
  if (info.freeBytes !== undefined && fileBytes + RESERVE_BYTES > info.freeBytes) {
    const freeMB = Math.floor(info.freeBytes / BYTES_PER_MB);
    throw new UsageError(
      `option --file-size-mb: a ${fileBytes / BYTES_PER_MB} MB test file does not fit in --dir "${dir}" ` +
        `(${freeMB} MB free, ${RESERVE_BYTES / BYTES_PER_MB} MB kept in reserve)`,
    );
  }
  return info;
}
