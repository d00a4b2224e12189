/**
 * A replica-set member's `local.oplog.rs`, modelled for the oplog-window tests (unit tests through
 * `command`, whole runs through the recording server's `handlers`). No replica set runs here; what is
 * modelled and where each rule comes from:
 * - One entry per inserted document: src/mongo/db/repl/oplog.h/.cpp `logInsertOps` "iterates from begin
 *   to end and generates insert oplog entries" (one per InsertStatement of the batch).
 * - Every entry has `ts`, a Timestamp: seconds since the epoch and an ordinal within the second
 *   (src/mongo/db/repl/oplog_entry.idl `ts`; the oplog's RecordId is made from it, oplog.cpp
 *   "RecordId based on the ts field of the oplog entry").
 * - The oplog is capped by size: the oldest entries go first once `maxSize` is passed (a capped
 *   collection; the server truncates in the background, so `size` may pass `maxSize` for a while, and
 *   `storage.oplogMinRetentionHours` keeps entries longer: not modelled, truncation here is at once).
 * - The stats: `$collStats: {storageStats: {}}` and `collStats` give `size`, `count`, `capped`, `max`,
 *   `maxSize` (src/mongo/db/stats/storage_stats.cpp appendCollectionStorageStats).
 * - What is read, as mongosh's `db.getReplicationInfo()` reads it (packages/shell-api database.ts):
 *   the oplog's stats (`maxSize`, `size`) and its first and last entries by `$natural` order; the
 *   step's entries are a `count` with a `ts` range.
 * Each entry weighs `entryBytes` (a real entry weighs the document plus ~100 bytes of envelope: op, ns,
 * ui, o, ts, t, v, wall).
 */
import { BSON, Timestamp } from 'mongodb';
import type { CommandHandler } from './recording-server';
import type { DbCommand } from '../../lib/server/oplog-window';

type Doc = Record<string, unknown>;

export class OplogDouble {
  entries: Array<{ ts: Timestamp }> = [];
  private lastSecond = 0;
  private ordinal = 0;

  constructor(
    readonly maxSize: number,
    readonly entryBytes: number,
  ) {}

  /** `n` entries in second `second` (seconds since the epoch), each after the last. */
  write(second: number, n: number): void {
    for (let k = 0; k < n; k++) {
      if (second !== this.lastSecond) {
        this.lastSecond = second;
        this.ordinal = 0;
      }
      this.entries.push({ ts: new Timestamp({ t: second, i: ++this.ordinal }) });
      while (this.entries.length * this.entryBytes > this.maxSize) this.entries.shift();
    }
  }

  /** `n` entries now (the load machine's clock). */
  writeNow(n: number): void {
    this.write(Math.floor(Date.now() / 1000), n);
  }

  private stats(): Doc {
    return {
      capped: true,
      max: 0,
      maxSize: this.maxSize,
      size: this.entries.length * this.entryBytes,
      count: this.entries.length,
    };
  }

  /** The reply to a command on `local` about the oplog; undefined for anything else. */
  reply(cmd: Doc, db: string): Doc | undefined {
    if (db !== 'local') return undefined;
    if (cmd.aggregate === 'oplog.rs')
      return {
        cursor: {
          id: BSON.Long.ZERO,
          ns: 'local.oplog.rs',
          firstBatch: [{ ns: 'local.oplog.rs', storageStats: this.stats() }],
        },
        ok: 1,
      };
    if (cmd.collStats === 'oplog.rs') return { ns: 'local.oplog.rs', ...this.stats(), ok: 1 };
    if (cmd.find === 'oplog.rs') {
      const dir = (cmd.sort as { $natural?: number } | undefined)?.$natural ?? 1;
      const e = dir === -1 ? this.entries.at(-1) : this.entries[0];
      return {
        cursor: { id: BSON.Long.ZERO, ns: 'local.oplog.rs', firstBatch: e ? [e] : [] },
        ok: 1,
      };
    }
    if (cmd.count === 'oplog.rs') {
      const range = (cmd.query as { ts: { $gt: Timestamp; $lte: Timestamp } }).ts;
      const n = this.entries.filter(
        (e) => e.ts.compare(range.$gt) > 0 && e.ts.compare(range.$lte) <= 0,
      ).length;
      return { n, ok: 1 };
    }
    return undefined;
  }

  /** As a process connection's command (the unit tests). */
  command: DbCommand = async (cmd, db = 'admin') => {
    const r = this.reply(cmd, db);
    if (!r) throw new Error(`unmodelled ${db} ${JSON.stringify(cmd)}`);
    return r;
  };

  /**
   * Recording-server handlers: the oplog's commands on `local` answered here, the rest by `others`
   * (e.g. ServerStatusDouble's); every acknowledged insert writes one entry per document.
   */
  handlers(others: Record<string, CommandHandler>): Record<string, CommandHandler> {
    const pass =
      (name: string): CommandHandler =>
      (body, db, server, connection) =>
        this.reply(body, db) ?? others[name]?.(body, db, server, connection);
    const out: Record<string, CommandHandler> = { ...others };
    for (const name of ['aggregate', 'collStats', 'find', 'count']) out[name] = pass(name);
    out.insert = (body, db, server, connection) => {
      const n = Array.isArray(body.documents) ? body.documents.length : 1;
      if (db !== 'local') this.writeNow(n);
      return others.insert?.(body, db, server, connection);
    };
    return out;
  }
}
