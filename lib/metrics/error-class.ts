/**
 * What a failed op tells the application, in five classes (docs/reliability.md): the connection or
 * server is gone (`network`, pool cleared included), no server could be selected (`serverSelection`),
 * the node is no longer (or not yet) the primary (`notWritablePrimary`: NotWritablePrimary, the
 * NotPrimary codes, PrimarySteppedDown, InterruptedDueToReplStateChange), the op ran out of time
 * (`timeout`), anything else (`other`). From the error's name (the driver's class, node-mongodb-native
 * src/error.ts) and its server code (mongodb/mongo src/mongo/base/error_codes.yml).
 */
import { ERROR_CLASSES, ErrorClass, ErrorsByClass } from '../result/steps';

/** Server codes of a node that is not (or no longer) the primary. */
const NOT_PRIMARY_CODES = new Set([
  10107, // NotWritablePrimary (NotMaster before 4.9)
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
  189, // PrimarySteppedDown
  11602, // InterruptedDueToReplStateChange
]);

/** Server codes of an op that ran out of time. */
const TIMEOUT_CODES = new Set([
  50, // MaxTimeMSExpired
  262, // ExceededTimeLimit
  89, // NetworkTimeout
  202, // NetworkInterfaceExceededTimeLimit
]);

/** Server codes of a connection or host lost. */
const NETWORK_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  9001, // SocketException
]);

const NETWORK_NAMES = new Set([
  'MongoNetworkError',
  'MongoServerClosedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

const TIMEOUT_NAMES = new Set([
  'MongoNetworkTimeoutError',
  'MongoOperationTimeoutError',
  'MongoWaitQueueTimeoutError',
]);

export function classifyError(err: unknown): ErrorClass {
  const e = err as { name?: unknown; code?: unknown } | null | undefined;
  const name = typeof e?.name === 'string' ? e.name : '';
  // A network timeout is a MongoNetworkError too: the op outlived its time, the connection may be fine.
  if (TIMEOUT_NAMES.has(name)) return 'timeout';
  if (name === 'MongoServerSelectionError') return 'serverSelection';
  if (NETWORK_NAMES.has(name)) return 'network';
  const code = typeof e?.code === 'number' ? e.code : undefined;
  if (code !== undefined) {
    if (NOT_PRIMARY_CODES.has(code)) return 'notWritablePrimary';
    if (TIMEOUT_CODES.has(code)) return 'timeout';
    if (NETWORK_CODES.has(code)) return 'network';
  }
  return 'other';
}

/** Index of each class in ERROR_CLASSES: the engine counts into a fixed array. */
export const ERROR_CLASS_INDEX: Readonly<Record<ErrorClass, number>> = Object.fromEntries(
  ERROR_CLASSES.map((c, i) => [c, i]),
) as Record<ErrorClass, number>;

export const NOT_PRIMARY_CLASS = ERROR_CLASS_INDEX.notWritablePrimary;

/** Counts by class index as the record (only the classes seen); undefined when none. */
export function errorsByClassOf(counts: ArrayLike<number>): ErrorsByClass | undefined {
  const out: ErrorsByClass = {};
  let any = false;
  ERROR_CLASSES.forEach((c, i) => {
    if (counts[i] > 0) {
      out[c] = counts[i];
      any = true;
    }
  });
  return any ? out : undefined;
}

/** Two records added. */
export function addErrorsByClass(
  a: ErrorsByClass | undefined,
  b: ErrorsByClass | undefined,
): ErrorsByClass | undefined {
  if (!a) return b ? { ...b } : undefined;
  if (!b) return { ...a };
  const out: ErrorsByClass = { ...a };
  for (const c of ERROR_CLASSES) if (b[c] !== undefined) out[c] = (out[c] ?? 0) + b[c];
  return out;
}
