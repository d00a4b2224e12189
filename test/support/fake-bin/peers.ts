/**
 * Talking to other stand-ins (or real servers) over the wire: one command, direct connection,
 * short timeouts. Used for the replica-set "heartbeats", addShard's checks and mongos start-up.
 */
import { MongoClient } from 'mongodb';

type Doc = Record<string, unknown>;

export async function commandOn(host: string, command: Doc, timeoutMs = 2_000): Promise<Doc> {
  const client = new MongoClient(`mongodb://${host}/?directConnection=true`, {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs * 2,
    monitorCommands: false,
  });
  try {
    await client.connect();
    return (await client.db('admin').command(command)) as Doc;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** hello, or isMaster where hello is unknown (before 4.4.2); undefined when the host does not answer. */
export async function helloOn(host: string, timeoutMs = 1_000): Promise<Doc | undefined> {
  try {
    return await commandOn(host, { isMaster: 1 }, timeoutMs);
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
