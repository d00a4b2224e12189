/**
 * Runs every generated .js file with the real mongosh against the recording server, whose handlers
 * keep a small model of the cluster's metadata (fake-cluster.ts). The first run must send exactly
 * the plan's commands, in order; the second run, against the state the first one left, must send
 * no changing command at all. Every target of a plan is sent to the one recorder
 * (MONGO_BENCH_CONNECT_ALL), which is why the model is one cluster-wide state. (Users run the
 * files with `mongosh --nodb`; here mongosh also gets the recorder's URI, whose start-up commands
 * userCommands() leaves out.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describeNeeding } from '../support/servers';
import { RecordingServer, startRecordingServer } from '../support/recording-server';
import { runMongosh } from '../support/mongosh';
import {
  planFromOptions,
  presplit,
  renderMongosh,
  renderScriptFiles,
  SetupStep,
} from '../../lib/topology';
import {
  chunkContaining,
  emptyClusterState,
  fakeClusterHandlers,
  isChangingCommand,
  isReadOnlyCheck,
} from './fake-cluster';
import { GOLDEN_SCENARIOS } from './scenarios';

type Doc = Record<string, unknown>;

/** What the plan says a script sends: every step's command except those it expects to find done. */
function expectedCommands(steps: SetupStep[]): { db: string; body: Doc }[] {
  return steps.filter((s) => !s.expectSkip).map((s) => ({ db: s.db, body: s.command }));
}

describeNeeding(
  ['recording', 'mongosh'],
  'generated mongosh scripts against the recording server',
  () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'mongo-bench-mongosh-scripts-'));
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
      delete process.env.MONGO_BENCH_CONNECT_ALL;
    });

    // Access-controlled scenarios log in; test/topology/auth-scripts.test.ts runs them against recorders that check passwords.
    const withScripts = GOLDEN_SCENARIOS.filter(
      (s) => s.input.topology !== 'standalone' && !s.input.auth,
    );
    it.each(withScripts.map((s) => [s.name, s] as const))(
      "%s: sends the plan's commands in order, and nothing that changes the cluster when run again",
      async (name, scenario) => {
        const plan = planFromOptions(scenario.input);
        const files = renderScriptFiles(plan).filter((f) => f.file.endsWith('.js'));
        const scripts = renderMongosh(plan);
        expect(files.map((f) => f.file)).toEqual(scripts.map((s) => s.file));
        const state = emptyClusterState();
        const server: RecordingServer = await startRecordingServer({
          handlers: fakeClusterHandlers(state),
        });
        process.env.MONGO_BENCH_CONNECT_ALL = `127.0.0.1:${server.port}`;
        try {
          for (const round of ['first', 'second'] as const) {
            for (const file of files) {
              const scriptPath = path.join(dir, `${name}-${file.file}`);
              writeFileSync(scriptPath, file.text);
              server.clear();
              const result = await runMongosh(server.uri, { file: scriptPath });
              const context = `${round} run of ${file.file}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
              expect({ context, code: result.code }).toEqual({ context, code: 0 });

              const sent = server.userCommands();
              // Nothing but the plan's commands and the read-only checks.
              const unexpected = sent
                .filter((c) => !isChangingCommand(c) && !isReadOnlyCheck(c))
                .map((c) => `${c.db} ${JSON.stringify(c.body)}`);
              expect(unexpected).toEqual([]);
              const changing = sent
                .filter(isChangingCommand)
                .map((c) => ({ db: c.db, body: c.body }));
              const steps = scripts.find((s) => s.file === file.file)!.steps;
              if (round === 'first') {
                expect(changing).toEqual(expectedCommands(steps));
                expect(result.stdout).toContain(`${file.file}: all ${steps.length} steps done`);
              } else {
                expect(changing).toEqual([]);
                expect(result.stdout.match(/already done: skipped/g)?.length).toBe(steps.length);
              }
            }
          }
          // The model ends where the plan meant the cluster to be.
          expect([...state.initiatedSets.keys()]).toEqual(
            plan.topology.replicaSets.map((r) => r.name),
          );
          expect(state.shards.map((s) => s._id)).toEqual(plan.topology.shards.map((s) => s.id));
          const sharding = plan.topology.sharding;
          if (sharding?.presplit) {
            // One chunk per shard, the i-th range on the i-th shard.
            expect(state.chunks).toHaveLength(plan.topology.shards.length);
            presplit(sharding.presplit, plan.topology.shards.length).chunks.forEach((chunk, i) => {
              expect(
                chunkContaining(state, sharding.ns, { [sharding.shardKey]: chunk.findPoint })
                  ?.shard,
              ).toBe(plan.topology.shards[i].id);
            });
          }
        } finally {
          await server.stop();
        }
      },
    );

    it('stops at the first failing step with a message that names it', async () => {
      const plan = planFromOptions({ topology: 'replset', replicas: 3 });
      const file = renderScriptFiles(plan).find((f) => f.file === '10-replsets.js')!;
      const server = await startRecordingServer({
        handlers: {
          replSetInitiate: () => ({
            ok: 0,
            code: 93,
            codeName: 'InvalidReplicaSetConfig',
            errmsg:
              'No host described in new configuration with {version: 1, term: 0} for replica set rs0 maps to this node',
          }),
        },
      });
      process.env.MONGO_BENCH_CONNECT_ALL = `127.0.0.1:${server.port}`;
      try {
        const scriptPath = path.join(dir, 'failing-10-replsets.js');
        writeFileSync(scriptPath, file.text);
        const result = await runMongosh(server.uri, { file: scriptPath });
        expect(result.code).toBe(1);
        expect(result.stdout).toContain('FAILED: step 1/1 "Initiate replica set rs0');
        expect(result.stdout).toContain('maps to this node');
        // It did not go on to wait for an election that cannot happen.
        expect(server.userCommands().filter((c) => c.name === 'hello')).toEqual([]);
      } finally {
        await server.stop();
      }
    });

    it('4.4 plan: a database a write created (partitioned: false) still gets enableSharding; the balancer goes off before the first split', async () => {
      const plan = planFromOptions({
        topology: 'sharded',
        shards: 3,
        replicas: 1,
        shardKey: 'k',
        presplit: '0:300',
        serverVersion: '4.4',
      });
      const file = renderScriptFiles(plan).find((f) => f.file === '20-cluster.js')!;
      const state = emptyClusterState();
      state.shards = plan.topology.shards.map((s) => ({ _id: s.id, host: s.connectionString }));
      state.databases.set('mongo_bench', {
        _id: 'mongo_bench',
        primary: 'shard0',
        partitioned: false,
      });
      const server = await startRecordingServer({ handlers: fakeClusterHandlers(state) });
      process.env.MONGO_BENCH_CONNECT_ALL = `127.0.0.1:${server.port}`;
      try {
        const scriptPath = path.join(dir, 'v44-20-cluster.js');
        writeFileSync(scriptPath, file.text);
        const first = await runMongosh(server.uri, { file: scriptPath });
        expect({ code: first.code, stdout: first.stdout }).toMatchObject({ code: 0 });
        const changing = server
          .userCommands()
          .filter(isChangingCommand)
          .map((c) => c.name);
        expect(changing).toEqual([
          'enableSharding',
          'shardCollection',
          'balancerStop',
          'split',
          'split',
          'moveChunk',
          'moveChunk',
          'balancerStart',
        ]);
        expect(state.databases.get('mongo_bench')?.partitioned).toBe(true);
        expect(state.balancerMode).toBe('full');
        // Run again: the balancer runs again, but the chunks are in place, so it is not stopped a second time.
        server.clear();
        const second = await runMongosh(server.uri, { file: scriptPath });
        expect(second.code).toBe(0);
        expect(server.userCommands().filter(isChangingCommand)).toEqual([]);
      } finally {
        await server.stop();
      }
    });
  },
);
