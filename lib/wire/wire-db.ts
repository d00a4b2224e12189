/**
 * The handle ops send through with the wire client, the same calls as the driver's Db that the op
 * kinds use (lib/workload/language/ops/op-kind.ts CommandDb): `command` (one command, its reply as
 * `raw: true` gives it: the top level decoded, nested documents left as bytes) and `runCursorCommand`
 * (the command, then getMore on the same server until the cursor is exhausted; documents are counted,
 * never decoded). Options passed are the driver's and ignored: the wire client always answers raw and
 * always sends to the selected server (non-primary read preferences are refused before a run).
 *
 * A lost connection or a server that is no longer primary sends the topology back to selection
 * (./topology.ts), as the driver's SDAM error handling does; the op itself fails, not retried.
 */
import { BSON, Document, Long, ReadConcern, ReadPreference, WriteConcern } from 'mongodb';
import type { WireConnection } from './connection';
import {
  commandReply,
  isStateChangeError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
} from './errors';
import type { ConnectionPool } from './pool';
import type { Topology } from './topology';

const CURSOR_RAW = { raw: true, promoteLongs: false } as const;

export class WireDb {
  constructor(
    readonly databaseName: string,
    private readonly topology: Topology,
    readonly readPreference: ReadPreference,
    readonly readConcern: ReadConcern | undefined,
    readonly writeConcern: WriteConcern | undefined,
  ) {}

  /** One command, sent to the selected server; resolves with its raw reply, throws as db.command does. */
  command(command: Document, _options?: Document): Promise<Document> {
    const pool = this.topology.selectNow();
    return pool ? this.commandOn(pool, command) : this.selectThen(command);
  }

  runCursorCommand(command: Document, _options?: Document): WireCursor {
    return new WireCursor(this, command);
  }

  private async selectThen(command: Document): Promise<Document> {
    return this.commandOn(await this.topology.select(), command);
  }

  /** Sends `command` on one of `pool`'s connections and decodes the reply (./errors.ts commandReply). */
  async commandOn(pool: ConnectionPool, command: Document): Promise<Document> {
    const conn: WireConnection = pool.take() ?? (await this.checkOut(pool));
    let body: Buffer;
    try {
      body = await conn.send(this.databaseName, command);
    } catch (err) {
      // A late reply is this op's failure; a lost connection is the server's.
      if (!(err instanceof MongoNetworkTimeoutError)) this.topology.forget(pool, err as Error);
      throw err;
    } finally {
      pool.checkIn(conn);
    }
    try {
      return commandReply(body);
    } catch (err) {
      if (isStateChangeError(err)) this.topology.forget(pool, err as Error);
      throw err;
    }
  }

  async selectPool(): Promise<ConnectionPool> {
    return this.topology.selectNow() ?? this.topology.select();
  }

  private async checkOut(pool: ConnectionPool): Promise<WireConnection> {
    try {
      return await pool.checkOut();
    } catch (err) {
      if (err instanceof MongoNetworkError) this.topology.forget(pool, err);
      throw err;
    }
  }
}

function isZero(id: unknown): boolean {
  return id instanceof Long ? id.isZero() : Number(id) === 0;
}

/** A cursor command read to its end: the count of documents is what the ops use. */
export class WireCursor {
  /** The cursor's id once the first reply came (the command op's outcome rule reads it). */
  id: Long | number | undefined;
  private batchSize: number | undefined;

  constructor(
    private readonly db: WireDb,
    private readonly command: Document,
  ) {}

  setBatchSize(size: number): this {
    this.batchSize = size;
    return this;
  }

  /** Every document of every batch, still bytes. */
  async toArray(): Promise<unknown[]> {
    // getMore must reach the server that holds the cursor: the same pool throughout.
    const pool = await this.db.selectPool();
    const first = await this.db.commandOn(pool, this.command);
    let cursor = BSON.deserialize(first.cursor as Uint8Array, CURSOR_RAW);
    const docs: unknown[] = [...((cursor.firstBatch as unknown[]) ?? [])];
    this.id = cursor.id as Long;
    const ns = String(cursor.ns ?? '');
    const collection = ns.slice(ns.indexOf('.') + 1);
    while (!isZero(this.id)) {
      const reply = await this.db.commandOn(pool, {
        getMore: this.id,
        collection,
        ...(this.batchSize !== undefined ? { batchSize: this.batchSize } : {}),
      });
      cursor = BSON.deserialize(reply.cursor as Uint8Array, CURSOR_RAW);
      for (const d of (cursor.nextBatch as unknown[]) ?? []) docs.push(d);
      this.id = cursor.id as Long;
    }
    return docs;
  }
}
