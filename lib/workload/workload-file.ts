/**
 * Reads `--workload-file`: a benchRun ops array, or a benchRun-style object `{ops, ...}` (its other
 * benchRun keys such as parallel/seconds/host are accepted and ignored: the command's options decide).
 * Parsed as MongoDB Extended JSON (relaxed), so {"$oid": ...} and {"$date": ...} work.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { BSON } from 'mongodb';
import { UsageError } from '../config/errors';
import { closest } from '../config/validate';

const OWN_KEYS = ['ops', 'name', 'ns'];
const BENCHRUN_KEYS = [
  'parallel', 'seconds', 'host', 'db', 'username', 'password', 'randomSeed', 'hideErrors', 'handleErrors',
  'hideResults', 'throwGLE', 'breakOnTrap', 'trapPattern', 'noTrapPattern', 'watchPattern', 'noWatchPattern',
  'useSessions', 'useIdempotentWrites', 'useSnapshotReads', 'delayMillis', 'pre', 'tags',
];

export interface WorkloadFile {
  name: string;
  ops: unknown[];
  /** Default namespace for ops without `ns`. */
  ns?: string;
}

export function readWorkloadFile(path: string): WorkloadFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`option --workload-file: cannot read ${path}: ${(err as Error).message}`);
  }
  return parseWorkloadText(text, path);
}

export function parseWorkloadText(text: string, path: string): WorkloadFile {
  let parsed: unknown;
  try {
    parsed = BSON.EJSON.parse(text, { relaxed: true });
  } catch (err) {
    throw new UsageError(`workload file ${path}: not valid JSON: ${(err as Error).message}`);
  }
  const fallbackName = basename(path).replace(/\.[^.]+$/, '');
  if (Array.isArray(parsed)) return { name: fallbackName, ops: parsed };
  if (parsed === null || typeof parsed !== 'object') {
    throw new UsageError(`workload file ${path}: expected a benchRun ops array or an object {"ops": [...]}`);
  }
  const obj = parsed as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (OWN_KEYS.includes(key) || BENCHRUN_KEYS.includes(key)) continue;
    const suggestion = closest(key, [...OWN_KEYS, ...BENCHRUN_KEYS]);
    throw new UsageError(`workload file ${path}: unknown key "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
  }
  if (!Array.isArray(obj.ops)) throw new UsageError(`workload file ${path}: "ops" must be an array of benchRun ops`);
  if (obj.name !== undefined && typeof obj.name !== 'string') throw new UsageError(`workload file ${path}: "name" must be a string`);
  if (obj.ns !== undefined && typeof obj.ns !== 'string') throw new UsageError(`workload file ${path}: "ns" must be "database.collection"`);
  return { name: (obj.name as string | undefined) ?? fallbackName, ops: obj.ops, ns: obj.ns as string | undefined };
}
