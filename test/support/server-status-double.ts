/**
 * A serverStatus that behaves like the real one, for the recording server: counters that advance
 * with the ops it answers. The document's shape follows a real mongod's (sections and field names
 * from mongodb/mongo: OpCounters::getObj and NetworkCounter::append in src/mongo/db/stats/counters.cpp,
 * globalLock.currentQueue in src/mongo/db/stats/lock_server_status_section.cpp, connections, repl,
 * and wiredTiger.cache / wiredTiger.concurrentTransactions before 7.0, queues.execution from 7.0).
 * `opcounters.insert` counts documents; query, update and delete count statements; every command,
 * serverStatus included, counts in `command` (as on the server, where serverStatus is a command).
 * Nothing is stored: finds return an empty batch.
 */
import { BSON } from 'mongodb';
import type { CommandHandler } from './recording-server';

type Doc = Record<string, unknown>;

export interface StatusDoubleOptions {
  process?: 'mongod' | 'mongos';
  /** '6.0' reports tickets in wiredTiger.concurrentTransactions; '7.0' in queues.execution. */
  version?: '6.0' | '7.0';
  /** A replica-set member: its set and whether it is the primary. */
  repl?: { setName: string; primary: boolean; hosts: string[] };
  cacheMaxBytes?: number;
}

export class ServerStatusDouble {
  readonly ops = { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 };
  bytesIn = 0;
  bytesOut = 0;
  pagesRead = 0;
  cacheBytes = 64 * 1024 * 1024;
  dirtyBytes = 0;
  queuedReaders = 0;
  queuedWriters = 0;
  readTicketsOut = 0;
  writeTicketsOut = 0;
  serverStatusCalls = 0;

  constructor(readonly options: StatusDoubleOptions = {}) {}

  get isMongos(): boolean {
    return this.options.process === 'mongos';
  }

  /** An op the server answered: counters, network bytes and (for writes) dirty cache advance. */
  record(kind: keyof ServerStatusDouble['ops'], n = 1, bytes = 200): void {
    this.ops[kind] += n;
    this.bytesIn += bytes;
    this.bytesOut += 100;
    if (kind === 'insert' || kind === 'update' || kind === 'delete') this.dirtyBytes += bytes * n;
    if (kind === 'query') this.pagesRead += 1;
  }

  serverStatus(): Doc {
    this.serverStatusCalls++;
    this.record('command', 1, 60);
    const max = this.options.cacheMaxBytes ?? 1024 * 1024 * 1024;
    const tickets = (out: number) => ({ out, available: 128 - out, totalTickets: 128 });
    const doc: Doc = {
      host: 'double',
      version: this.options.version === '6.0' ? '6.0.14' : '7.0.12',
      process: this.options.process ?? 'mongod',
      pid: 4242,
      uptime: 100,
      localTime: new Date(),
      asserts: { regular: 0, warning: 0, msg: 0, user: 0, rollovers: 0 },
      connections: { current: 5, available: 838855, totalCreated: 9, active: 2 },
      globalLock: {
        totalTime: 1e9,
        currentQueue: {
          total: this.queuedReaders + this.queuedWriters,
          readers: this.queuedReaders,
          writers: this.queuedWriters,
        },
        activeClients: { total: 0, readers: 0, writers: 0 },
      },
      network: {
        bytesIn: this.bytesIn,
        bytesOut: this.bytesOut,
        numRequests: this.ops.command + this.ops.query,
      },
      opcounters: { ...this.ops },
      opcountersRepl: { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 },
      mem: { bits: 64, resident: 120, virtual: 2000, supported: true },
      ok: 1,
    };
    if (this.isMongos) return doc;
    if (this.options.repl) {
      const { setName, primary, hosts } = this.options.repl;
      doc.repl = {
        hosts,
        setName,
        setVersion: 1,
        isWritablePrimary: primary,
        secondary: !primary,
        primary: hosts[0],
        me: hosts[0],
      };
    }
    doc.wiredTiger = {
      uri: 'statistics:',
      cache: {
        'bytes currently in the cache': this.cacheBytes + this.dirtyBytes,
        'tracked dirty bytes in the cache': this.dirtyBytes,
        'maximum bytes configured': max,
        'pages read into cache': this.pagesRead,
        'pages written from cache': 0,
      },
      ...(this.options.version === '6.0'
        ? {
            concurrentTransactions: {
              write: tickets(this.writeTicketsOut),
              read: tickets(this.readTicketsOut),
            },
          }
        : {}),
    };
    if (this.options.version !== '6.0')
      doc.queues = {
        execution: { write: tickets(this.writeTicketsOut), read: tickets(this.readTicketsOut) },
      };
    return doc;
  }

  /** Recording-server handlers that answer CRUD and serverStatus and count them. */
  handlers(): Record<string, CommandHandler> {
    return {
      serverStatus: () => this.serverStatus(),
      insert: (body) => {
        const n = Array.isArray(body.documents) ? body.documents.length : 1;
        this.record('insert', n);
        return { n, ok: 1 };
      },
      find: (body, db) => {
        this.record('query');
        return {
          cursor: { id: BSON.Long.ZERO, ns: `${db}.${String(body.find)}`, firstBatch: [] },
          ok: 1,
        };
      },
      update: (body) => {
        const n = Array.isArray(body.updates) ? body.updates.length : 1;
        this.record('update', n);
        return { n, nModified: n, ok: 1 };
      },
      delete: (body) => {
        const n = Array.isArray(body.deletes) ? body.deletes.length : 1;
        this.record('delete', n);
        return { n, ok: 1 };
      },
    };
  }
}
