/**
 * The cluster state a run sets back (lib/server/cluster-state.ts), as pure functions over a `send`: what
 * the plan wants kept, what is read before, what is sent at the end for each difference (and only for a
 * difference), what no command sets back, and a restore that cannot finish in time. No server here.
 */
import {
  ClusterBefore,
  readClusterBefore,
  restoreCluster,
  restoreCommands,
  restoreWanted,
  Send,
} from '../../lib/server/cluster-state';
import type { ServerEntry, WritePlan } from '../../lib/server/write-plan';

type Doc = Record<string, unknown>;

const MIB = 1024 * 1024;

const server = (change: ServerEntry['change'], extra: Partial<ServerEntry> = {}): ServerEntry => ({
  kind: 'server',
  change,
  target: 'cluster',
  detail: change,
  consent: '--setup',
  ...extra,
});

/** A cluster as a `send`: balancerStatus, config.settings and config.collections finds; every command recorded. */
function cluster(state: {
  mode?: string;
  chunksize?: number;
  coll?: { _id: string; maxChunkSizeBytes?: number };
}): { send: Send; sent: Doc[] } {
  const sent: Doc[] = [];
  const cursor = (doc: Doc | undefined) => ({ cursor: { firstBatch: doc ? [doc] : [] }, ok: 1 });
  const send: Send = (db, command) => {
    sent.push({ db, ...command });
    if ('balancerStatus' in command) return Promise.resolve({ mode: state.mode, ok: 1 });
    if (command.find === 'settings')
      return Promise.resolve(
        cursor(
          state.chunksize === undefined ? undefined : { _id: 'chunksize', value: state.chunksize },
        ),
      );
    if (command.find === 'collections') return Promise.resolve(cursor(state.coll));
    if ('balancerStart' in command) state.mode = 'full';
    if ('balancerStop' in command) state.mode = 'off';
    return Promise.resolve({ ok: 1 });
  };
  return { send, sent };
}

describe('the cluster state a run sets back', () => {
  it("wants what the plan's restorable server entries change, on a deployment mongo-bench did not start", () => {
    const plan = (entries: WritePlan['entries'], ours = false): WritePlan => ({
      ours,
      consents: new Set(),
      entries,
    });
    const balancer = server('balancer', { restore: 'as found' });
    const chunk = server('chunk-size', { restore: 'as found', ns: 'app.docs' });
    expect(restoreWanted(plan([server('split'), balancer, chunk]))).toEqual({
      balancer: true,
      chunkSize: { ns: 'app.docs' },
    });
    expect(restoreWanted(plan([chunk]))).toEqual({
      balancer: false,
      chunkSize: { ns: 'app.docs' },
    });
    // Nothing restorable, or a deployment it started (its own, stopped at the end): nothing kept.
    expect(restoreWanted(plan([server('split'), server('step-down')]))).toBeUndefined();
    expect(restoreWanted(plan([balancer, chunk], true))).toBeUndefined();
  });

  it('reads the balancer mode and the chunk sizes before any change', async () => {
    const { send, sent } = cluster({
      mode: 'full',
      chunksize: 128,
      coll: { _id: 'app.docs', maxChunkSizeBytes: 256 * MIB },
    });
    expect(
      await readClusterBefore(send, { balancer: true, chunkSize: { ns: 'app.docs' } }),
    ).toEqual({
      balancer: { mode: 'full' },
      chunkSetting: { value: 128 },
      collectionChunk: { ns: 'app.docs', bytes: 256 * MIB },
    });
    expect(sent.map((c) => Object.keys(c)[1])).toEqual(['balancerStatus', 'find', 'find']);
    // No chunksize setting, a collection not sharded yet.
    expect(
      await readClusterBefore(cluster({}).send, { balancer: false, chunkSize: { ns: 'a.b' } }),
    ).toEqual({ chunkSetting: null, collectionChunk: null });
  });

  it('a server without a balancer has nothing to set back; a read that fails otherwise is thrown', async () => {
    const failing =
      (err: Doc): Send =>
      () =>
        Promise.reject(Object.assign(new Error(String(err.errmsg)), err));
    expect(
      await readClusterBefore(
        failing({
          code: 59,
          codeName: 'CommandNotFound',
          errmsg: "no such command: 'balancerStatus'",
        }),
        { balancer: true },
      ),
    ).toEqual({ balancer: { unknown: 'not a mongos: it has no balancer' } });
    await expect(
      readClusterBefore(failing({ code: 13, codeName: 'Unauthorized', errmsg: 'not authorized' }), {
        balancer: true,
      }),
    ).rejects.toThrow('not authorized');
  });

  it('the balancer: started again only when it was running, stopped again only when it was off', () => {
    const mode = (m: string): ClusterBefore => ({ balancer: { mode: m } });
    const sent = (before: string, now: string) =>
      restoreCommands(mode(before), mode(now)).commands.map((c) => c.command);
    expect(sent('full', 'off')).toEqual([{ balancerStart: 1 }]);
    expect(sent('full', 'full')).toEqual([]);
    expect(sent('off', 'off')).toEqual([]);
    expect(sent('off', 'full')).toEqual([{ balancerStop: 1 }]);
    // No command sets autoSplitOnly: left, and said.
    const split = restoreCommands(mode('autoSplitOnly'), mode('off'));
    expect(split.commands).toEqual([]);
    expect(split.left).toEqual([expect.stringContaining('"autoSplitOnly" before the run')]);
    // Not a mongos: nothing.
    expect(
      restoreCommands({ balancer: { unknown: 'not a mongos' } }, mode('off')).commands,
    ).toEqual([]);
  });

  it("the chunk size: config.settings' old value set back, or the document removed when there was none", () => {
    const sent = (before: ClusterBefore['chunkSetting'], now: ClusterBefore['chunkSetting']) =>
      restoreCommands({ chunkSetting: before }, { chunkSetting: now }).commands.map((c) => [
        c.db,
        c.command,
      ]);
    expect(sent(null, { value: 64 })).toEqual([
      ['config', { delete: 'settings', deletes: [{ q: { _id: 'chunksize' }, limit: 1 }] }],
    ]);
    expect(sent({ value: 128 }, { value: 64 })).toEqual([
      [
        'config',
        {
          update: 'settings',
          updates: [{ q: { _id: 'chunksize' }, u: { $set: { value: 128 } }, upsert: true }],
        },
      ],
    ]);
    expect(sent({ value: 128 }, null)).toHaveLength(1);
    expect(sent({ value: 64 }, { value: 64 })).toEqual([]);
    expect(sent(null, null)).toEqual([]);
  });

  it("from 6.0 the collection's own chunk size: set back for a collection sharded before the run, never for one the run sharded", () => {
    const sent = (
      before: ClusterBefore['collectionChunk'],
      now: ClusterBefore['collectionChunk'],
    ) =>
      restoreCommands({ collectionChunk: before }, { collectionChunk: now }).commands.map(
        (c) => c.command,
      );
    const coll = (bytes: number | null) => ({ ns: 'app.docs', bytes });
    expect(sent(coll(null), coll(64 * MIB))).toEqual([
      { configureCollectionBalancing: 'app.docs', chunkSize: 0 },
    ]);
    expect(sent(coll(256 * MIB), coll(64 * MIB))).toEqual([
      { configureCollectionBalancing: 'app.docs', chunkSize: 256 },
    ]);
    expect(sent(coll(64 * MIB), coll(64 * MIB))).toEqual([]);
    expect(sent(null, coll(64 * MIB))).toEqual([]);
  });

  it('reads the state at the end and sends only what differs', async () => {
    const c = cluster({ mode: 'off', chunksize: 64 });
    const outcome = await restoreCluster(
      c.send,
      { balancer: { mode: 'full' }, chunkSetting: null, collectionChunk: null },
      { timeoutMs: 5000 },
    );
    expect(outcome.failed).toEqual([]);
    expect(c.sent).toEqual([
      { db: 'admin', balancerStatus: 1 },
      { db: 'config', find: 'settings', filter: { _id: 'chunksize' }, limit: 1 },
      { db: 'admin', balancerStart: 1 },
      { db: 'config', delete: 'settings', deletes: [{ q: { _id: 'chunksize' }, limit: 1 }] },
    ]);
    expect(outcome.restored.map((r) => r.what)).toEqual([
      'the balancer started again (it was running before the run)',
      expect.stringContaining('the chunk size back to the default'),
    ]);
  });

  it('never hangs: a cluster that does not answer in time is reported, with the command to send by hand', async () => {
    const never: Send = (_db, command) =>
      'balancerStatus' in command ? Promise.resolve({ mode: 'off', ok: 1 }) : new Promise(() => {});
    const started = Date.now();
    const outcome = await restoreCluster(never, { balancer: { mode: 'full' } }, { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(outcome.restored).toEqual([]);
    expect(outcome.failed).toEqual([
      expect.stringMatching(
        /^the balancer started again .*: not done \(no answer within 0\.3 s\); by hand: db\.adminCommand\(\{"balancerStart":1\}\)$/,
      ),
    ]);
  });

  it('a state that cannot be read at the end is set back without comparing (each command harmless where nothing changed)', async () => {
    const sent: Doc[] = [];
    const unreadable: Send = (db, command) => {
      sent.push(command);
      return 'balancerStatus' in command || 'find' in command
        ? Promise.reject(new Error('connection reset'))
        : Promise.resolve({ ok: 1 });
    };
    const outcome = await restoreCluster(
      unreadable,
      { balancer: { mode: 'full' }, chunkSetting: { value: 128 } },
      { timeoutMs: 5000 },
    );
    expect(outcome.failed).toEqual([]);
    expect(outcome.notes).toEqual([expect.stringContaining('could not read')]);
    expect(outcome.restored.map((r) => r.command)).toEqual([
      { balancerStart: 1 },
      {
        update: 'settings',
        updates: [{ q: { _id: 'chunksize' }, u: { $set: { value: 128 } }, upsert: true }],
      },
    ]);
  });
});
