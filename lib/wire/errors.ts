/**
 * What the wire client throws is what the Node driver throws for the same event, by class, name,
 * code and labels, so the engine's outcome rules (benchRun's), lib/metrics/error-class.ts and
 * isLostServerError read both clients alike: a reply with ok: 0 is a MongoServerError and one with a
 * writeConcernError a MongoWriteConcernError (as db.command: driver src/cmap/connection.ts and
 * src/write_concern.ts throwIfWriteConcernError), a lost connection a MongoNetworkError, a reply
 * later than the socket timeout a MongoNetworkTimeoutError, no server within the server-selection
 * timeout a MongoServerSelectionError.
 */
import {
  BSON,
  Document,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
  WriteConcernErrorResult,
} from 'mongodb';

export { MongoNetworkError, MongoNetworkTimeoutError };

/** No server to send to within the timeout (the driver's class; it has no topology description to give). */
export function serverSelectionError(message: string): MongoServerSelectionError {
  return new MongoServerSelectionError(message, {} as never);
}

/** As `raw: true` in the driver: the reply's top level decoded, nested documents left as bytes. */
const RAW = { raw: true } as const;

/** A reply as db.command(..., {raw: true}) returns it; throws what the driver throws for a failed one. */
export function commandReply(body: Buffer): Document {
  const reply = BSON.deserialize(body, RAW);
  if (reply.ok === 0) throw new MongoServerError(BSON.deserialize(body));
  if (reply.writeConcernError !== undefined)
    throw new MongoWriteConcernError(BSON.deserialize(body) as WriteConcernErrorResult);
  return reply;
}

/** A whole reply decoded (the handshake, authentication); ok: 0 throws as above. */
export function fullReply(body: Buffer): Document {
  const reply = BSON.deserialize(body);
  if (reply.ok === 0) throw new MongoServerError(reply);
  return reply;
}

/**
 * Server errors after which the server is no longer the one to send to (it stepped down, is shutting
 * down or is not primary): the driver's SDAM rules mark it unknown and select again
 * (driver src/error.ts isNodeIsRecoveringError, isNotWritablePrimaryError).
 */
const STATE_CHANGE_CODES = new Set([
  10107, // NotWritablePrimary
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  189, // PrimarySteppedDown
  91, // ShutdownInProgress
]);

export function isStateChangeError(err: unknown): boolean {
  return err instanceof MongoServerError && STATE_CHANGE_CODES.has(Number(err.code));
}
