/**
 * The Target (lib/server/target.ts): the server measured as one object. Its client options reach
 * every client it makes, withClient closes its client whatever the callback does, describe() says
 * what the server is (as results.json's target does), and release() stops what was started exactly
 * once however often and however concurrently it is called. Where a target comes from is planned in
 * lib/deployment: the matrix's plan of a sharded cluster is run's plan without the collection's sharding.
 */
import { MongoClient } from 'mongodb';
import { openTarget, uriTarget } from '../../lib/server/target';
import { acquireTarget } from '../../lib/deployment/acquire';
import { resolveTargetPlan } from '../../lib/deployment/plan';
import { FAKE_BIN } from '../support/processes';
import { crudKind, crudUri, describeNeeding } from '../support/servers';

describe('release(): stops what was started, once', () => {
  it("calls the source's stop once for concurrent and later calls, and every call waits for it", async () => {
    let stops = 0;
    let finish: () => void = () => undefined;
    const target = openTarget({
      uri: 'mongodb://127.0.0.1:1/',
      origin: 'launched',
      stop: () =>
        new Promise<void>((resolve) => {
          stops++;
          finish = resolve;
        }),
    });
    let settled = 0;
    const first = target.release().then(() => settled++);
    const second = target.release().then(() => settled++);
    await Promise.resolve();
    expect(stops).toBe(1);
    expect(settled).toBe(0); // neither call returns before the processes are stopped
    finish();
    await Promise.all([first, second]);
    await target.release();
    expect(stops).toBe(1);
    expect(settled).toBe(2);
  });

  it('a failed stop is reported to every caller, not retried', async () => {
    let stops = 0;
    const target = openTarget({
      uri: 'mongodb://127.0.0.1:1/',
      origin: 'embedded',
      stop: async () => {
        stops++;
        throw new Error('kill failed');
      },
    });
    await expect(target.release()).rejects.toThrow('kill failed');
    await expect(target.release()).rejects.toThrow('kill failed');
    expect(stops).toBe(1);
  });

  it('an existing deployment (--uri) has nothing to stop', async () => {
    const target = await acquireTarget(
      { kind: 'uri', uri: 'mongodb://127.0.0.1:1/' },
      { signal: new AbortController().signal, emit: () => undefined },
      { appName: 'x' },
    );
    expect(target.origin).toBe('uri');
    expect(target.clientOptions).toEqual({ appName: 'x' });
    await expect(target.release()).resolves.toBeUndefined();
  });
});

describeNeeding('crud', 'a Target on the CRUD test server', () => {
  it("withClient: the client carries the target's client options and is closed after the callback, also when it throws", async () => {
    const target = uriTarget(crudUri(), { appName: 'mongo-bench-target-test' });
    let seen: MongoClient | undefined;
    let closes = 0;
    const ping = await target.withClient(async (client) => {
      seen = client;
      const close = client.close.bind(client);
      client.close = async (...args: Parameters<MongoClient['close']>) => {
        closes++;
        return close(...args);
      };
      return client.db('admin').command({ ping: 1 });
    });
    expect(ping.ok).toBe(1);
    expect(seen?.options.appName).toBe('mongo-bench-target-test');
    expect(closes).toBe(1);

    let closedAfterThrow = 0;
    await expect(
      target.withClient(async (client) => {
        const close = client.close.bind(client);
        client.close = async (...args: Parameters<MongoClient['close']>) => {
          closedAfterThrow++;
          return close(...args);
        };
        throw new Error('callback failed');
      }),
    ).rejects.toThrow('callback failed');
    expect(closedAfterThrow).toBe(1);
  });

  it('describe(): version, topology and product as results.json records them (a test double named as one)', async () => {
    const described = await uriTarget(crudUri()).describe({ serverSelectionTimeoutMS: 5000 });
    expect(described.topology).toBe('standalone');
    expect(described.serverVersion).toMatch(/^\d+\.\d+/);
    expect(described.product?.testDouble).toBe(crudKind() === 'mongo-java-server');
    expect(described.testDouble === true).toBe(crudKind() === 'mongo-java-server');
    expect(described.processes).toHaveLength(1);
  });

  it('describe() of an unreachable server fails naming it within the selection timeout', async () => {
    await expect(
      uriTarget('mongodb://127.0.0.1:1/?directConnection=true').describe({
        serverSelectionTimeoutMS: 300,
      }),
    ).rejects.toThrow(/cannot reach 127\.0\.0\.1:1/);
  });
});

describe('lib/deployment: one plan of where the server comes from, for run and for the matrix', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const flags = {
    topology: 'sharded',
    shards: 2,
    binDir: FAKE_BIN,
    dataDir: '/tmp/mongo-bench-target-test',
  };

  it("a sharded cluster without a benchmark collection (the matrix) is run's cluster up to addShard, no collection sharded", () => {
    const clusterOnly = resolveTargetPlan(flags, { now, env: {}, db: 'mongo_bench' }).target;
    const forRun = resolveTargetPlan(flags, {
      now,
      env: {},
      collection: { db: 'mongo_bench', collection: 'docs', docs: 1000, load: true },
    }).target;
    if (clusterOnly.kind !== 'launched' || forRun.kind !== 'launched')
      throw new Error('expected launched plans');
    const commands = (plan: typeof clusterOnly) =>
      plan.plan.steps.map((s) => Object.keys(s.command)[0]);
    expect(commands(clusterOnly)).not.toContain('enableSharding');
    expect(commands(clusterOnly)).not.toContain('shardCollection');
    expect(commands(clusterOnly).at(-1)).toBe('addShard');
    expect(commands(forRun)).toContain('shardCollection');
    // The same processes, and the cluster's steps are the first steps of run's plan.
    expect(clusterOnly.plan.processes).toEqual(forRun.plan.processes);
    expect(forRun.plan.steps.slice(0, clusterOnly.plan.steps.length)).toEqual(
      clusterOnly.plan.steps,
    );
  });
});
