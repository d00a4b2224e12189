/**
 * What `run --uri ... --setup` changed on an existing cluster is set back after an interrupt too: the
 * CLI as a child process (signals reach it alone) against the recording server posing as a mongos, with
 * test/topology/fake-cluster.ts's metadata behind it. SIGINT during the sweep: the balancer the run
 * stopped is started again before it exits 130 (the restore's own bounds: test/run/cluster-restore.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRecordingServer } from '../support/recording-server';
import { describeNeeding } from '../support/servers';
import { startCli } from '../support/cli-child';
import { emptyClusterState, fakeClusterHandlers } from '../topology/fake-cluster';

function twoShards() {
  const state = emptyClusterState();
  state.shards.push(
    { _id: 'shA', host: 'shA/127.0.0.1:1' },
    { _id: 'shB', host: 'shB/127.0.0.1:2' },
  );
  return state;
}

describeNeeding('recording', 'the cluster set back after an interrupt', () => {
  it('SIGINT during the sweep: the balancer the run stopped is started again before it exits 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-run-setup-sigint-'));
    const state = twoShards();
    const server = await startRecordingServer({
      handlers: fakeClusterHandlers(state),
      helloFields: { msg: 'isdbgrid' },
    });
    const out = join(dir, 'out');
    try {
      let signalledAt = 0;
      const cli = startCli(
        [
          'run',
          '--uri',
          server.uri,
          '--setup',
          '--presplit',
          '0:100',
          '--stop-balancer',
          '--drop',
          '--clients',
          '1',
          '--seconds',
          '30',
          '--warmup',
          '0',
          '--docs',
          '100',
          '--test-double',
          '--out',
          out,
        ],
        { guardMs: 60_000 },
      );
      await cli.waitFor(/\[sweep\]/, 40_000);
      // The balancer is off while the benchmark runs.
      expect(state.balancerMode).toBe('off');
      signalledAt = Date.now();
      cli.child.kill('SIGINT');
      const r = await cli.finished;
      expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 130 });
      const starts = server.commands.filter((c) => c.name === 'balancerStart');
      expect(starts).toHaveLength(1);
      expect(starts[0].at).toBeGreaterThanOrEqual(signalledAt);
      expect(state.balancerMode).toBe('full');
      expect(r.stderr).toContain('[restore] setting back what the run changed on the cluster');
      const log = readFileSync(join(out, 'command-log.txt'), 'utf8');
      expect(log).toMatch(/\[cluster state\] apply mongos-0 \S+ admin \{"balancerStart":1\} -> ok/);
      expect(log).toContain('cluster: set back the balancer started again');
      expect(log.indexOf('balancerStart')).toBeGreaterThan(log.indexOf('interrupted (SIGINT)'));
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
