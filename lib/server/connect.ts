/**
 * Connecting to the deployment under test: one MongoClient whose pool holds every client of the
 * largest step, a server-selection timeout so an unreachable URI fails fast naming its hosts, and
 * what the result records about the server (version, topology, whether it is a test double).
 */
import * as net from 'node:net';
import { Document, MongoClient, MongoClientOptions, MongoParseError } from 'mongodb';
import { RunError, UsageError } from '../config/errors';
import { redactUri } from '../security/redact';
import { ResultDocument } from '../result';
import { IDENTIFY_PROBES, identifyServer } from './identify-server';
import { readConnectedProcessFacts } from './server-facts';
import { dropUndefined, messageOf } from '../common/values';
import { clientTimeouts } from '../common/client-timeouts';

export interface ConnectOptions {
  serverSelectionTimeoutMS: number;
  /** The largest client count of the sweep: the pool holds at least this many connections. */
  maxClients: number;
  /** Force target.testDouble (e.g. a server the detection cannot recognise). */
  testDouble?: boolean;
  /** Credentials and TLS (lib/security's toMongoClientOptions); never put into the URI. */
  clientOptions?: MongoClientOptions;
  /**
   * Per-operation time limit in ms: the driver's socketTimeoutMS (a reply that takes longer fails
   * the op with MongoNetworkTimeoutError; this driver ignores CSOT's timeoutMS). The workload's
   * reads also send it as maxTimeMS (compile-ops). Undefined: no limit.
   */
  opTimeoutMS?: number;
}

export interface ConnectedTarget {
  client: MongoClient;
  target: ResultDocument['target'];
  hosts: string[];
}

/** Headroom for the loader and pings beside the benchmark's clients. */
const POOL_HEADROOM = 2;

export function createClient(
  uri: string,
  options: ConnectOptions,
): { client: MongoClient; hosts: string[] } {
  let client: MongoClient;
  try {
    client = new MongoClient(uri, {
      ...clientTimeouts(options.serverSelectionTimeoutMS),
      maxPoolSize: options.maxClients + POOL_HEADROOM,
      // Connections are opened before each step (see warmConnections), not kept by a minimum.
      minPoolSize: 0,
      appName: 'mongo-bench',
      ...dropUndefined({ socketTimeoutMS: options.opTimeoutMS }),
      ...options.clientOptions,
    });
  } catch (err) {
    // The constructor only parses (the URI and the options): whatever it throws is bad input. The
    // connection-string parser has its own MongoParseError class, and a bad port is a MongoRuntimeError.
    if (err instanceof MongoParseError || err instanceof Error)
      throw new UsageError(`option --uri: ${redactUri(messageOf(err))} (uri: ${redactUri(uri)})`);
    throw err;
  }
  // A mongodb+srv:// URI lists no host until its SRV record is resolved: name the SRV host.
  const { srvHost } = client.options;
  const hosts = srvHost ? [srvHost] : client.options.hosts.map((h) => h.toString());
  return { client, hosts };
}

/** How long the refused-connection probe waits for a TCP answer before leaving it to the driver. */
const REFUSAL_PROBE_MS = 2000;

/**
 * A single host that refuses connections fails now, not after the whole server-selection timeout: one
 * TCP connect, and ECONNREFUSED (nothing listens there) is final. Replica sets, several hosts, SRV,
 * load balancers and proxies keep the driver's timeout (a member may be restarting, the seed list is
 * not the whole set); a host that does not answer at all (no refusal) is left to the driver as well.
 */
export async function refusedSingleHost(client: MongoClient): Promise<string | undefined> {
  const o = client.options;
  if (o.hosts.length !== 1 || o.srvHost || o.replicaSet || o.loadBalanced || o.proxyHost)
    return undefined;
  const host = o.hosts[0];
  if (host.socketPath !== undefined || host.host === undefined) return undefined;
  const address = host.toString();
  return new Promise((resolve) => {
    const socket = net.connect({ host: host.host, port: host.port ?? 27017 });
    const done = (why: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => done(undefined), REFUSAL_PROBE_MS);
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(
        err.code === 'ECONNREFUSED'
          ? `connect ECONNREFUSED ${address}: nothing listens there`
          : undefined,
      ),
    );
  });
}

/** Throws at once (RunError) when `uri` is a single host that refuses connections; connects nothing else. */
export async function assertNotRefused(
  uri: string,
  clientOptions: MongoClientOptions = {},
): Promise<void> {
  const { client, hosts } = createClient(uri, {
    serverSelectionTimeoutMS: 1000,
    maxClients: 1,
    clientOptions,
  });
  try {
    const refused = await refusedSingleHost(client);
    if (refused)
      throw new RunError(`cannot reach ${hosts.join(', ')} (${redactUri(uri)}): ${refused}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

export async function connectTarget(
  uri: string,
  options: ConnectOptions,
): Promise<ConnectedTarget> {
  const { client, hosts } = createClient(uri, options);
  const refused = await refusedSingleHost(client);
  if (refused) {
    await client.close().catch(() => undefined);
    throw new RunError(`cannot reach ${hosts.join(', ')} (${redactUri(uri)}): ${refused}`);
  }
  try {
    await client.connect();
  } catch (err) {
    await client.close().catch(() => undefined);
    const reason = messageOf(err);
    if (
      (err as Error).name === 'MongoServerSelectionError' ||
      (err as Error).name === 'MongoOperationTimeoutError'
    ) {
      throw new RunError(
        `cannot reach ${hosts.join(', ')} (${redactUri(uri)}) within the server-selection timeout of ${options.serverSelectionTimeoutMS} ms: ${reason}`,
      );
    }
    // Reached, but refused us (authentication, TLS, ...).
    throw new RunError(`cannot connect to ${hosts.join(', ')} (${redactUri(uri)}): ${reason}`);
  }
  try {
    const target = await describeTarget(client, uri, options.testDouble === true);
    return { client, target, hosts };
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new RunError(
      `connected to ${hosts.join(', ')} but could not read its build info: ${messageOf(err)}`,
    );
  }
}

/** An admin command's answer, or undefined when the server refuses it. */
export async function tryCommand(
  client: MongoClient,
  command: Document,
): Promise<Document | undefined> {
  try {
    return await client.db('admin').command(command);
  } catch {
    return undefined;
  }
}

/** An admin command's error message, or undefined when it succeeded. */
async function commandError(client: MongoClient, command: Document): Promise<string | undefined> {
  try {
    await client.db('admin').command(command);
    return undefined;
  } catch (err) {
    return messageOf(err);
  }
}

export async function describeTarget(
  client: MongoClient,
  uri: string,
  forceTestDouble: boolean,
): Promise<ResultDocument['target']> {
  const buildInfo = await client.db('admin').command({ buildInfo: 1 });
  // isMaster rather than hello: mongo-java-server knows only the former, and every mongod still answers it.
  const hello =
    (await tryCommand(client, { isMaster: 1 })) ?? (await tryCommand(client, { hello: 1 })) ?? {};
  let statusError: unknown;
  const status = await client
    .db('admin')
    .command({ serverStatus: 1 })
    .catch((err: unknown) => {
      statusError = err;
      return undefined;
    });
  const topology =
    hello.msg === 'isdbgrid'
      ? 'sharded'
      : typeof hello.setName === 'string'
        ? 'replicaSet'
        : 'standalone';
  // The product, named by the fields each product documents (lib/server/identify-server.ts):
  // mongo-java-server reports a MongoDB version but runs in a JVM (serverStatus.process is "java").
  const [getParameterError, getCmdLineOptsError] = await Promise.all([
    commandError(client, IDENTIFY_PROBES.getParameter),
    commandError(client, IDENTIFY_PROBES.getCmdLineOpts),
  ]);
  const product = identifyServer({
    uri,
    buildInfo,
    serverStatus: status,
    hello,
    getParameterError,
    getCmdLineOptsError,
    declaredTestDouble: forceTestDouble,
  });
  const testDouble = forceTestDouble || product.testDouble;
  const host =
    typeof hello.me === 'string' ? hello.me : (client.options.hosts[0]?.toString() ?? 'unknown');
  const processFacts = await readConnectedProcessFacts(client, host, {
    buildInfo,
    serverStatus: status,
    serverStatusError: statusError,
  });
  const target: ResultDocument['target'] = {
    uri: redactUri(uri),
    serverVersion: typeof buildInfo.version === 'string' ? buildInfo.version : undefined,
    topology,
  };
  if (testDouble) target.testDouble = true;
  target.product =
    testDouble && !product.testDouble
      ? { ...product, testDouble: true, label: `${product.label} (declared a test double)` }
      : product;
  target.processes = [processFacts];
  // serverStatus.storageEngine.name: the engine the figures were measured on (wiredTiger, or e.g. an
  // in-memory engine that would make them incomparable).
  const engine = (status?.storageEngine as { name?: unknown } | undefined)?.name;
  if (typeof engine === 'string') target.storageEngine = engine;
  return target;
}

/** Opens `clients` connections before a step so connection set-up does not land in the measured window. */
export async function warmConnections(client: MongoClient, clients: number): Promise<void> {
  const admin = client.db('admin');
  await Promise.all(Array.from({ length: clients }, () => admin.command({ ping: 1 })));
}
