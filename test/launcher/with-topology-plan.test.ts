/**
 * The launcher and the topology plan together, as `run --topology sharded` will use them: the
 * plan's processes go to launchProcesses unchanged, mongos joins once a step needs it, and
 * applyPlan runs every step against the stand-ins. (Stand-ins accept the steps; whether MongoDB
 * does is for the real-server tests.)
 */
import * as fs from 'node:fs';
import { resolveBinaries } from '../../lib/launcher/binaries';
import { launchProcesses } from '../../lib/launcher/launch';
import {
  applyPlan,
  driverConnector,
  formatCommandLogEntry,
  planFromOptions,
} from '../../lib/topology';
import { expectGone, FAKE_BIN, freePortRange, tempDir } from '../support/processes';

it('launches a planned sharded cluster, applies its plan, stops it in order', async () => {
  const dataDir = tempDir('plan');
  // The plan numbers its four processes' ports from --base-port.
  const basePort = await freePortRange(4);
  const plan = planFromOptions({
    topology: 'sharded',
    shards: 2,
    replicas: 1,
    basePort,
    dataDir,
    shardKey: 'g',
    presplit: '0:4',
    stopBalancer: true,
  });
  const log: string[] = [];
  const mongoses = plan.processes.filter((p) => p.kind === 'mongos');
  const group = await launchProcesses(
    plan.processes.filter((p) => p.kind === 'mongod'),
    {
      binaries: resolveBinaries({ binDir: FAKE_BIN, env: {} }),
      readyTimeoutMs: 20_000,
      onCommandLine: (line) => log.push(line),
    },
  );
  const driver = driverConnector();
  try {
    const outcomes = await applyPlan(
      plan,
      async (target) => {
        // mongos needs its config server replica set initiated first: start it on first use.
        if (target.kind === 'mongos' && !group.processes.some((p) => p.kind === 'mongos'))
          await group.launch(mongoses);
        return driver.connect(target);
      },
      { onCommand: (entry) => log.push(formatCommandLogEntry(entry)), pollIntervalMs: 50 },
    );
    // A step the plan expects to find done (the first chunk already lives on the primary shard) is skipped.
    expect(outcomes.map((o) => o.status)).toEqual(
      plan.steps.map((s) => (s.expectSkip ? 'skipped' : 'applied')),
    );
    const mongosLine = log.findIndex((l) => l.startsWith(`${FAKE_BIN}/mongos `));
    const firstAddShard = log.findIndex((l) => l.includes('"addShard"'));
    const lastInitiate = log.map((l) => l.includes('"replSetInitiate"')).lastIndexOf(true);
    expect(lastInitiate).toBeLessThan(mongosLine);
    expect(mongosLine).toBeLessThan(firstAddShard);
  } finally {
    await driver.close();
    const pids = group.processes.map((p) => p.pid);
    const report = await group.stop();
    expect(report.map((r) => r.name)).toEqual(['mongos-0', 'shard0-0', 'shard1-0', 'cfg-0']);
    expectGone(pids);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
