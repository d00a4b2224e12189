/**
 * What the servers count besides the clients' ops, so the consistency check does not report a gap
 * that is none: replication's own commands on a replica set, writes counted as commands through an
 * old mongos, the drivers' monitoring hellos, and reads served by secondaries.
 */
import { StepResult, ServerProcessInfo, ServerWindow } from '../../lib/result';
import { checkStep } from '../../lib/server-stats/consistency';
import { workloadCounting } from '../../lib/workload/engine/op-figures';

const SET: ServerProcessInfo[] = [
  { id: 'a:27017', kind: 'mongod', set: 'rs0' },
  { id: 'b:27017', kind: 'mongod', set: 'rs0' },
  { id: 'c:27017', kind: 'mongod', set: 'rs0' },
];
const MONGOS: ServerProcessInfo[] = [{ id: 'm:27017', kind: 'mongos' }];
const ROLES: ServerWindow['roles'] = {
  'a:27017': 'primary',
  'b:27017': 'secondary',
  'c:27017': 'secondary',
  'm:27017': 'mongos',
};

function step(reads: number, writes: number): StepResult {
  return { clients: 4, ops: { reads, writes, errors: 0 } } as StepResult;
}

type Counts = Partial<Record<'query' | 'insert' | 'update' | 'delete' | 'command', number>>;

/** A 10-second window of the 4-client step; the sampler sent 11 commands to each process. */
function window(counted: Record<string, Counts>): ServerWindow {
  return {
    clients: 4,
    trial: 1,
    open: 1,
    close: 11,
    counted: Object.fromEntries(
      Object.entries(counted).map(([id, c]) => [
        id,
        { query: 0, insert: 0, update: 0, delete: 0, command: 0, ...c },
      ]),
    ),
    roles: ROLES,
    samplerCommands: Object.fromEntries(Object.keys(counted).map((id) => [id, 11])),
  };
}

describe('workloadCounting', () => {
  it('finds a readPreference that may send reads to secondaries, in the URI or an op', () => {
    expect(
      workloadCounting([{ op: 'findOne' }], 'mongodb://a,b/?replicaSet=rs0').secondaryReads,
    ).toBe(false);
    expect(
      workloadCounting(
        [{ op: 'findOne' }],
        'mongodb://a,b/?replicaSet=rs0&readPreference=secondaryPreferred',
      ).secondaryReads,
    ).toBe(true);
    expect(
      workloadCounting([{ op: 'findOne' }], 'mongodb://a/?readPreference=primary').secondaryReads,
    ).toBe(false);
    expect(
      workloadCounting([{ op: 'findOne', readPreference: { mode: 'nearest' } }]).secondaryReads,
    ).toBe(true);
    expect(workloadCounting([{ op: 'findOne', readPreference: 'primary' }]).secondaryReads).toBe(
      false,
    );
  });
});

describe('a workload that runs commands', () => {
  const commands = { countsCommands: true, batchInserts: false };

  it("on a replica set: the primary's command counter holds the members' heartbeats, so the step is unchecked, saying why", () => {
    // 1000 ping commands from the clients; the primary counted 1000 + ~2 heartbeats/s from each of 2
    // secondaries + their replSetUpdatePosition: far more than the 2% allowance of a small step.
    const check = checkStep(
      step(1000, 0),
      [window({ 'a:27017': { command: 1000 + 400 }, 'b:27017': {}, 'c:27017': {} })],
      SET,
      commands,
    );
    expect(check.status).toBe('unchecked');
    expect(check.note).toMatch(
      /replSetHeartbeat and replSetUpdatePosition .* command is not compared/,
    );
  });

  it('through a mongos before 6.2 (writes count as commands too): unchecked; from 6.2 compared, monitors allowed for', () => {
    const counted = { 'm:27017': { command: 1000 + 10, insert: 500 } };
    const old = checkStep(step(1000, 500), [window(counted)], MONGOS, {
      ...commands,
      serverVersion: '6.0.19',
    });
    expect(old.status).toBe('unchecked');
    expect(old.note).toMatch(/mongos before 6\.2 \(this one: 6\.0\.19\)/);
    const unknown = checkStep(step(1000, 500), [window(counted)], MONGOS, commands);
    expect(unknown.status).toBe('unchecked');
    const recent = checkStep(step(1000, 500), [window(counted)], MONGOS, {
      ...commands,
      serverVersion: '7.0.14',
    });
    // 2% of 1500 (30) + the sampler's 11 + 10 monitor hellos (one per second of the 10-second window).
    expect(recent).toMatchObject({
      status: 'ok',
      serverOps: 1510,
      difference: 10,
      allowance: 30 + 11 + 10,
    });
    // Through the wire client only the run's own driver client monitors: 5 hellos allowed in 10 s.
    const wire = checkStep(step(1000, 500), [window(counted)], MONGOS, {
      ...commands,
      serverVersion: '7.0.14',
      wireClient: true,
    });
    expect(wire).toMatchObject({ status: 'ok', allowance: 30 + 11 + 5 });
  });
});

describe('findAndModify (a command the workload sends)', () => {
  // write_ops_exec.cpp (8.0 line): findAndModify's performUpdate / performDelete increment no opcounter,
  // so the server counts it once, under command: summed with the CRUD counters it is not counted twice.
  it('on a standalone: 1000 findAndModify commands counted as 1000 commands compare equal to the clients', () => {
    const standalone: ServerProcessInfo[] = [{ id: 'a:27017', kind: 'mongod' }];
    const w = {
      ...window({ 'a:27017': { command: 1000 } }),
      roles: { 'a:27017': 'standalone' as const },
    };
    const counting = workloadCounting([
      {
        op: 'command',
        ns: 'app.$cmd',
        command: { findAndModify: 'docs', query: { _id: 1 }, update: { $inc: { n: 1 } } },
      },
    ]);
    expect(counting.countsCommands).toBe(true);
    expect(checkStep(step(0, 1000), [w], standalone, counting)).toMatchObject({
      status: 'ok',
      serverOps: 1000,
      difference: 0,
    });
  });
});

describe('reads served by secondaries', () => {
  // 6000 reads, 5000 of them served by the secondaries (readPreference secondaryPreferred), 1000 writes.
  const counted = {
    'a:27017': { query: 1000, update: 1000 },
    'b:27017': { query: 2600 },
    'c:27017': { query: 2400 },
  };

  it('are summed from the secondaries when reads may go there, and the check is ok', () => {
    const counting = workloadCounting(
      [{ op: 'findOne' }, { op: 'update' }],
      'mongodb://a,b,c/?replicaSet=rs0&readPreference=secondaryPreferred',
    );
    const check = checkStep(step(6000, 1000), [window(counted)], SET, counting);
    expect(check).toMatchObject({ status: 'ok', serverOps: 7000, difference: 0 });
    expect(check.counted).toBe(
      'primary a:27017 and secondaries b:27017, c:27017 (reads may go there): query+insert+update+delete',
    );
  });

  it('are left out when every read goes to the primary (the secondaries then count none)', () => {
    const check = checkStep(
      step(2000, 1000),
      [window({ ...counted, 'a:27017': { query: 2000, update: 1000 } })],
      SET,
      workloadCounting([{ op: 'findOne' }]),
    );
    expect(check).toMatchObject({
      status: 'ok',
      serverOps: 3000,
      counted: 'primary a:27017: query+insert+update+delete',
    });
  });
});
