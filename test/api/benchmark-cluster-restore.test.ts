/**
 * benchmark() from code sets back what its scenarios' events changed on a cluster mongo-bench did not
 * start (lib/run/cluster-restore.ts), as `run` does: the recording server posing as a mongos, with
 * test/topology/fake-cluster.ts's metadata behind it (no documents are kept: the figures mean nothing).
 */
import { benchmark } from '../../lib/api/benchmark';
import { startRecordingServer } from '../support/recording-server';
import { describeNeeding } from '../support/servers';
import { emptyClusterState, fakeClusterHandlers } from '../topology/fake-cluster';

describeNeeding('recording', 'benchmark() and the cluster', () => {
  it("benchmark() sets back what its scenario's events changed: a stopBalancer event's balancer is started again", async () => {
    const state = emptyClusterState();
    state.shards.push({ _id: 'shA', host: 'shA/127.0.0.1:1' });
    const server = await startRecordingServer({
      handlers: fakeClusterHandlers(state),
      helloFields: { msg: 'isdbgrid' },
    });
    try {
      const told: string[] = [];
      const result = await benchmark(
        {
          uri: server.uri,
          docs: 10,
          testDouble: true,
          serverStats: false,
          scenarios: [
            {
              name: 'w',
              ops: [{ op: 'findOne', query: {} }],
              clients: 1,
              duration: '2s',
              events: [{ at: '1s', action: 'stopBalancer' }],
            },
          ],
        } as Parameters<typeof benchmark>[0],
        { onEvent: (e) => (e.type === 'cluster' ? told.push(e.text) : undefined) },
      );
      expect(result.scenarios?.[0].events?.[0]).toMatchObject({ action: 'stopBalancer', ok: true });
      const names = server.userCommands().map((c) => c.name);
      expect(names.indexOf('balancerStatus')).toBeLessThan(names.indexOf('balancerStop'));
      expect(names.lastIndexOf('balancerStart')).toBeGreaterThan(names.indexOf('balancerStop'));
      expect(state.balancerMode).toBe('full');
      expect(told).toContain(
        'cluster: set back the balancer started again (it was running before the run)',
      );
    } finally {
      await server.stop();
    }
  }, 30_000);
});
