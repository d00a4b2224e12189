/**
 * Whether two connection strings reach the same deployment: by name before anything connects (their host
 * lists overlap), and by what the servers say once connected (hello's topologyVersion.processId, or a
 * replica set's setName with overlapping hosts). Where it cannot be told, the answer is "the same": the
 * caller refuses what would be unsafe on the same deployment.
 */
import { Document, MongoClient, MongoClientOptions } from 'mongodb';
import { messageOf } from '../common/values';
import { clientTimeouts } from '../common/client-timeouts';

const DEFAULT_PORT = 27017;

/** The hosts of a mongodb:// URI as host:port, lower-cased; undefined for mongodb+srv:// (a DNS name for a list). */
export function hostsOf(uri: string): string[] | undefined {
  const m = /^mongodb:\/\/(?:[^@/]*@)?([^/?]+)/i.exec(uri.trim());
  if (!m) return undefined;
  return m[1].split(',').map((host) => {
    const h = host.trim().toLowerCase();
    const hasPort = h.startsWith('[') ? /\]:\d+$/.test(h) : /:\d+$/.test(h);
    return hasPort ? h : `${h}:${DEFAULT_PORT}`;
  });
}

/** The two URIs name a host in common (by name: another name for the same host is told once connected). */
export function sameHostsByName(a: string, b: string): boolean {
  const left = hostsOf(a);
  const right = hostsOf(b);
  if (!left || !right) return false;
  return left.some((h) => right.includes(h));
}

export interface SameDeployment {
  same: boolean;
  /** How it was told, in words. */
  why: string;
}

/** Whether `otherUri` reaches the deployment `client` is connected to (a connection failure: the same). */
export async function sameDeployment(
  client: MongoClient,
  otherUri: string,
  clientOptions: MongoClientOptions = {},
): Promise<SameDeployment> {
  if (sameHostsByName(otherUri, client.options.hosts.map((h) => h.toString()).join(',')))
    return { same: true, why: 'the same host' };
  const other = new MongoClient(otherUri, { ...clientTimeouts(), ...clientOptions });
  try {
    const [mine, theirs] = await Promise.all([
      client.db('admin').command({ hello: 1 }),
      other.db('admin').command({ hello: 1 }),
    ]);
    return compareHello(mine, theirs);
  } catch (err) {
    return { same: true, why: `cannot tell (${messageOf(err)}), so taken as the same` };
  } finally {
    await other.close().catch(() => undefined);
  }
}

/** Two hello replies: the same process, or the same replica set (its name and a member in common). */
export function compareHello(a: Document, b: Document): SameDeployment {
  const processA = processIdOf(a);
  const processB = processIdOf(b);
  if (processA !== undefined && processA === processB)
    return { same: true, why: 'the same process (hello topologyVersion.processId)' };
  if (typeof a.setName === 'string' && a.setName === b.setName) {
    const hostsA = membersOf(a);
    if (membersOf(b).some((h) => hostsA.includes(h)))
      return { same: true, why: `the same replica set ${a.setName}` };
  }
  if (processA !== undefined && processB !== undefined)
    return { same: false, why: 'another process, not a member of the same replica set' };
  return { same: true, why: 'hello names no process id, so taken as the same' };
}

function processIdOf(hello: Document): string | undefined {
  const id = (hello.topologyVersion as Document | undefined)?.processId as unknown;
  if (id === undefined || id === null) return undefined;
  return typeof id === 'object' && 'toHexString' in (id as object)
    ? (id as { toHexString(): string }).toHexString()
    : String(id);
}

function membersOf(hello: Document): string[] {
  return [
    ...((hello.hosts as string[] | undefined) ?? []),
    ...((hello.passives as string[] | undefined) ?? []),
    ...((hello.arbiters as string[] | undefined) ?? []),
  ].map((h) => h.toLowerCase());
}
