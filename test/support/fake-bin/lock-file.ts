/**
 * mongod's data-directory lock file, `<dbpath>/mongod.lock` (src/mongo/db/storage/storage_engine_lock_file_posix.cpp,
 * StorageEngineLockFile; created by createLockFile in src/mongo/db/storage/storage_engine_init.cpp):
 * - open() creates it and takes flock(LOCK_EX | LOCK_NB); when another live mongod holds it, DBPathInUse
 *   "Unable to lock the lock file: <file> (Resource temporarily unavailable). Another mongod instance is
 *   already running on the <dbpath> directory"; initAndListen logs 20557 "DBException in initAndListen,
 *   terminating" and the process exits with ExitCode::uncaught (100) (src/mongo/db/mongod_main.cpp);
 * - a file that is not empty when opened was left by an unclean shutdown (a SIGKILL, a crash):
 *   createdByUncleanShutdown, logged as warning 22271 "Detected unclean shutdown - Lock file is not
 *   empty", and the start goes on (WiredTiger recovers from its journal);
 * - writeString writes the pid into it; a clean shutdown empties it (clearPidAndUnlock).
 * The kernel drops an flock when its holder dies, so a SIGKILLed mongod's file keeps its pid but no lock:
 * modelled by checking whether the pid in the file still runs (process.kill(pid, 0)).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from './log';

/** ExitCode::uncaught (src/mongo/util/exit_code.h): a DBException out of initAndListen. */
const EXIT_UNCAUGHT = 100;

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock (exits 100 when a live mongod holds it); returns the clean shutdown's release. */
export function lockDataDir(dbPath: string, log: Logger): () => void {
  const file = path.join(dbPath, 'mongod.lock');
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
  const holder = /^\d+$/.test(previous) ? Number(previous) : undefined;
  if (holder !== undefined && holder !== process.pid && running(holder)) {
    log('E', 'CONTROL', 20557, 'DBException in initAndListen, terminating', {
      error: `DBPathInUse: Unable to lock the lock file: ${file} (Resource temporarily unavailable). Another mongod instance is already running on the ${dbPath} directory`,
    });
    process.exit(EXIT_UNCAUGHT);
  }
  if (previous !== '')
    log('W', 'STORAGE', 22271, 'Detected unclean shutdown - Lock file is not empty', {
      lockFile: file,
    });
  fs.writeFileSync(file, `${process.pid}\n`);
  return () => {
    try {
      fs.writeFileSync(file, '');
    } catch {
      // The folder is gone: nothing to release.
    }
  };
}
