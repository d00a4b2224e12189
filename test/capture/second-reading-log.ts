/**
 * Log entries in the shapes applications produce that the fixtures' real lines do not cover, each built
 * from a real line of test/fixtures/capture/logs (format untouched) changed the way the server's source
 * says it writes such an entry:
 * - an insert whose `documents` the server cut at maxLogSizeKB: top-level `truncated` / `size` keyed by
 *   the attribute, the path inside it down to the cut value (JSONValueExtractor::addTruncationReport,
 *   src/mongo/logv2/json_formatter.cpp); what followed the cut in the command (ordered, lsid, $db) is
 *   not written; `ninserted` is its own attribute, whole;
 * - an update command whose statements went in an OP_MSG document sequence: the logged command is the
 *   body only (the 6.0.11 fixture's Go driver `delete`, here as an `update`); from a mongos with `nShards`;
 * - a failed op: `ok: 0, errMsg, errName, errCode` before `reslen` (OpDebug::report, src/mongo/db/curop.cpp);
 * - a log written with sampleRate s: each statement CurOp and the command's CurOp draw on their own
 *   (shouldLogSlowOpWithSampling, src/mongo/util/log_with_sampling.h).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '..', 'fixtures', 'capture', 'logs');

const files = new Map<string, string[]>();

export function realLine(file: string, index: number): Record<string, unknown> {
  let lines = files.get(file);
  if (!lines) files.set(file, (lines = readFileSync(join(FIXTURES, file), 'utf8').split('\n')));
  return JSON.parse(lines[index]) as Record<string, unknown>;
}

type Entry = Record<string, unknown> & { attr: Record<string, unknown> };

function entry(file: string, index: number, at: number, conn: string): Entry {
  const e = structuredClone(realLine(file, index)) as Entry;
  e.t = { $date: new Date(at).toISOString() };
  e.ctx = conn;
  return e;
}

/** Re-inserts `fields` into attr just before `before` (the server's attribute order). */
function withAttrsBefore(
  attr: Record<string, unknown>,
  before: string,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attr)) {
    if (k === before) Object.assign(out, fields);
    out[k] = v;
  }
  if (!(before in attr)) Object.assign(out, fields);
  return out;
}

/**
 * A mongosh/Node insert of 3 documents of ~12 KB each (6.0.log line 2's entry): the server wrote the first
 * document and cut the second inside its `payload` string; nothing after it in the command was written.
 */
export function truncatedInsert(at: number, conn: string): Entry {
  const e = entry('6.0.log', 1, at, conn);
  const small = { name: 'Holberton school', _id: { $oid: '62fa243a0c33942f4fffe204' } };
  e.attr.command = {
    insert: 'school',
    documents: [
      { ...small, payload: 'x'.repeat(9000) },
      { ...small, _id: { $oid: '62fa243a0c33942f4fffe205' } },
    ],
  };
  e.attr.ninserted = 3;
  e.truncated = { command: { documents: { 1: { payload: { type: 'string', size: 12000 } } } } };
  e.size = { command: 36213 };
  return e;
}

/**
 * An update sent with its `updates` as a document sequence (the Go driver's 6.0.11 `delete` line, as an
 * update): the log holds the body only. `mongos` adds nShards, as a mongos's Slow query entry does.
 */
export function sequenceUpdate(at: number, conn: string, mongos = false): Entry {
  const e = entry('6.0.11.log', 6, at, conn);
  const cmd = e.attr.command as Record<string, unknown>;
  e.attr.command = { update: cmd.delete, ordered: true, lsid: cmd.lsid, $db: cmd.$db };
  if (mongos) e.attr = withAttrsBefore(e.attr, 'numYields', { nShards: 1 });
  return e;
}

/** A find that ran past its maxTimeMS: ok 0 with the server's error name and code. */
export function failedFind(at: number, conn: string): Entry {
  const e = entry('2025-before-8.0.log', 2, at, conn);
  (e.attr.command as Record<string, unknown>).maxTimeMS = 5;
  e.attr = withAttrsBefore(e.attr, 'reslen', {
    ok: 0,
    errMsg: 'operation exceeded time limit',
    errName: 'MaxTimeMSExpired',
    errCode: 50,
  });
  return e;
}

export function find(at: number, conn: string, size = 'medium'): Entry {
  const e = entry('2025-before-8.0.log', 2, at, conn);
  (e.attr.command as Record<string, unknown>).filter = { size };
  return e;
}

/** The update statement (WRITE) of 2025-before-8.0.log line 8 and its command (line 9), with their times and duration. */
export function updateStatementAndCommand(
  start: number,
  conn: string,
  key: number,
  durationMillis = 3,
): [Entry, Entry] {
  const st = entry('2025-before-8.0.log', 7, start + durationMillis - 1, conn);
  st.attr.command = {
    q: { type: `t${key}` },
    u: { $set: { price: 20 } },
    multi: false,
    upsert: false,
  };
  st.attr.durationMillis = durationMillis - 1;
  const cmd = entry('2025-before-8.0.log', 8, start + durationMillis, conn);
  (cmd.attr.command as Record<string, unknown>).updates = [
    { q: { type: `t${key}` }, u: { $set: { price: 20 } } },
  ];
  cmd.attr.durationMillis = durationMillis;
  return [st, cmd];
}

/** A seeded PRNG in [0, 1) (an LCG: enough for a fixture, reproducible). */
export function prng(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
}

/**
 * `ops` operations on 8 connections, a share `updateShare` of them one-statement updates and the rest
 * finds, logged as a server with sampleRate `s` logs them: the find, the update's statement line and its
 * command line each kept with probability s on its own draw.
 */
export function sampledLog(
  ops: number,
  updateShare: number,
  s: number,
  seed: number,
): { text: string; updates: number; finds: number } {
  const random = prng(seed);
  const lines: string[] = [];
  const start = Date.parse('2025-09-25T23:00:00.000Z');
  // The entries once, as text with markers for the time, the connection and the key (a large log fast).
  const iso = (ms: number) => new Date(ms).toISOString();
  const [stTemplate, cmdTemplate] = updateStatementAndCommand(0, '@CONN@', 0).map((e) =>
    JSON.stringify(e),
  );
  const findTemplate = JSON.stringify(find(1, '@CONN@'));
  const fill = (template: string, at: number, conn: string, key: number) =>
    template
      .replace(iso(0), iso(at))
      .replace(iso(2), iso(at + 2))
      .replace(iso(3), iso(at + 3))
      .replace(iso(1), iso(at + 1))
      .replace('@CONN@', conn)
      .replace(/"t0"/g, `"t${key}"`);
  let updates = 0;
  for (let i = 0; i < ops; i++) {
    const conn = `conn${200 + (i % 8)}`;
    const at = start + Math.floor(i / 8) * 10;
    if (random() < updateShare) {
      updates++;
      if (random() < s) lines.push(fill(stTemplate, at, conn, i % 50));
      if (random() < s) lines.push(fill(cmdTemplate, at, conn, i % 50));
    } else if (random() < s) lines.push(fill(findTemplate, at, conn, 0));
  }
  return { text: `${lines.join('\n')}\n`, updates, finds: ops - updates };
}

/** The namespace a find or aggregate names (its collection and `$db`). */
function namespaceOf(command: Record<string, unknown>): { db: string; coll: string } {
  return { db: String(command.$db), coll: String(command.find ?? command.aggregate) };
}

/**
 * The getMore of 2025-before-8.0.log line 5 (a real one: its `originatingCommand`, `cursorid`,
 * `nreturned`), with its time, cursor, batch and, for the last batch, `cursorExhausted: true` (OpDebug::report
 * writes it only when true). `originatingCommand` replaces the find it continues where given; the
 * getMore's own `getMore` field is its cursor id, as the driver sends it.
 */
export function getMore(
  at: number,
  conn: string,
  opts: {
    cursorId: number;
    durationMillis: number;
    nreturned: number;
    exhausted?: boolean;
    originatingCommand?: Record<string, unknown>;
  },
): Entry {
  const e = entry('2025-before-8.0.log', 4, at, conn);
  const command = e.attr.command as Record<string, unknown>;
  command.getMore = opts.cursorId;
  if (opts.originatingCommand) {
    e.attr.originatingCommand = opts.originatingCommand;
    const { db, coll } = namespaceOf(opts.originatingCommand);
    e.attr.ns = `${db}.${coll}`;
    Object.assign(command, { collection: coll, $db: db });
  }
  e.attr.cursorid = opts.cursorId;
  e.attr.nreturned = opts.nreturned;
  e.attr.durationMillis = opts.durationMillis;
  if (opts.exhausted) e.attr = withAttrsBefore(e.attr, 'numYields', { cursorExhausted: true });
  return e;
}

/**
 * The find that opened a cursor (2025-before-8.0.log line 3's entry with the getMore's
 * originatingCommand as its command): a cursor left open carries `cursorid` and no `cursorExhausted`.
 */
export function openingFind(
  at: number,
  conn: string,
  cursorId: number,
  command: Record<string, unknown>,
  durationMillis: number,
): Entry {
  const e = entry('2025-before-8.0.log', 2, at, conn);
  e.attr.command = command;
  const { db, coll } = namespaceOf(command);
  e.attr.ns = `${db}.${coll}`;
  delete e.attr.cursorExhausted;
  e.attr = withAttrsBefore(e.attr, 'keysExamined', { cursorid: cursorId });
  e.attr.nreturned = 101;
  e.attr.durationMillis = durationMillis;
  return e;
}

/**
 * truncatedInsert's entry with the report master writes: BSONObj::_jsonStringGenerator
 * (src/mongo/bson/bsonobj.cpp, commits 1d42410 and 73612fe of mongodb/mongo) wraps each object level
 * as {truncated: <its field's report>, omitted: N}, N the elements not written (the cut leaf, then
 * those after it): the cut `payload` was document 1's last field, document 2 followed, and the command
 * had ordered, lsid and $db after `documents`.
 */
export function truncatedInsertWrapped(at: number, conn: string): Entry {
  const e = truncatedInsert(at, conn);
  e.truncated = {
    command: {
      truncated: {
        documents: {
          truncated: {
            1: { truncated: { payload: { type: 'string', size: 12000 } }, omitted: 1 },
          },
          omitted: 1,
        },
      },
      omitted: 3,
    },
  };
  return e;
}

/**
 * The update statement of truncated-and-broken.log line 2 (cut inside its `$in` list at element 4) with
 * its report in master's wrapped form: the list had one element more (the cut one), `_id` and `q` hold
 * nothing after the cut field, and the command's u, multi and upsert were not written.
 */
export function truncatedUpdateWrapped(): Entry {
  const e = structuredClone(realLine('truncated-and-broken.log', 1)) as Entry;
  e.truncated = {
    command: {
      truncated: {
        q: {
          truncated: {
            _id: {
              truncated: {
                $in: { truncated: { 4: { type: 'binData', size: 21 } }, omitted: 1 },
              },
            },
          },
        },
      },
      omitted: 3,
    },
  };
  return e;
}
