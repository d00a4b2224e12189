/**
 * command: the document as given. A command that opens a cursor (aggregate, find, listCollections,
 * listIndexes; not an explain) goes through db.runCursorCommand and is read to the end with getMore,
 * its documents counted, as benchRun's executeOnce COMMAND case does when the reply has a `cursor`
 * (mongodb/mongo src/mongo/shell/bench.cpp v4.4); any other by db.command. Failure rules
 * (engine/benchrun-outcome.ts): the command's ok: 0 is an op and an error ('op-and-error', executeOnce
 * does `++errCount` and goes on); a failed getMore is thrown ('error').
 */
import type { Document } from 'mongodb';
import type { OpClass, ServerOpKind } from './op-kind';

const WRITE_COMMANDS = new Set([
  'insert',
  'update',
  'delete',
  'findandmodify',
  'findAndModify',
  'bulkWrite',
  'create',
  'drop',
  'createIndexes',
  'dropIndexes',
]);

/** Commands whose reply is a cursor (unless they only explain): these are read to the end. */
const CURSOR_COMMANDS = new Set(['aggregate', 'find', 'listCollections', 'listIndexes']);

export function opensCursor(command: unknown): boolean {
  if (command === null || typeof command !== 'object') return false;
  const doc = command as Record<string, unknown>;
  const name = Object.keys(doc)[0];
  return name !== undefined && CURSOR_COMMANDS.has(name) && !doc.explain;
}

/** A command is a write when its first key names a write command; otherwise a read. */
function commandClass(spec: { command?: unknown }): OpClass {
  const name =
    spec.command && typeof spec.command === 'object' ? Object.keys(spec.command)[0] : undefined;
  return name !== undefined && WRITE_COMMANDS.has(name) ? 'write' : 'read';
}

export const COMMAND: ServerOpKind<'command'> = {
  type: 'command',
  fields: ['command', 'readPreference', 'readPrefMode', 'weight'],
  opClass: commandClass,
  databaseNamespace: true,
  parse(f, spec) {
    const command = f.object('command', true) as Record<string, unknown>;
    if (Object.keys(command).length === 0)
      f.bad(`${f.at}.command`, 'expected a command document like {"ping": 1}');
    spec.command = command;
  },
  compile(spec, compile, prepared) {
    prepared.command = compile(spec.command, 'command');
  },
  bind(op, wire) {
    const { db, raw, failure } = wire;
    const command = op.command!;
    // Only the op's own read preference: a command otherwise goes to the primary.
    const options = wire.readPreference ? { ...raw, readPreference: wire.readPreference } : raw;
    if (!opensCursor(op.spec.command)) {
      return async (s) => {
        try {
          return await db.command(command(s) as Document, options);
        } catch (err) {
          throw failure(err, 'op-and-error');
        }
      };
    }
    return async (s) => {
      const cursor = db.runCursorCommand(command(s) as Document, options);
      try {
        return (await cursor.toArray()).length;
      } catch (err) {
        // No cursor id yet: the command itself answered ok: 0 (benchRun: an op and an error);
        // otherwise a getMore failed, which benchRun throws (an error only).
        throw failure(err, cursor.id === undefined ? 'op-and-error' : 'error');
      }
    };
  },
  benchRun: { rate: 'command', count: 'commands', latency: 'commandsLatencyAverageMicros' },
  needsData: true,
  opcounters: ['command'],
};
