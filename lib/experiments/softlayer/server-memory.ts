/** How much RAM the server has (its memory limit when below its machine's): what the SoftLayer seed compared its data sizes to. */
import { Document, MongoClient } from 'mongodb';

export interface ServerMemory {
  /** The server's RAM in MiB (its memory limit when below the machine's), when the server reports it. */
  memSizeMB?: number;
  /** Where the figure came from, or why there is none. */
  source: string;
}

async function tryAdmin(client: MongoClient, command: Document): Promise<Document | undefined> {
  return client
    .db('admin')
    .command(command)
    .catch(() => undefined);
}

/**
 * The memory the server has: hostInfo.system.memLimitMB when it is below memSizeMB (a container's or
 * cgroup's limit: ProcessInfo::getMemSizeMB, beside getSystemMemSizeMB, src/mongo/db/commands/
 * generic_servers.cpp HostInfoCmd, from 4.4), else hostInfo.system.memSizeMB (the machine's RAM).
 */
export async function readServerMemory(client: MongoClient): Promise<ServerMemory> {
  const hostInfo = await tryAdmin(client, { hostInfo: 1 });
  const mem = hostInfo?.system?.memSizeMB;
  const limit = hostInfo?.system?.memLimitMB;
  if (typeof limit === 'number' && limit > 0 && (typeof mem !== 'number' || limit < mem)) {
    return {
      memSizeMB: limit,
      source: `hostInfo.system.memLimitMB, the server's memory limit${typeof mem === 'number' ? ` (the host has ${mem} MiB)` : ''}`,
    };
  }
  if (typeof mem === 'number' && mem > 0)
    return { memSizeMB: mem, source: 'hostInfo.system.memSizeMB' };
  const status = await tryAdmin(client, { serverStatus: 1 });
  // serverStatus.mem holds the process's own resident/virtual size, not the machine's RAM: not a substitute.
  const statusNote = status
    ? status.mem
      ? 'serverStatus.mem has only the process size'
      : 'serverStatus has no mem section'
    : 'serverStatus failed';
  return {
    source: `${hostInfo ? 'hostInfo has no system.memSizeMB' : 'hostInfo failed'}; ${statusNote}`,
  };
}

export const MIB = 1024 * 1024;

/** Documents for a dataset of `ratio` x RAM. */
export function docsForRatio(ratio: number, memSizeMB: number, docSize: number): number {
  return Math.max(1, Math.ceil((ratio * memSizeMB * MIB) / docSize));
}
