/**
 * One serverStatus reply reduced to the few numbers the run keeps (a fixed, small record: the raw
 * document, tens of kilobytes, is never stored). A field the server does not report stays absent,
 * never zero: a mongos has no WiredTiger section, a test double may have no opcounters at all.
 *
 * Where each field comes from (the server's source, repository mongodb/mongo):
 * - opcounters.{insert,query,update,delete,getmore,command}: OpCounters::getObj in
 *   src/mongo/db/stats/counters.cpp. insert counts documents (a 2-document insert adds 2, see
 *   src/mongo/s/commands/cluster_insert_test.cpp "CorrectMetricsBulkInsert"); the others count statements.
 * - network.{bytesIn,bytesOut}: NetworkCounter::append, same file.
 * - connections.current: the "connections" serverStatus section (transport layer), all versions.
 * - globalLock.currentQueue.{readers,writers}: the global lock section
 *   (src/mongo/db/stats/lock_server_status_section.cpp), operations waiting for a lock or a ticket.
 * - tickets in use, {read,write}.out (TicketHolder::appendStats writes out, available, totalTickets): under wiredTiger.concurrentTransactions in the 6.x
 *   line (WiredTigerKVEngine::appendGlobalStats, src/mongo/db/storage/wiredtiger/wiredtiger_kv_engine.cpp,
 *   subobjStart("concurrentTransactions")), and under queues.execution in the later admission-control
 *   code (AdmissionServerStatusSection, registered as the "queues" section, appends
 *   TicketHolderManager::appendStats, or in the newest source TicketingSystem::appendStats with read
 *   and write totals, under subobjStart("execution")). Which of the two a given 7.0.x or 8.0.x
 *   reports was not pinned to a release in the source read: both paths are read, queues.execution first.
 *   (DOCS-16407 is about the extra concurrentTransactions fields of 6.1, not about queues.execution.)
 * - wiredTiger.cache["bytes currently in the cache" | "tracked dirty bytes in the cache" |
 *   "maximum bytes configured" | "pages read into cache"]: WiredTiger's statistics as serverStatus
 *   relays them (the names mongostat reads, TOOLS-589).
 * - repl.{isWritablePrimary (5.0+) | ismaster (older), secondary, setName}: the "repl" section, hello's fields.
 */

type Doc = Record<string, unknown>;

export type OpCounterName = 'query' | 'insert' | 'update' | 'delete' | 'getmore' | 'command';
export const OP_COUNTERS: readonly OpCounterName[] = [
  'query',
  'insert',
  'update',
  'delete',
  'getmore',
  'command',
];

export interface ServerSnapshot {
  /** Cumulative counters (deltas are taken later). */
  ops?: Partial<Record<OpCounterName, number>>;
  connections?: number;
  queuedReaders?: number;
  queuedWriters?: number;
  readTicketsOut?: number;
  writeTicketsOut?: number;
  cacheBytes?: number;
  cacheDirtyBytes?: number;
  cacheMaxBytes?: number;
  /** Cumulative: pages read into the cache (a proxy for disk reads). */
  pagesRead?: number;
  /** Cumulative network bytes. */
  bytesIn?: number;
  bytesOut?: number;
  /** From the repl section: this member's state when read. */
  role?: 'primary' | 'secondary' | 'mongos' | 'standalone' | 'other';
  /** Seconds each member of the set is behind the primary (replSetGetStatus), read on the primary. */
  lagSeconds?: Record<string, number>;
}

/**
 * A number from a JS number, a bigint, a Long (toNumber) or a BSON Double / Int32 (valueOf: what the
 * driver hands back with promoteValues off); undefined for anything else.
 */
export function numberOf(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw === 'bigint') return Number(raw);
  if (raw instanceof Object && typeof raw.valueOf() === 'number') return numberOf(raw.valueOf());
  if (
    typeof raw === 'object' &&
    raw !== null &&
    'toNumber' in raw &&
    typeof (raw as { toNumber: unknown }).toNumber === 'function'
  ) {
    const n = (raw as { toNumber(): number }).toNumber();
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function at(doc: unknown, ...path: string[]): unknown {
  let cur = doc;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Doc)[key];
  }
  return cur;
}

function put<K extends keyof ServerSnapshot>(
  out: ServerSnapshot,
  key: K,
  value: ServerSnapshot[K] | undefined,
): void {
  if (value !== undefined) out[key] = value;
}

function roleOf(reply: Doc): ServerSnapshot['role'] {
  if (
    reply.process === 'mongos' ||
    (typeof reply.process === 'string' && reply.process.startsWith('mongos'))
  )
    return 'mongos';
  const repl = reply.repl as Doc | undefined;
  if (!repl)
    return typeof reply.process === 'string' && reply.process.startsWith('mongod')
      ? 'standalone'
      : undefined;
  if (repl.isWritablePrimary === true || repl.ismaster === true) return 'primary';
  if (repl.secondary === true) return 'secondary';
  return repl.setName !== undefined ? 'other' : 'standalone';
}

export function snapshotOf(reply: Doc): ServerSnapshot {
  const out: ServerSnapshot = {};
  const ops: Partial<Record<OpCounterName, number>> = {};
  for (const name of OP_COUNTERS) {
    const v = numberOf(at(reply, 'opcounters', name));
    if (v !== undefined) ops[name] = v;
  }
  if (Object.keys(ops).length > 0) out.ops = ops;
  put(out, 'connections', numberOf(at(reply, 'connections', 'current')));
  put(out, 'queuedReaders', numberOf(at(reply, 'globalLock', 'currentQueue', 'readers')));
  put(out, 'queuedWriters', numberOf(at(reply, 'globalLock', 'currentQueue', 'writers')));
  // queues.execution (admission control, later releases), else wiredTiger.concurrentTransactions (6.x and before).
  const tickets = (kind: 'read' | 'write') =>
    numberOf(at(reply, 'queues', 'execution', kind, 'out')) ??
    numberOf(at(reply, 'wiredTiger', 'concurrentTransactions', kind, 'out'));
  put(out, 'readTicketsOut', tickets('read'));
  put(out, 'writeTicketsOut', tickets('write'));
  put(
    out,
    'cacheBytes',
    numberOf(at(reply, 'wiredTiger', 'cache', 'bytes currently in the cache')),
  );
  put(
    out,
    'cacheDirtyBytes',
    numberOf(at(reply, 'wiredTiger', 'cache', 'tracked dirty bytes in the cache')),
  );
  put(out, 'cacheMaxBytes', numberOf(at(reply, 'wiredTiger', 'cache', 'maximum bytes configured')));
  put(out, 'pagesRead', numberOf(at(reply, 'wiredTiger', 'cache', 'pages read into cache')));
  put(out, 'bytesIn', numberOf(at(reply, 'network', 'bytesIn')));
  put(out, 'bytesOut', numberOf(at(reply, 'network', 'bytesOut')));
  put(out, 'role', roleOf(reply));
  return out;
}

/**
 * Each member's lag behind the primary from replSetGetStatus: members[].optimeDate (the last
 * operation the member applied; src/mongo/db/repl/replication_coordinator_impl.cpp fills it for
 * every member it has heard from). Members with no optimeDate (down, arbiters) are left out.
 */
export function lagFromReplSetStatus(reply: Doc): Record<string, number> | undefined {
  const members = reply.members as Doc[] | undefined;
  if (!Array.isArray(members)) return undefined;
  const primary = members.find((m) => m.stateStr === 'PRIMARY' || m.state === 1);
  const primaryTime =
    primary?.optimeDate instanceof Date ? primary.optimeDate.getTime() : undefined;
  if (primaryTime === undefined) return undefined;
  const lag: Record<string, number> = {};
  for (const m of members) {
    if (m === primary || !(m.optimeDate instanceof Date) || typeof m.name !== 'string') continue;
    if (m.stateStr === 'ARBITER' || m.state === 7) continue;
    lag[m.name] = Math.max(0, (primaryTime - m.optimeDate.getTime()) / 1000);
  }
  return lag;
}
