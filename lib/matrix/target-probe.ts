/**
 * What the target can do, asked once before the matrix runs: its topology (hello / isMaster: setName,
 * msg "isdbgrid"), data-bearing members, whether it creates capped collections and applies
 * unacknowledged (w:0) writes. Each answer carries the reason when
 * the answer is "no", so skipped rows can say why.
 */
import { Document, MongoClient, MongoClientOptions, MongoServerError } from 'mongodb';
import { assertMayReplace, dropScratch, GuardPolicy } from '../server/data-guard';
import {
  Capability,
  MatrixConfiguration,
  TargetCapabilities,
  TopologyFacts,
} from '../experiments/experiment';
import { neededProbes } from './feasibility';
import { tryCommand } from '../server/connect';
import { messageOf } from '../common/values';

export type {
  Capability,
  TargetCapabilities,
  TopologyFacts,
  TopologyKind,
} from '../experiments/experiment';
import { clientTimeouts } from '../common/client-timeouts';

/** Pure: the topology from a hello (or isMaster) reply. */
export function topologyFromHello(reply: Document, source: TopologyFacts['source']): TopologyFacts {
  if (reply.msg === 'isdbgrid') return { kind: 'sharded', source };
  if (typeof reply.setName === 'string') {
    const hosts = Array.isArray(reply.hosts) ? reply.hosts.length : 1;
    const passives = Array.isArray(reply.passives) ? reply.passives.length : 0;
    return { kind: 'replicaSet', setName: reply.setName, dataMembers: hosts + passives, source };
  }
  return { kind: 'standalone', dataMembers: 1, source };
}

export async function probeTopology(client: MongoClient): Promise<TopologyFacts> {
  const hello = await tryCommand(client, { hello: 1 });
  if (hello) return topologyFromHello(hello, 'hello');
  const isMaster = await tryCommand(client, { isMaster: 1 });
  if (isMaster) return topologyFromHello(isMaster, 'isMaster');
  throw new Error('the server answered neither hello nor isMaster');
}

/** The probes' scratch collections: names of this process's own, listed in the matrix's write plan. */
export const PROBE_COLLECTIONS = {
  capped: (pid = process.pid) => `probe_capped_${pid}`,
  unacknowledged: (pid = process.pid) => `probe_unack_${pid}`,
};

/** Creates (and drops) a small capped collection; the server's refusal is the reason. */
export async function probeCapped(
  client: MongoClient,
  db: string,
  guard: GuardPolicy,
): Promise<Capability> {
  const name = PROBE_COLLECTIONS.capped();
  // A name of its own; refused like any other collection if something not ours is there.
  await assertMayReplace(client, db, name, guard);
  await dropScratch(client, db, name);
  try {
    await client.db(db).createCollection(name, { capped: true, size: 1 << 20 });
    return { supported: true };
  } catch (err) {
    const code =
      err instanceof MongoServerError && err.code !== undefined ? ` (code ${err.code})` : '';
    return {
      supported: false,
      reason: `the server refused to create a capped collection: ${messageOf(err)}${code}`,
    };
  } finally {
    await dropScratch(client, db, name);
  }
}

/**
 * Sends one w:0 insert and polls (acknowledged reads) until it is visible. Some servers drop
 * unacknowledged writes: mongo-java-server closes the connection on OP_MSG's moreToCome flag, so a w:0
 * configuration there would measure nothing real.
 */
export async function probeUnacknowledgedWrites(
  client: MongoClient,
  db: string,
  guard: GuardPolicy,
  waitMs = 2000,
): Promise<Capability> {
  const name = PROBE_COLLECTIONS.unacknowledged();
  await assertMayReplace(client, db, name, guard);
  const coll = client.db(db).collection<{ _id: string }>(name);
  const marker = `w0-probe-${Date.now()}`;
  try {
    await coll.insertOne({ _id: marker }, { writeConcern: { w: 0 } }).catch(() => undefined);
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      const found = await coll.findOne({ _id: marker }).catch(() => null);
      if (found) return { supported: true };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return {
      supported: false,
      reason: `an unacknowledged (w:0) insert was not applied within ${waitMs} ms: this server drops w:0 writes (mongo-java-server does not support OP_MSG moreToCome)`,
    };
  } finally {
    await dropScratch(client, db, name);
  }
}

/** Where a probe that needs a client of its own connects. */
export interface ProbeServer {
  uri: string;
  clientOptions: MongoClientOptions;
  serverSelectionTimeoutMS: number;
}

/** The topology always; capped collections and w:0 writes only when a configuration asks for them. */
export async function probeCapabilities(
  client: MongoClient,
  server: ProbeServer,
  db: string,
  guard: GuardPolicy,
  configs: readonly MatrixConfiguration[],
): Promise<TargetCapabilities> {
  const probes = neededProbes(configs);
  const capabilities: TargetCapabilities = { topology: await probeTopology(client) };
  if (probes.capped) capabilities.capped = await probeCapped(client, db, guard);
  if (probes.unacknowledgedWrites) {
    // On a client of its own: a server that answers a w:0 write anyway (FerretDB) leaves that reply on the
    // connection, and the next command there would read it as its own.
    const own = new MongoClient(server.uri, {
      ...clientTimeouts(server.serverSelectionTimeoutMS),
      ...server.clientOptions,
    });
    try {
      capabilities.unacknowledgedWrites = await probeUnacknowledgedWrites(own, db, guard);
    } finally {
      await own.close().catch(() => undefined);
    }
  }
  return capabilities;
}
