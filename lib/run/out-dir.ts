/**
 * The output folder must be creatable and writable before anything starts: a run that measures
 * for an hour and then cannot write its results has lost the hour.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../config/errors';

/** Throws a UsageError naming `option` when `dir` cannot be created or written to. */
export function assertWritableDir(dir: string, option: string): void {
  const target = path.resolve(dir);
  // The folder itself when it exists, else its nearest existing ancestor (where it would be created).
  let existing = target;
  while (!fs.existsSync(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  let stat: fs.Stats;
  try {
    stat = fs.statSync(existing);
  } catch (err) {
    throw new UsageError(`${option}: cannot use ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (!stat.isDirectory()) {
    throw new UsageError(`${option}: cannot create ${dir}: ${existing} is ${existing === target ? 'a file, not a folder' : 'a file, not a folder, so nothing can be created under it'}`);
  }
  try {
    fs.accessSync(existing, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    throw new UsageError(`${option}: cannot write to ${existing === target ? dir : `${existing} (to create ${dir})`}: permission denied`);
  }
}
