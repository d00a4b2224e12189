/**
 * Can a folder be made and written? Answered before anything connects, without hanging and without
 * leaving a trace: the missing levels are created one at a time (a bounded loop of plain, non-recursive
 * mkdirs), a probe file is written and removed in the deepest, then the levels made here are removed
 * again. Node's `mkdirSync(p, { recursive: true })` never returns for a path under /proc (Node 20: it
 * retries ENOENT forever, deaf to signals); a plain mkdir there fails at once, and is refused here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../config/errors';

/** More levels than any real path has: the loops below stop here whatever the input. */
const MAX_LEVELS = 256;

/** Why `dir` cannot be used, naming the place that refused; undefined when it can. */
export function dirProblem(dir: string): string | undefined {
  const target = path.resolve(dir);
  // The missing levels, deepest last, and the nearest existing ancestor.
  const missing: string[] = [];
  let existing = target;
  for (let level = 0; ; level++) {
    if (level >= MAX_LEVELS) return `${dir} is more than ${MAX_LEVELS} levels deep`;
    const stat = statOrCode(existing);
    if (typeof stat !== 'string') {
      if (!stat.isDirectory())
        return existing === target
          ? `${dir} is a file, not a folder`
          : `${existing} is a file, not a folder, so nothing can be created under it`;
      break;
    }
    if (stat !== 'ENOENT' && stat !== 'ENOTDIR') return `cannot look at ${existing}: ${stat}`;
    const parent = path.dirname(existing);
    if (parent === existing) return `no part of ${dir} exists`;
    missing.unshift(existing);
    existing = parent;
  }
  const made: string[] = [];
  try {
    for (const level of missing) {
      try {
        fs.mkdirSync(level);
      } catch (err) {
        const code = codeOf(err);
        if (code === 'EEXIST') continue; // made meanwhile by someone else
        return `cannot create ${level}: ${describeCode(code, path.dirname(level))}`;
      }
      made.push(level);
    }
    const probe = path.join(target, `.mongo-bench-write-check-${process.pid}`);
    try {
      fs.writeFileSync(probe, '');
      fs.unlinkSync(probe);
    } catch (err) {
      return `cannot write to ${target}: ${describeCode(codeOf(err), target)}`;
    }
    return undefined;
  } finally {
    for (const level of made.reverse()) {
      try {
        fs.rmdirSync(level);
      } catch {
        // Something was written there meanwhile: leave it.
      }
    }
  }
}

function statOrCode(p: string): fs.Stats | string {
  try {
    return fs.statSync(p);
  } catch (err) {
    return codeOf(err);
  }
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}

function describeCode(code: string, where: string): string {
  if (code === 'EACCES' || code === 'EPERM') return `permission denied in ${where}`;
  if (code === 'EROFS') return `${where} is on a read-only file system`;
  if (code === 'ENOENT') return `nothing can be created under ${where} (ENOENT)`;
  if (code === 'ENOTDIR') return `${where} is not a folder`;
  return code;
}

/**
 * Throws a UsageError (exit 2) naming `option` and the place that refused when `dir` cannot be created or
 * written to: a run that measures for an hour and then cannot write its results has lost the hour.
 */
export function assertWritableDir(dir: string, option: string): void {
  const problem = dirProblem(dir);
  if (problem) throw new UsageError(`${option}: cannot use ${dir}: ${problem}`);
}
