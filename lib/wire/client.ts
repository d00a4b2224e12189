/**
 * The wire client (`--driver wire`): the engine's own connections to the deployment, speaking OP_MSG
 * directly (./op-msg.ts), with the same URI and options as the driver path (./settings.ts). `db(name)`
 * gives the handle ops send through (./wire-db.ts), as MongoClient.db does for the driver path;
 * connect() selects a server (./topology.ts), warm(n) opens n connections before a step, close()
 * closes them all. It sends no `lsid` (no sessions), monitors nothing between ops, and retries nothing.
 */
import { toolInfo } from '../common/version';
import { Topology } from './topology';
import { WireDb } from './wire-db';
import { WireClientOptions, wireSettings, WireSettings } from './settings';

export type { WireClientOptions } from './settings';

export class WireClient {
  readonly settings: WireSettings;
  private readonly topology: Topology;
  private readonly dbs = new Map<string, WireDb>();

  /** Throws a UsageError for a URI or option the wire client refuses (naming --driver node). */
  constructor(uri: string, options: WireClientOptions) {
    this.settings = wireSettings(uri, options);
    const s = this.settings;
    this.topology = new Topology(s, {
      connectTimeoutMS: s.connectTimeoutMS,
      clientVersion: toolInfo().version,
      ...(s.tls ? { tls: s.tls } : {}),
      ...(s.socketTimeoutMS !== undefined ? { socketTimeoutMS: s.socketTimeoutMS } : {}),
      ...(s.credentials ? { credentials: s.credentials } : {}),
      ...(s.appName ? { appName: s.appName } : {}),
    });
  }

  /** Waits (up to the server-selection timeout) for a server to send to. */
  async connect(): Promise<this> {
    await this.topology.select();
    return this;
  }

  db(name: string): WireDb {
    let db = this.dbs.get(name);
    if (!db) {
      const s = this.settings;
      db = new WireDb(name, this.topology, s.readPreference, s.readConcern, s.writeConcern);
      this.dbs.set(name, db);
    }
    return db;
  }

  /** Opens connections until `count` are open on the selected server (each handshake and authentication done). */
  async warm(count: number): Promise<void> {
    const pool = await this.topology.select();
    await pool.warm(count);
  }

  /** Hellos sent to probe servers so far (beside one per connection's handshake). */
  get probes(): number {
    return this.topology.probes;
  }

  async close(): Promise<void> {
    this.topology.close();
  }
}
