/**
 * The client a step's ops are sent through, by `--driver`: `node`, the MongoDB Node driver (what
 * applications run; lib/server/connect.ts), or `wire`, the engine's own connections speaking OP_MSG
 * (lib/wire/client.ts), for a ceiling far above the driver's. Both are bound the same way
 * (./compile-ops.ts bindWorkload, through the write guard) and throw the same error names.
 */
import type { MongoClientOptions } from 'mongodb';
import { createClient, warmConnections } from '../../server/connect';
import { WireClient } from '../../wire/client';
import type { OpClient } from './write-handles';

export const DRIVERS = ['node', 'wire'] as const;
export type Driver = (typeof DRIVERS)[number];

export interface OpClientOptions {
  serverSelectionTimeoutMS: number;
  /** The clients that send at once: each gets a connection. */
  maxClients: number;
  clientOptions?: MongoClientOptions;
  opTimeoutMS?: number;
}

/** A step's client, either driver: connect, open a connection per client, bind ops to it, close. */
export interface EngineClient {
  readonly driver: Driver;
  readonly client: OpClient;
  connect(): Promise<void>;
  /** Opens `clients` connections before the step (handshakes and authentication out of the window). */
  warm(clients: number): Promise<void>;
  close(): Promise<void>;
}

/** The client for `driver`; throws a UsageError for a URI or option that driver refuses. */
export function openEngineClient(
  driver: Driver,
  uri: string,
  options: OpClientOptions,
): EngineClient {
  if (driver === 'wire') {
    const wire = new WireClient(uri, options);
    return {
      driver,
      client: wire,
      connect: async () => {
        await wire.connect();
      },
      warm: (clients) => wire.warm(clients),
      close: () => wire.close(),
    };
  }
  const { client } = createClient(uri, options);
  return {
    driver,
    client,
    connect: async () => {
      await client.connect();
    },
    warm: (clients) => warmConnections(client, clients),
    close: () => client.close(),
  };
}
