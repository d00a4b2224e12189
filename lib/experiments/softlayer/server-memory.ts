/** How much RAM the server's machine has: what the SoftLayer seed compared its data sizes to. */
import { Document, MongoClient } from 'mongodb';

export interface ServerMemory {
  /** RAM of the server's machine in MiB, when the server reports it. */
  memSizeMB?: number;
  /** Where the figure came from, or why there is none. */
  source: string;
}

async function tryAdmin(client: MongoClient, command: Document): Promise<Document | undefined> {
  return client.db('admin').command(command).catch(() => undefined);
}

/** hostInfo.system.memSizeMB (the machine's RAM). */
export async function readServerMemory(client: MongoClient): Promise<ServerMemory> {
  const hostInfo = await tryAdmin(client, { hostInfo: 1 });
  const mem = hostInfo?.system?.memSizeMB;
  if (typeof mem === 'number' && mem > 0) return { memSizeMB: mem, source: 'hostInfo.system.memSizeMB' };
  const status = await tryAdmin(client, { serverStatus: 1 });
  // serverStatus.mem holds the process's own resident/virtual size, not the machine's RAM: not a substitute.
  const statusNote = status ? (status.mem ? 'serverStatus.mem has only the process size' : 'serverStatus has no mem section') : 'serverStatus failed';
  return { source: `${hostInfo ? 'hostInfo has no system.memSizeMB' : 'hostInfo failed'}; ${statusNote}` };
}

export const MIB = 1024 * 1024;

/** Documents for a dataset of `ratio` x RAM. */
export function docsForRatio(ratio: number, memSizeMB: number, docSize: number): number {
  return Math.max(1, Math.ceil((ratio * memSizeMB * MIB) / docSize));
}
