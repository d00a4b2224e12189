/**
 * How legacy benchRun would have counted an op that failed here (src/mongo/shell/bench.cpp of the
 * 4.4 shell; BenchRunWorker::generateLoadOnConnection and BenchRunOp::executeOnce):
 *
 * - 'op-and-error': a `command` op whose reply says ok: 0. executeOnce does `++errCount` and goes on,
 *   so the op also reaches `++opCount` (totalOps).
 * - 'op': an insert/update/remove answered with a write error, ok: 0 or a writeConcernError. With
 *   write commands benchRun never reads the reply (`runCommandWithSession(...)`'s result is ignored;
 *   throwGLE looks only at a legacy getLastError `err` field), so the op counts as done.
 * - 'error': anything thrown (a failed find, getMore or findOne, a lost connection, a timeout): the
 *   per-op counter still counts it (BenchRunEventTrace records in its destructor), opCount does not,
 *   errCount does with handleErrors (without it the benchRun thread ends; here the client goes on).
 *
 * The op runners tag their errors; the engine reads the tag. Plain errors are 'error'.
 */
import { MongoServerError } from 'mongodb';
import type { BenchRunFailure } from '../language/ops/op-kind';

export type { BenchRunFailure };

const rules = new WeakMap<object, BenchRunFailure>();

/** Tags a server's reply error (MongoServerError, MongoWriteConcernError) with the rule; other errors are left as they are. */
export function asServerReplyFailure(err: unknown, rule: BenchRunFailure): unknown {
  if (err instanceof MongoServerError) rules.set(err, rule);
  return err;
}

export function benchRunFailureRule(err: unknown): BenchRunFailure {
  return (err !== null && typeof err === 'object' && rules.get(err)) || 'error';
}
