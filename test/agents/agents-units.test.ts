/** The pieces of the agents' protocol that need no process: shares, the published URI, the spec's hash, option errors, the k8s manifest, a missing agent. */
import { MeasurementDoc, withoutCredentials } from '../../lib/agents/control';
import { ProgressTicks } from '../../lib/agents/coordinator';
import { TickLatency } from '../../lib/metrics/tick-latency';
import type { TickEvent } from '../../lib/workload/engine/engine';
import { parseSpec, serializeSpec, buildRunSpec } from '../../lib/agents/run-spec';
import { shareClients } from '../../lib/agents/shares';
import { resolveAgentRunOptions } from '../../lib/agents/options';
import { renderK8sJob } from '../../lib/agents/k8s-job';
import { runCli, usageMessage } from '../support/cli';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { unplannedWrites } from '../../lib/workload/engine/write-handles';

/** These tests bind ops on servers they start themselves, with no write plan. */
const TEST_WRITES = unplannedWrites('test/agents/agents-units.test.ts');

test('client i keeps index i: contiguous shares in agent order, idle agents when clients are few', () => {
  expect(shareClients(10, ['a', 'b', 'c'])).toEqual([
    { agent: 'a', first: 0, count: 3 },
    { agent: 'b', first: 3, count: 3 },
    { agent: 'c', first: 6, count: 4 },
  ]);
  expect(shareClients(1, ['a', 'b']).map((s) => s.count)).toEqual([0, 1]);
});

test('the control database never gets credentials', () => {
  expect(
    withoutCredentials('mongodb://alice:s3cr%40t@h1:27017,h2/db?replicaSet=rs&authSource=admin'),
  ).toBe('mongodb://h1:27017,h2/db?replicaSet=rs&authSource=admin');
  expect(
    withoutCredentials('mongodb+srv://u:p@cluster.example/?tlsCertificateKeyFilePassword=x&w=1'),
  ).toBe('mongodb+srv://cluster.example/?w=1');
  const spec = buildRunSpec({
    uri: 'mongodb://alice:pw@h1/',
    workload: { ops: [{ op: 'nop' }], ns: 'a.b', writes: TEST_WRITES },
    serverSelectionTimeoutMS: 5000,
    lostAfterMs: 10_000,
    label: 'x',
  });
  expect(serializeSpec(spec).spec).not.toMatch(/alice|pw@/);
});

test('an agent runs only a spec that arrived whole', () => {
  const { spec, specSha256 } = serializeSpec(
    buildRunSpec({
      uri: 'mongodb://h/',
      workload: { ops: [{ op: 'nop' }], ns: 'a.b', writes: TEST_WRITES },
      serverSelectionTimeoutMS: 5000,
      lostAfterMs: 1000,
      label: 'x',
    }),
  );
  expect(parseSpec(spec, specSha256)).toHaveProperty('spec.targetUri', 'mongodb://h/');
  expect(parseSpec(spec.slice(0, -5), specSha256)).toEqual({
    error: expect.stringMatching(/does not match its sha256/) as string,
  });
});

test('bad --agents input names the option', () => {
  expect(usageMessage(() => resolveAgentRunOptions({ agents: 2 }, undefined))).toMatch(
    /^option --agents: needs --uri/,
  );
  expect(usageMessage(() => resolveAgentRunOptions({ agents: 0 }, 'mongodb://h/'))).toMatch(
    /^option --agents: expected a whole number/,
  );
  expect(
    usageMessage(() => resolveAgentRunOptions({ controlUri: 'mongodb://h/' }, 'mongodb://h/')),
  ).toMatch(/^option --control-uri: only with --agents/);
  expect(
    usageMessage(() =>
      resolveAgentRunOptions({ agents: 1, controlUri: 'http://h' }, 'mongodb://h/'),
    ),
  ).toMatch(/^option --control-uri: expected a mongodb/);
  expect(resolveAgentRunOptions({ agents: 2 }, 'mongodb://h/')).toMatchObject({
    controlUri: 'mongodb://h/',
    controlDb: 'mongo_bench_control',
  });
});

test('--print-k8s-job N: an Indexed Job of N agents named by their index, credentials from a Secret', async () => {
  const manifest = renderK8sJob({
    agents: 4,
    image: 'node:20',
    name: 'mb',
    secret: 's',
    version: '1.2.3',
  });
  expect(manifest).toMatch(/completionMode: Indexed\n\s+completions: 4\n\s+parallelism: 4/);
  expect(manifest).toContain('--name "mb-$JOB_COMPLETION_INDEX"');
  expect(manifest).toContain(
    'secretKeyRef: { name: s, key: MONGO_BENCH_PASSWORD, optional: true }',
  );
  const cli = await runCli(['agent', '--print-k8s-job', '3']);
  expect(cli.code).toBe(0);
  expect(cli.stdout).toMatch(/completions: 3/);
  expect((await runCli(['agent'])).stderr).toMatch(/option --control-uri: required/);
});

describeNeeding('crud', 'waiting for agents', () => {
  test('too few agents: exit 1 naming how many are missing and how to start them; nothing measured', async () => {
    const cli = await runCli([
      'run',
      '--uri',
      crudUri(),
      '--agents',
      '2',
      '--control-db',
      uniqueDbName('agents_wait'),
      '--agent-wait',
      '1',
      '--clients',
      '1',
      '--seconds',
      '1',
      '--quiet',
    ]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(
      /waited 1 s for 2 agents \(option --agent-wait\): 0 joined, 2 missing; start the missing ones with: mongo-bench agent --control-uri mongodb:\/\/127\.0\.0\.1/,
    );
  }, 20_000);
});

describe("the coordinator's ticks from the agents' progress", () => {
  const latency = (writes: number[]) => {
    const t = new TickLatency();
    writes.forEach((micros) => t.record(3, micros)); // series 3: measured writes
    return t.take();
  };
  const doc = (
    state: MeasurementDoc['state'],
    second: number,
    writes: number[],
  ): MeasurementDoc => ({
    _id: 'x',
    runId: 'r',
    seq: 1,
    agent: 'a',
    state,
    clockOffsetMs: 0,
    touchedAt: new Date(),
    progress: {
      phase: 'measure',
      second,
      measured: { reads: 0, writes: writes.length, errors: 0 },
      ...(writes.length > 0 ? { latency: latency(writes) } : {}),
    },
  });

  it('turn the running sums into what came between, and send the rest once all are done', () => {
    const ticks: TickEvent[] = [];
    const p = new ProgressTicks((t) => ticks.push(t));
    p.update([doc('running', 0, [100]), doc('running', 0, [200, 300])]);
    p.update([doc('running', 0, [100]), doc('running', 0, [200, 300])]); // the same second again: nothing
    p.update([doc('running', 1, [100, 150]), doc('running', 1, [200, 300, 400])]);
    p.update([doc('done', 1, [100, 150, 160]), doc('done', 1, [200, 300, 400])]);
    p.update([doc('done', 1, [100, 150, 160]), doc('done', 1, [200, 300, 400])]); // once only
    expect(ticks.map((t) => t.final ?? false)).toEqual([false, false, true]);
    const writes = ticks.map(
      (t) => t.latency?.series.flatMap((s) => s.counts).reduce((a, b) => a + b, 0) ?? 0,
    );
    expect(writes).toEqual([3, 2, 1]);
    expect(ticks.map((t) => t.writes)).toEqual([3, 2, 1]);
  });
});
