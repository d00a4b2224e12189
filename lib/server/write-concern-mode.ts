/**
 * A write concern whose `w` is a word other than "majority" names a custom mode of the replica set's
 * config (`settings.getLastErrorModes`, e.g. `{ multiDC: { dc: 2 } }`); the server refuses every write
 * with a mode it does not list, so a typo (`--write-concern banana`) would fail the whole run write by
 * write. Checked at connect, before anything is written: accepted where the set's config lists the mode,
 * accepted with a warning where the config cannot be read (a mongos, no privilege), refused (exit 2)
 * on a standalone or a server that is not identified as a replica-set member.
 */
import type { Document } from 'mongodb';
import { UsageError } from '../config/errors';
import { messageOf } from '../common/values';

/** The custom mode a write concern names, or undefined (a number, "majority", no `w`). */
export function customWriteMode(
  writeConcern: Record<string, unknown> | undefined,
): string | undefined {
  const w = writeConcern?.w;
  return typeof w === 'string' && w !== 'majority' ? w : undefined;
}

/**
 * Throws a UsageError when the write concern's custom mode cannot hold on this server; returns a
 * warning when it could not be checked, else undefined. `command` runs an admin command.
 */
export async function checkWriteConcernMode(
  writeConcern: Record<string, unknown> | undefined,
  topology: string,
  command: (cmd: Document) => Promise<Document>,
): Promise<string | undefined> {
  const mode = customWriteMode(writeConcern);
  if (mode === undefined) return undefined;
  const what = `option --write-concern: w "${mode}" is a custom write mode (a replica set's settings.getLastErrorModes)`;
  if (topology === 'sharded')
    return `${what}: not checked through a mongos; each shard's replica set must define it, or every write fails`;
  if (topology !== 'replicaSet')
    throw new UsageError(
      `${what}, and this server is ${topology === 'standalone' ? 'a standalone' : `not identified as a replica-set member (${topology})`}: every write would fail; use 1 or majority`,
    );
  let config: Document;
  try {
    config = ((await command({ replSetGetConfig: 1 })) as { config?: Document }).config ?? {};
  } catch (err) {
    return `${what}: the replica set's config could not be read (${messageOf(err)}), so it is not checked; every write fails if the set does not define it`;
  }
  const modes = Object.keys(
    ((config.settings as Document | undefined)?.getLastErrorModes as Document | undefined) ?? {},
  );
  if (modes.includes(mode)) return undefined;
  throw new UsageError(
    `${what}, and the replica set ${typeof config._id === 'string' ? `"${config._id}" ` : ''}defines ${modes.length > 0 ? `only ${modes.map((m) => `"${m}"`).join(', ')}` : 'none'}: every write would fail; use 1, majority or a mode it defines`,
  );
}
