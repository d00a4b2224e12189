/**
 * Faults of a run through agents: an agent killed mid-step (the step is failed and kept, with the
 * killed agent marked lost; exit 1, results written), Ctrl-C on the coordinator (the agents are
 * cancelled through the control database; exit 130), a run of another version (refused, said), and
 * Ctrl-C on a waiting agent (it ends cleanly, exit 0). No process is left running.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { ResultDocument } from '../../lib/result';
import { markRole } from '../../lib/server/ownership';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { killStartedClis, startAgent, startCli } from '../support/cli-child';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeNeeding('crud', 'run --agents: faults', () => {
  const dbs: string[] = [];
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-agents-faults-'));
  let client: MongoClient;
  const runArgs = (
    controlDb: string,
    targetDb: string,
    dir: string,
    seconds: number,
    agents: number,
    agentTimeoutSeconds = 2,
  ) => [
    'run',
    '--uri',
    crudUri(),
    '--agents',
    String(agents),
    '--control-db',
    controlDb,
    '--agent-wait',
    '30',
    '--agent-timeout',
    String(agentTimeoutSeconds),
    '--workload',
    'insert-only',
    '--ns',
    `${targetDb}.docs`,
    '--no-load',
    '--doc-size',
    '64',
    '--clients',
    '4',
    '--seconds',
    String(seconds),
    '--warmup',
    '0',
    '--no-server-stats',
    '--out',
    dir,
    '--quiet',
  ];
  const names = () => {
    const control = uniqueDbName('agents_faults_control');
    const target = uniqueDbName('agents_faults_target');
    dbs.push(control, target);
    return { control, target };
  };
  const readResult = (dir: string) =>
    JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as ResultDocument;

  beforeAll(async () => {
    client = new MongoClient(crudUri());
    await client.connect();
  });
  afterAll(async () => {
    expect(killStartedClis()).toBe(0);
    for (const db of dbs)
      await client
        .db(db)
        .dropDatabase()
        .catch(() => undefined);
    await client.close();
    fs.rmSync(out, { recursive: true, force: true });
  });

  test('an agent killed mid-step: a failed, kept step with what the others measured; exit 1; the survivor waits, and Ctrl-C ends it', async () => {
    const { control, target } = names();
    const dir = path.join(out, 'killed');
    const survivor = startAgent(crudUri(), control, 'k1');
    const victim = startAgent(crudUri(), control, 'k2');
    await Promise.all([survivor, victim].map((a) => a.waitFor(/waiting for a run/)));
    const coordinator = startCli(runArgs(control, target, dir, 5, 2));
    await victim.waitFor(/step 1:/);
    await sleep(1500);
    victim.child.kill('SIGKILL');

    expect(await coordinator.exited).toBe(1);
    expect(coordinator.output()).toMatch(/agent k2: lost mid-step: no heartbeat/);
    const result = readResult(dir);
    expect(result.complete).toBe(false);
    const step = result.steps[0];
    expect(step.status).toBe('failed');
    const byAgent = Object.fromEntries(step.agents!.map((a) => [a.agent, a]));
    expect(byAgent.k2.status).toBe('lost');
    expect(byAgent.k1.status).toBe('ok');
    expect(byAgent.k1.ops.writes).toBeGreaterThan(0);
    // The survivor's figures are the step's; the lost agent's last progress is kept beside them.
    expect(step.ops.writes).toBe(byAgent.k1.ops.writes);

    await survivor.waitFor(/waiting for the next run/);
    survivor.child.kill('SIGINT');
    expect(await survivor.exited).toBe(0);
    expect(survivor.output()).toMatch(/stopped after 1 run/);
  }, 120_000);

  test('Ctrl-C on the coordinator cancels the agents; a run of another version is refused', async () => {
    const { control, target } = names();
    const dir = path.join(out, 'cancelled');
    const now = new Date();
    // Published by a coordinator of another version, in a control database it marked as one.
    await markRole(client, control, 'control-db');
    await client
      .db(control)
      .collection('runs')
      .insertOne({
        _id: 'other-version' as never,
        version: '0.0.0-other',
        status: 'open',
        wanted: 1,
        openSlots: 1,
        joined: [],
        refused: [],
        spec: '{}',
        specSha256: 'x',
        heartbeatAt: now,
        createdAt: now,
        touchedAt: now,
      });
    const agent = startAgent(crudUri(), control, 'c1', ['--once']);
    await agent.waitFor(
      /refusing run other-version: version \S+, the coordinator's is 0\.0\.0-other/,
    );
    // The default agent timeout (10 s), not the 2 s that finds a killed agent quickly: the coordinator
    // marks the run cancelled once its report is written, and on a loaded machine the report's rendering
    // held its heartbeat past 2 s, so the agent left on "the coordinator went silent" before it could read
    // "cancelled". Nothing here is about a lost agent or coordinator.
    const coordinator = startCli(runArgs(control, target, dir, 8, 1, 10));
    await agent.waitFor(/step 1:/);
    await sleep(1500);
    coordinator.child.kill('SIGINT');

    expect(await coordinator.exited).toBe(130);
    expect(await agent.exited).toBe(0);
    expect(agent.output()).toMatch(/ended: cancelled/);
    const result = readResult(dir);
    expect(result.complete).toBe(false);
    expect(result.steps[0].status).toBe('interrupted');
    expect(result.steps[0].ops.writes).toBeGreaterThan(0);
    expect(result.steps[0].elapsedSeconds).toBeLessThan(8);
    const refused = await client
      .db(control)
      .collection('runs')
      .findOne({ _id: 'other-version' as never });
    expect(refused?.refused).toEqual([
      { agent: 'c1', reason: expect.stringMatching(/run the same mongo-bench version/) as string },
    ]);
  }, 120_000);
});
