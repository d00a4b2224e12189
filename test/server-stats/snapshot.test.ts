/**
 * snapshotOf and lagFromReplSetStatus on hand-made serverStatus / replSetGetStatus replies (shapes
 * as the server writes them; see snapshot.ts's header for the sources): what a server does not
 * report stays absent, never 0; tickets come from queues.execution (7.0+) before
 * wiredTiger.concurrentTransactions (6.0); BSON numbers are read as numbers.
 */
import { BSON } from 'mongodb';
import { lagFromReplSetStatus, numberOf, snapshotOf } from '../../lib/server-stats/snapshot';

const tickets = (out: number) => ({ out, available: 128 - out, totalTickets: 128 });
const opcounters = { insert: 10, query: 20, update: 3, delete: 1, getmore: 2, command: 40 };

describe('snapshotOf', () => {
  it('a mongos: opcounters, connections and queues, and no storage fields at all (absent, not 0)', () => {
    const snap = snapshotOf({
      process: 'mongos',
      opcounters,
      connections: { current: 7 },
      globalLock: { currentQueue: { readers: 0, writers: 1 } },
      network: { bytesIn: 100, bytesOut: 200 },
      ok: 1,
    });
    expect(snap).toEqual({
      ops: opcounters,
      connections: 7,
      queuedReaders: 0,
      queuedWriters: 1,
      bytesIn: 100,
      bytesOut: 200,
      role: 'mongos',
    });
    for (const key of [
      'cacheBytes',
      'cacheDirtyBytes',
      'cacheMaxBytes',
      'pagesRead',
      'readTicketsOut',
      'writeTicketsOut',
      'lagSeconds',
    ])
      expect(key in snap).toBe(false);
  });

  it('a server with no opcounters (a test double) has no ops, not zero ops; a partial section keeps only what it has', () => {
    expect('ops' in snapshotOf({ process: 'mongod', connections: { current: 1 } })).toBe(false);
    expect(snapshotOf({ opcounters: { query: 5, insert: 'n/a' } }).ops).toEqual({ query: 5 });
    expect(snapshotOf({ globalLock: { currentQueue: { readers: 2 } } })).toEqual({
      queuedReaders: 2,
    });
    expect(snapshotOf({})).toEqual({});
  });

  it('7.0+: tickets in use from queues.execution, even where wiredTiger.concurrentTransactions is still there', () => {
    const seven = snapshotOf({
      process: 'mongod',
      queues: { execution: { read: tickets(4), write: tickets(2) } },
      wiredTiger: { concurrentTransactions: { read: tickets(99), write: tickets(99) } },
    });
    expect([seven.readTicketsOut, seven.writeTicketsOut]).toEqual([4, 2]);
  });

  it('6.0: tickets in use from wiredTiger.concurrentTransactions', () => {
    const six = snapshotOf({
      process: 'mongod',
      wiredTiger: { concurrentTransactions: { read: tickets(1), write: tickets(3) } },
    });
    expect([six.readTicketsOut, six.writeTicketsOut]).toEqual([1, 3]);
  });

  it("reads WiredTiger's cache under the names serverStatus relays, Long, Double and Int32 values included", () => {
    const snap = snapshotOf({
      process: 'mongod',
      wiredTiger: {
        cache: {
          'bytes currently in the cache': BSON.Long.fromNumber(256 * 2 ** 20),
          'tracked dirty bytes in the cache': new BSON.Double(2 ** 20),
          'maximum bytes configured': 2 ** 30,
          'pages read into cache': new BSON.Int32(12),
        },
      },
    });
    expect(snap).toEqual({
      cacheBytes: 256 * 2 ** 20,
      cacheDirtyBytes: 2 ** 20,
      cacheMaxBytes: 2 ** 30,
      pagesRead: 12,
      role: 'standalone',
    });
    expect([numberOf(NaN), numberOf('5'), numberOf(null), numberOf(BigInt(7))]).toEqual([
      undefined,
      undefined,
      undefined,
      7,
    ]);
  });

  it('the role from repl: isWritablePrimary (5.0+) or ismaster (older), secondary, another state; no repl: standalone', () => {
    expect(
      snapshotOf({ process: 'mongod', repl: { setName: 'rs0', isWritablePrimary: true } }).role,
    ).toBe('primary');
    expect(snapshotOf({ process: 'mongod', repl: { setName: 'rs0', ismaster: true } }).role).toBe(
      'primary',
    );
    expect(
      snapshotOf({
        process: 'mongod',
        repl: { setName: 'rs0', isWritablePrimary: false, secondary: true },
      }).role,
    ).toBe('secondary');
    expect(
      snapshotOf({
        process: 'mongod',
        repl: { setName: 'rs0', isWritablePrimary: false, secondary: false },
      }).role,
    ).toBe('other');
    expect(snapshotOf({ process: 'mongod' }).role).toBe('standalone');
    expect(snapshotOf({ process: 'mongos.exe' }).role).toBe('mongos');
  });
});

describe('lagFromReplSetStatus', () => {
  const at = (ms: number) => new Date(Date.UTC(2024, 0, 1) + ms);

  it("each member's seconds behind the primary; arbiters and members with no optime left out", () => {
    const lag = lagFromReplSetStatus({
      members: [
        { name: 'a:1', state: 1, stateStr: 'PRIMARY', optimeDate: at(10_000) },
        { name: 'b:1', state: 2, stateStr: 'SECONDARY', optimeDate: at(7_500) },
        { name: 'c:1', state: 2, stateStr: 'SECONDARY', optimeDate: at(10_400) },
        { name: 'd:1', state: 7, stateStr: 'ARBITER', optimeDate: at(0) },
        { name: 'e:1', state: 8, stateStr: '(not reachable/healthy)' },
      ],
    });
    // A secondary whose optime is past the primary's read (clock skew between readings) is 0 behind, never negative.
    expect(lag).toEqual({ 'b:1': 2.5, 'c:1': 0 });
  });

  it('no primary, or no members: no lag', () => {
    expect(
      lagFromReplSetStatus({
        members: [{ name: 'b:1', state: 2, stateStr: 'SECONDARY', optimeDate: at(0) }],
      }),
    ).toBeUndefined();
    expect(lagFromReplSetStatus({ ok: 0 })).toBeUndefined();
  });
});
