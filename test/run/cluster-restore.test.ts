/**
 * A run's cluster keeper (lib/run/cluster-restore.ts) against the recording server posing as a mongos,
 * with test/topology/fake-cluster.ts's metadata behind it: the state read before any change, and a
 * restore that never hangs: a cluster that does not answer is given up after the time allowed, with the
 * command to send by hand.
 */
import { startRecordingServer } from '../support/recording-server';
import { describeNeeding } from '../support/servers';
import { emptyClusterState, fakeClusterHandlers } from '../topology/fake-cluster';
import { keepClusterState } from '../../lib/run/cluster-restore';
import { openTarget, uriTarget } from '../../lib/server/target';
import type { WritePlan } from '../../lib/server/write-plan';

function twoShards() {
  const state = emptyClusterState();
  state.shards.push(
    { _id: 'shA', host: 'shA/127.0.0.1:1' },
    { _id: 'shB', host: 'shB/127.0.0.1:2' },
  );
  return state;
}

const balancerPlan = (ours = false): WritePlan => ({
  ours,
  consents: new Set(['--setup']),
  entries: [
    {
      kind: 'server',
      change: 'balancer',
      target: 'cluster',
      detail: 'stop the balancer for the run',
      consent: '--setup',
      restore: 'as found',
    },
  ],
});

describeNeeding('recording', "a run's cluster keeper", () => {
  it('keeps nothing on a deployment mongo-bench started: it is its own, and nothing is read', async () => {
    const server = await startRecordingServer({ helloFields: { msg: 'isdbgrid' } });
    try {
      const launched = openTarget({ uri: server.uri, origin: 'launched' });
      expect(await keepClusterState(launched, balancerPlan(), { note: () => {} })).toBeUndefined();
      expect(server.userCommands()).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it('a cluster that does not answer the restore is given up in time, with the command to send by hand', async () => {
    const state = twoShards();
    const server = await startRecordingServer({
      handlers: {
        ...fakeClusterHandlers(state),
        // Never answered.
        balancerStart: () => new Promise<undefined>(() => {}),
      },
      helloFields: { msg: 'isdbgrid' },
    });
    try {
      const notes: string[] = [];
      const keeper = await keepClusterState(
        uriTarget(server.uri),
        balancerPlan(),
        { note: (text) => notes.push(text) },
        { timeoutMs: 1000 },
      );
      expect(keeper?.before).toEqual({ balancer: { mode: 'full' } });
      state.balancerMode = 'off'; // what the run did
      const started = Date.now();
      const outcome = await keeper!.restore();
      expect(Date.now() - started).toBeLessThan(5000);
      expect(outcome.restored).toEqual([]);
      expect(notes.at(-1)).toMatch(
        /^warning: cluster not set back: the balancer started again .*: not done \(no answer within 1 s\); by hand: db\.adminCommand\(\{"balancerStart":1\}\)$/,
      );
    } finally {
      await server.stop();
    }
  }, 30_000);
});
