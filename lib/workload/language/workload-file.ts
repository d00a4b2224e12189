/**
 * Reads `--workload-file`: a benchRun ops array, or a benchRun-style object `{ops, ...}` (its other
 * benchRun keys such as parallel/seconds/host are accepted and ignored: the command's options decide).
 * Parsed as MongoDB Extended JSON that keeps explicit number types ({"$numberLong": "42"} stays an
 * int64; see ./typed-ejson), so {"$oid": ...} and {"$date": ...} work too.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { UsageError } from '../../config/errors';
import { closest } from '../../config/validate';
import { findJsonError } from '../../config/json-position';
import { reviveTyped } from './typed-ejson';
import { tooDeep, tooDeepText, withoutBom } from '../../config/input-limits';
import { dropUndefined, messageOf } from '../../common/values';

const OWN_KEYS = ['ops', 'name', 'ns', 'setup', 'capture', 'capturedFrom'];
const BENCHRUN_KEYS = [
  'parallel',
  'seconds',
  'host',
  'db',
  'username',
  'password',
  'randomSeed',
  'hideErrors',
  'handleErrors',
  'hideResults',
  'throwGLE',
  'breakOnTrap',
  'trapPattern',
  'noTrapPattern',
  'watchPattern',
  'noWatchPattern',
  'useSessions',
  'useIdempotentWrites',
  'useSnapshotReads',
  'delayMillis',
  'pre',
  'tags',
];

export interface WorkloadFile {
  name: string;
  ops: unknown[];
  /** Default namespace for ops without `ns`. */
  ns?: string;
  /** The workload's own set-up, as written (validated by ./setup-spec's parseSetup once the namespace is known). */
  setup?: unknown;
  /**
   * Written by `mongo-bench capture`: the rate the source served, on average and (optional, newer
   * captures) second by second: `perSecond[i]` ops/s in the i-th bucket of `bucketSeconds` (default 1).
   * `run --replay-rate Nx` replays the curve where there is one (./replay-curve), the average otherwise.
   */
  capture?: {
    opsPerSecond: number;
    firstAt?: string;
    lastAt?: string;
    perSecond?: number[];
    bucketSeconds?: number;
  };
  /** Written by `mongo-bench capture`: its sources (base names, counts, hashes) and the slowms they suggest; kept as written. */
  capturedFrom?: unknown;
  /** SHA-256 (hex) of the file's bytes, when read from a file: what a replay records of it. */
  sha256?: string;
}

export function readWorkloadFile(path: string): WorkloadFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new UsageError(`option --workload-file: cannot read ${path}: ${messageOf(err)}`);
  }
  return {
    ...parseWorkloadText(bytes.toString('utf8'), path),
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

/** The optional per-second curve of `capture`: a non-empty list of rates >= 0 with at least one > 0. */
function checkCurve(capture: Record<string, unknown>, path: string): void {
  const { perSecond, bucketSeconds } = capture;
  if (perSecond !== undefined) {
    const ok =
      Array.isArray(perSecond) &&
      perSecond.length > 0 &&
      perSecond.every((r) => typeof r === 'number' && Number.isFinite(r) && r >= 0) &&
      perSecond.some((r) => (r as number) > 0);
    if (!ok)
      throw new UsageError(
        `workload file ${path}: "capture.perSecond" must be a list of ops/s >= 0 with at least one above 0 (as mongo-bench capture writes it)`,
      );
  }
  if (
    bucketSeconds !== undefined &&
    !(typeof bucketSeconds === 'number' && Number.isInteger(bucketSeconds) && bucketSeconds >= 1)
  ) {
    throw new UsageError(
      `workload file ${path}: "capture.bucketSeconds" must be a whole number of seconds >= 1`,
    );
  }
}

export function parseWorkloadText(text: string, path: string): WorkloadFile {
  text = withoutBom(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    // Named by line and column, as config files are (JSON.parse gives no place).
    const at = findJsonError(text);
    throw new UsageError(
      `workload file ${path}${at ? `:${at.line}:${at.column}` : ''}: not valid JSON: ${at ? at.message : messageOf(err)}`,
    );
  }
  // Checked before anything walks the tree recursively (reviving the types, compiling templates).
  const deep = tooDeep(parsed);
  if (deep !== undefined) throw new UsageError(`workload file ${path}: ${tooDeepText(deep)}`);
  parsed = reviveTyped(parsed);
  const fallbackName = basename(path).replace(/\.[^.]+$/, '');
  if (Array.isArray(parsed)) return { name: fallbackName, ops: parsed };
  if (parsed === null || typeof parsed !== 'object') {
    throw new UsageError(
      `workload file ${path}: expected a benchRun ops array or an object {"ops": [...]}`,
    );
  }
  const obj = parsed as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (OWN_KEYS.includes(key) || BENCHRUN_KEYS.includes(key)) continue;
    const suggestion = closest(key, [...OWN_KEYS, ...BENCHRUN_KEYS]);
    throw new UsageError(
      `workload file ${path}: unknown key "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
    );
  }
  if (!Array.isArray(obj.ops))
    throw new UsageError(`workload file ${path}: "ops" must be an array of benchRun ops`);
  if (obj.name !== undefined && typeof obj.name !== 'string')
    throw new UsageError(`workload file ${path}: "name" must be a string`);
  if (obj.ns !== undefined && typeof obj.ns !== 'string')
    throw new UsageError(`workload file ${path}: "ns" must be "database.collection"`);
  const capture = obj.capture as { opsPerSecond?: unknown } | undefined;
  if (
    capture !== undefined &&
    (capture === null ||
      typeof capture !== 'object' ||
      typeof capture.opsPerSecond !== 'number' ||
      !(capture.opsPerSecond > 0))
  ) {
    throw new UsageError(
      `workload file ${path}: "capture" must be {"opsPerSecond": N > 0, ...} (as mongo-bench capture writes it)`,
    );
  }
  if (capture !== undefined) checkCurve(capture as Record<string, unknown>, path);
  return {
    name: (obj.name as string | undefined) ?? fallbackName,
    ops: obj.ops,
    ns: obj.ns as string | undefined,
    ...dropUndefined({ setup: obj.setup, capturedFrom: obj.capturedFrom }),
    ...(capture !== undefined ? { capture: capture as WorkloadFile['capture'] & object } : {}),
  };
}
