/**
 * presplit-import against a real sharded cluster (2 one-member shards, a config server, a mongos),
 * started from the topology plan with the machine's mongod/mongos binaries and set up with
 * applyPlan. Skipped, with the reason in its title, where no binary is available.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePortRange } from '../../support/processes';
import { describeNeeding, mongodBinary, mongosBinary } from '../../support/servers';
import { applyPlan, driverConnector, planFromOptions } from '../../../lib/topology';
import { runPresplitImport } from '../../../lib/experiments/presplit-import';

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until)
      throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describeNeeding('sharded', 'presplit-import on a real sharded cluster', () => {
  const children: ChildProcess[] = [];
  let dataDir: string;
  afterAll(async () => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map(
        (c) =>
          new Promise((resolve) =>
            c.exitCode !== null ? resolve(undefined) : c.once('exit', resolve),
          ),
      ),
    );
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('spreads a pre-split import over both shards and leaves a ranged one on one shard', async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mongo-bench-presplit-real-'));
    const basePort = await freePortRange(4);
    const plan = planFromOptions({
      topology: 'sharded',
      shards: 2,
      replicas: 1,
      basePort,
      dataDir,
    });
    for (const p of plan.processes) {
      mkdirSync(p.dir, { recursive: true });
      const binary = p.kind === 'mongod' ? mongodBinary() : mongosBinary();
      children.push(spawn(binary, p.args, { stdio: 'ignore' }));
    }
    for (const p of plan.processes.filter((x) => x.kind === 'mongod'))
      await waitForPort(p.port, 60_000);
    const connector = driverConnector();
    try {
      // Replica sets and shards only: the experiment shards its own collection three ways.
      const clusterSteps = plan.steps.filter(
        (s) => s.phase === 'replsets' || 'addShard' in s.command,
      );
      await applyPlan(
        { steps: clusterSteps.filter((s) => s.phase === 'replsets'), targets: plan.targets },
        connector.connect,
      );
      const mongos = plan.processes.find((p) => p.kind === 'mongos')!;
      await waitForPort(mongos.port, 60_000);
      await applyPlan(
        { steps: clusterSteps.filter((s) => s.phase === 'cluster'), targets: plan.targets },
        connector.connect,
      );
    } finally {
      await connector.close();
    }

    const result = await runPresplitImport({
      uri: plan.topology.uri,
      docs: 20_000,
      docSize: 256,
      batchSize: 500,
      writers: 2,
      ways: ['ranged', 'presplit'],
    });
    expect(result.complete).toBe(true);
    const [ranged, presplit] = result.ways;
    expect(ranged.chunks.before?.total).toBe(1);
    expect(ranged.spread?.busiestShare).toBeGreaterThan(0.9);
    expect(presplit.chunks.before?.perShard).toEqual({ shard0: 1, shard1: 1 });
    // g = 0..31 on shard0 and 32..63 on shard1: half each, counted by the shards' own opcounters.
    for (const id of ['shard0', 'shard1'])
      expect(presplit.totals.perShard[id]).toBeGreaterThanOrEqual(10_000);
    expect(presplit.spread!.cv).toBeLessThan(0.1);
  }, 240_000);
});
