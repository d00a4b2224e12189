/** A configuration's settings: for the driver (write concern) and in words for tables and progress lines. */
import { MongoClient, WriteConcernSettings } from 'mongodb';
import { dropCollection, GuardPolicy } from '../server/data-guard';
import { MatrixConfiguration, WriteConcernSpec } from './experiment';

export function driverWriteConcern(
  spec: WriteConcernSpec | undefined,
): WriteConcernSettings | undefined {
  if (!spec) return undefined;
  const out: WriteConcernSettings = {};
  if (spec.w !== undefined) out.w = spec.w as WriteConcernSettings['w'];
  if (spec.j !== undefined) out.journal = spec.j;
  if (spec.wtimeoutMS !== undefined) out.wtimeoutMS = spec.wtimeoutMS;
  return out;
}

export function describeWriteConcern(spec: WriteConcernSpec | undefined): string {
  if (!spec || Object.keys(spec).length === 0) return 'server default write concern';
  const parts: string[] = [];
  if (spec.w !== undefined) parts.push(`w:${typeof spec.w === 'string' ? `"${spec.w}"` : spec.w}`);
  if (spec.j !== undefined) parts.push(`j:${spec.j}`);
  if (spec.wtimeoutMS !== undefined) parts.push(`wtimeout ${spec.wtimeoutMS} ms`);
  return parts.join(', ');
}

/** "w:1, j:true, capped, reads: secondary" */
export function describeSettings(config: MatrixConfiguration): string {
  const parts = [describeWriteConcern(config.writeConcern)];
  if (config.capped !== undefined) parts.push(config.capped ? 'capped' : 'not capped');
  if (config.readPreference) parts.push(`reads: ${config.readPreference}`);
  for (const [key, value] of Object.entries(config.parameters ?? {}))
    parts.push(`${key}=${JSON.stringify(value)}`);
  return parts.join(', ');
}

/** Members that must acknowledge a write (w:n), or 0 when w is not a number. */
export function requiredAcks(spec: WriteConcernSpec | undefined): number {
  return typeof spec?.w === 'number' ? spec.w : 0;
}

/**
 * Drops an experiment's collection before it writes there (claim: marked as the tool's for the next run),
 * through the data guard: a collection holding documents mongo-bench did not load is refused (exit 2)
 * unless the guard has the user's consent (--drop).
 */
export async function dropOwn(
  client: MongoClient,
  db: string,
  collection: string,
  guard: GuardPolicy,
): Promise<void> {
  await dropCollection(client, db, collection, guard, { claim: true });
}

/** Drops what the experiment wrote, after it (ignoring failures: cleanup must not hide the result). */
export async function dropQuietly(
  client: MongoClient,
  db: string,
  collection: string,
  guard: GuardPolicy,
): Promise<void> {
  await dropCollection(client, db, collection, guard).catch(() => undefined);
}
