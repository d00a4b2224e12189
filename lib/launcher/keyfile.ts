/**
 * The keyfile replica-set members and mongos authenticate each other with (internal auth, as
 * mlaunch --auth sets up): random base64, readable by its owner only, since mongod refuses a
 * keyfile that others can read.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../config/errors';

/** The keyfile of a launched cluster: in its data directory, next to the processes' folders. */
export function clusterKeyFile(dataDir: string): string {
  return path.join(dataDir, 'keyfile');
}

/** 756 random bytes -> 1008 base64 characters: within mongod's 6..1024 character limit. */
export function newKeyFileContent(): string {
  return `${randomBytes(756).toString('base64')}\n`;
}

/**
 * Creates the keyfile (mode 600) when it is missing; an existing one is kept if only its owner can
 * read it. Returns whether it was created.
 */
export function ensureKeyFile(file: string): boolean {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (stat) {
    if (!stat.isFile()) throw new UsageError(`keyfile ${file} is not a file`);
    if ((stat.mode & 0o077) !== 0) {
      throw new UsageError(
        `keyfile ${file} can be read by others (mode ${(stat.mode & 0o777).toString(8)}); mongod refuses it: chmod 600 ${file}`,
      );
    }
    return false;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // 'wx': never overwrite a keyfile that appeared meanwhile; the mode is set at creation, before any content.
  fs.writeFileSync(file, newKeyFileContent(), { mode: 0o600, flag: 'wx' });
  fs.chmodSync(file, 0o600); // in case the umask took bits away that we do not mind, or added none
  return true;
}
