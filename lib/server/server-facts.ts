/**
 * What the server process the run connected to says about itself, for a reader who wants to repeat
 * the run: version and gitVersion (buildInfo), storage engine and the WiredTiger cache configured
 * (serverStatus), featureCompatibilityVersion (getParameter), the options that shape performance
 * (getCmdLineOpts) and its machine (hostInfo). A command the server lacks, or the user may not run
 * (getCmdLineOpts and hostInfo need clusterMonitor), leaves its facts absent and says why.
 */
import { Document, MongoClient } from 'mongodb';
import type { ServerProcessFacts } from '../result';

type Run = (command: Document) => Promise<Document>;

/** "hostInfo: not authorized (Unauthorized, 13)": why a command gave nothing. */
function why(command: string, err: unknown): string {
  const e = err as { codeName?: unknown; code?: unknown; message?: unknown };
  const name = typeof e.codeName === 'string' ? e.codeName : undefined;
  if (name === 'Unauthorized' || e.code === 13)
    return `${command}: not authorized (needs the clusterMonitor role)`;
  if (name === 'CommandNotFound' || e.code === 59)
    return `${command}: not implemented by this server`;
  return `${command}: ${name ?? 'failed'}${e.code !== undefined ? ` (${String(e.code)})` : ''}: ${String(e.message ?? err).slice(0, 160)}`;
}

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'bigint' ? Number(v) : undefined;
const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.length > 0 ? v : undefined;
const obj = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;

/**
 * getCmdLineOpts.parsed, kept to what shapes performance: storage (engine, cacheSizeGB, block and
 * journal compressors, journal), network compression, the oplog size. Never security or paths of keys.
 */
export function performanceOptions(
  parsed: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const storage = obj(parsed.storage);
  if (storage) {
    const { dbPath: _dbPath, ...rest } = storage;
    void _dbPath;
    if (Object.keys(rest).length > 0) out.storage = rest;
  }
  const compression = obj(obj(parsed.net)?.compression);
  if (compression) out.net = { compression };
  const oplogSizeMB = obj(parsed.replication)?.oplogSizeMB;
  if (oplogSizeMB !== undefined) out.replication = { oplogSizeMB };
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Reads the facts through `run` (an admin command runner); `buildInfo` and `serverStatus` already read are reused. */
export async function readProcessFacts(
  run: Run,
  host: string,
  known: { buildInfo: Document; serverStatus?: Document; serverStatusError?: unknown },
): Promise<ServerProcessFacts> {
  const facts: ServerProcessFacts = { host };
  const unavailable: string[] = [];
  const { buildInfo, serverStatus } = known;
  if (str(buildInfo.version)) facts.version = buildInfo.version as string;
  if (str(buildInfo.gitVersion)) facts.gitVersion = buildInfo.gitVersion as string;
  if (serverStatus) {
    const engine = str(obj(serverStatus.storageEngine)?.name);
    if (engine) facts.storageEngine = engine;
    const cache = num(obj(obj(serverStatus.wiredTiger)?.cache)?.['maximum bytes configured']);
    if (cache !== undefined) facts.cacheBytes = cache;
    else if (engine === 'wiredTiger' || engine === undefined)
      unavailable.push('WiredTiger cache: serverStatus has no wiredTiger.cache');
    if (engine === undefined) unavailable.push('storage engine: serverStatus has no storageEngine');
  } else {
    unavailable.push(
      known.serverStatusError !== undefined
        ? why('serverStatus', known.serverStatusError)
        : 'serverStatus: not read',
    );
  }
  const [fcv, opts, hostInfo] = await Promise.allSettled([
    run({ getParameter: 1, featureCompatibilityVersion: 1 }),
    run({ getCmdLineOpts: 1 }),
    run({ hostInfo: 1 }),
  ]);
  if (fcv.status === 'fulfilled') {
    const v = str(obj(fcv.value.featureCompatibilityVersion)?.version);
    if (v) facts.featureCompatibilityVersion = v;
    else unavailable.push('featureCompatibilityVersion: not in the getParameter reply');
  } else unavailable.push(why('featureCompatibilityVersion (getParameter)', fcv.reason));
  if (opts.status === 'fulfilled') {
    const parsed = obj(opts.value.parsed);
    const options = parsed ? performanceOptions(parsed) : undefined;
    if (options) facts.options = options;
  } else unavailable.push(why('getCmdLineOpts', opts.reason));
  if (hostInfo.status === 'fulfilled') {
    const system = obj(hostInfo.value.system);
    const os = obj(hostInfo.value.os);
    const info: NonNullable<ServerProcessFacts['hostInfo']> = {};
    const cores = num(system?.numCores);
    const memoryMB = num(system?.memSizeMB);
    const osName = [str(os?.name), str(os?.version)].filter(Boolean).join(' ');
    if (cores !== undefined) info.cores = cores;
    if (memoryMB !== undefined) info.memoryMB = memoryMB;
    // memLimitMB: ProcessInfo::getMemSizeMB, the memory the process may use (a container's limit), beside
    // memSizeMB, the host's (src/mongo/db/commands/generic_servers.cpp HostInfoCmd, already in 4.4).
    // Kept only when it is below the host's: then the server lives in less than the machine has.
    const limitMB = num(system?.memLimitMB);
    if (limitMB !== undefined && limitMB > 0 && (memoryMB === undefined || limitMB < memoryMB))
      info.memoryLimitMB = limitMB;
    if (osName) info.os = osName;
    if (str(system?.cpuArch)) info.cpuArch = system?.cpuArch as string;
    if (Object.keys(info).length > 0) facts.hostInfo = info;
    else unavailable.push('hostInfo: the reply has no system or os facts');
  } else unavailable.push(why('hostInfo', hostInfo.reason));
  if (unavailable.length > 0) facts.unavailable = unavailable;
  return facts;
}

/** The facts of one process through `run` alone: its buildInfo and serverStatus are read here too. */
export async function readProcessFactsAnew(run: Run, host: string): Promise<ServerProcessFacts> {
  let buildInfo: Document = {};
  let serverStatus: Document | undefined;
  let serverStatusError: unknown;
  const early: string[] = [];
  try {
    buildInfo = await run({ buildInfo: 1 });
  } catch (err) {
    early.push(why('buildInfo', err));
  }
  try {
    serverStatus = await run({ serverStatus: 1 });
  } catch (err) {
    serverStatusError = err;
  }
  const facts = await readProcessFacts(run, host, { buildInfo, serverStatus, serverStatusError });
  if (early.length > 0) facts.unavailable = [...early, ...(facts.unavailable ?? [])];
  return facts;
}

/** The facts of the process `client` talks to (its admin database). */
export function readConnectedProcessFacts(
  client: MongoClient,
  host: string,
  known: { buildInfo: Document; serverStatus?: Document; serverStatusError?: unknown },
): Promise<ServerProcessFacts> {
  return readProcessFacts((command) => client.db('admin').command(command), host, known);
}
