/**
 * applyPlan through the Node driver against the recording server and the cluster model in
 * fake-cluster.ts: the same commands as the scripts, idempotent, logged, failing with the step named.
 */
import { describeNeeding } from '../support/servers';
import { defaultReply, startRecordingServer } from '../support/recording-server';
import {
  applyPlan,
  CommandLogEntry,
  driverConnector,
  formatCommandLogEntry,
  planFromOptions,
  SetupStepError,
} from '../../lib/topology';
import { emptyClusterState, fakeClusterHandlers, isChangingCommand } from './fake-cluster';

const SEEDS_CASE = {
  topology: 'sharded',
  shards: 5,
  replicas: 1,
  shardKey: 'g',
  presplit: '0:64',
  stopBalancer: true,
  chunkSize: 1024,
};

describeNeeding('recording', 'applyPlan through the driver', () => {
  it("sends the plan's commands in order, logs each one, and skips everything on a second run", async () => {
    const plan = planFromOptions(SEEDS_CASE);
    const state = emptyClusterState();
    const server = await startRecordingServer({ handlers: fakeClusterHandlers(state) });
    const connector = driverConnector({ uri: server.uri });
    try {
      const log: CommandLogEntry[] = [];
      const first = await applyPlan(plan, connector.connect, { onCommand: (e) => log.push(e) });
      const expected = plan.steps
        .filter((s) => !s.expectSkip)
        .map((s) => ({ db: s.db, body: s.command }));
      const sent = server.userCommands();
      expect(sent.filter(isChangingCommand).map((c) => ({ db: c.db, body: c.body }))).toEqual(
        expected,
      );
      expect(first.map((o) => o.status)).toEqual(
        plan.steps.map((s) => (s.expectSkip ? 'skipped' : 'applied')),
      );
      // The log holds every command sent, in order (waits are logged once, as their last hello).
      const logged = log
        .filter((e) => e.purpose !== 'wait')
        .map((e) => ({ db: e.db, body: e.command }));
      expect(logged).toEqual(
        sent.filter((c) => c.name !== 'hello').map((c) => ({ db: c.db, body: c.body })),
      );
      expect(log.filter((e) => e.purpose === 'wait')).toHaveLength(
        plan.topology.replicaSets.length,
      );
      expect(log.every((e) => e.ok)).toBe(true);
      expect(
        formatCommandLogEntry(log.find((e) => e.purpose === 'apply' && 'addShard' in e.command)!),
      ).toBe(
        `[7/${plan.steps.length}] apply mongos-0 127.0.0.1:27017 admin {"addShard":"shard0/127.0.0.1:27019"} -> ok (${log.find((e) => e.purpose === 'apply' && 'addShard' in e.command)!.durationMs} ms)`,
      );

      server.clear();
      const second = await applyPlan(plan, connector.connect);
      expect(second.every((o) => o.status === 'skipped')).toBe(true);
      expect(server.userCommands().filter(isChangingCommand)).toEqual([]);
    } finally {
      await connector.close();
      await server.stop();
    }
  });

  it('names the failing step and stops there', async () => {
    const plan = planFromOptions(SEEDS_CASE);
    const state = emptyClusterState();
    const handlers = fakeClusterHandlers(state);
    const server = await startRecordingServer({
      handlers: {
        ...handlers,
        addShard: (body, db, s, c) =>
          String(body.addShard).startsWith('shard1/')
            ? {
                ok: 0,
                code: 96,
                codeName: 'OperationFailed',
                errmsg: 'failed to connect to 127.0.0.1:27020',
              }
            : handlers.addShard(body, db, s, c),
      },
    });
    const connector = driverConnector({ uri: server.uri });
    try {
      const error = await applyPlan(plan, connector.connect).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SetupStepError);
      expect((error as SetupStepError).message).toBe(
        `setup step 8/${plan.steps.length} "Add shard shard1" on mongos-0 (127.0.0.1:27017) failed: failed to connect to 127.0.0.1:27020`,
      );
      expect((error as SetupStepError).exitCode).toBe(1);
      expect(
        server
          .userCommands()
          .some((c) => c.name === 'addShard' && String(c.body.addShard).startsWith('shard2/')),
      ).toBe(false);
    } finally {
      await connector.close();
      await server.stop();
    }
  });

  it('gives up waiting for a PRIMARY after the timeout, naming the set', async () => {
    const plan = planFromOptions({ topology: 'replset', replicas: 3 });
    const server = await startRecordingServer({
      handlers: {
        hello: (body, db) => ({
          ...defaultReply('hello', body, db),
          isWritablePrimary: false,
          secondary: true,
        }),
      },
    });
    const connector = driverConnector({ uri: server.uri });
    try {
      const started = Date.now();
      const error = await applyPlan(plan, connector.connect, {
        primaryTimeoutMs: 400,
        pollIntervalMs: 50,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SetupStepError);
      expect((error as Error).message).toMatch(
        /^setup step 1\/1 "Initiate replica set rs0 .*" on rs0-0 \(127\.0\.0\.1:27017\) failed: no PRIMARY in replica set rs0 after 0\.4 s/,
      );
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await connector.close();
      await server.stop();
    }
  });

  it('refuses a collection already sharded on another key', async () => {
    const plan = planFromOptions(SEEDS_CASE);
    const state = emptyClusterState();
    const server = await startRecordingServer({ handlers: fakeClusterHandlers(state) });
    const connector = driverConnector({ uri: server.uri });
    try {
      // Someone sharded it on {_id: "hashed"} before us.
      const clusterSteps = plan.steps.filter(
        (s) => s.phase === 'replsets' || 'addShard' in s.command,
      );
      await applyPlan({ ...plan, steps: clusterSteps }, connector.connect);
      const handlers = fakeClusterHandlers(state);
      void handlers.shardCollection(
        { shardCollection: 'mongo_bench.docs', key: { _id: 'hashed' } },
        'admin',
        server,
        { id: 0 },
      );
      const error = await applyPlan(plan, connector.connect).catch((e: unknown) => e);
      expect((error as Error).message).toContain(
        '"Shard collection mongo_bench.docs on key { g: 1 } (ranged)"',
      );
      expect((error as Error).message).toContain(
        'already sharded on {"_id":"hashed"}, not {"g":1}',
      );
    } finally {
      await connector.close();
      await server.stop();
    }
  });
});
