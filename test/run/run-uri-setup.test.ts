/**
 * `run --uri ... --setup` on an existing "cluster": the recording server posing as a mongos, with
 * the cluster-metadata model of test/topology/fake-cluster.ts behind it (two shards already added).
 * Checks that only the data-distribution steps are applied, in order, before the load; that the
 * load keeps the sharded collection (deleteMany, no drop); that a second run finds everything
 * done; and that what the run changes on the cluster is set back at its end (the balancer started
 * again only when it was running, the chunk size as found). The model stores no documents: the benchmark's numbers mean nothing (marked test double).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../lib/cli/main';
import { startRecordingServer } from '../support/recording-server';
import { describeNeeding } from '../support/servers';
import {
  emptyClusterState,
  fakeClusterHandlers,
  isChangingCommand,
} from '../topology/fake-cluster';
import { captureContext } from '../support/cli';

describeNeeding('recording', 'mongo-bench run --uri --setup on an existing sharded cluster', () => {
  it('applies enableSharding, shardCollection, pre-split and balancer stop before loading, and keeps the sharding', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-run-setup-'));
    const state = emptyClusterState();
    state.shards.push(
      { _id: 'shA', host: 'shA/127.0.0.1:1' },
      { _id: 'shB', host: 'shB/127.0.0.1:2' },
    );
    const server = await startRecordingServer({
      handlers: fakeClusterHandlers(state),
      helloFields: { msg: 'isdbgrid' },
    });
    try {
      const args = [
        'node',
        'mongo-bench',
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
        '1',
        '--warmup',
        '0',
        '--docs',
        '100',
        '--test-double',
        '--quiet',
      ];
      const first = captureContext();
      expect(await main([...args, '--out', join(dir, 'first')], first)).toBe(0);

      const names = server
        .userCommands()
        .map((c) =>
          isChangingCommand(c)
            ? c.name
            : c.name === 'delete'
              ? `delete ${String(c.body.delete)}`
              : c.name === 'dropDatabase' || c.name === 'insert' || c.name === 'drop'
                ? c.name
                : undefined,
        )
        .filter(Boolean);
      const firstInsert = names.indexOf('insert');
      // --drop drops the collection the load replaces (and its owner marker), not the database.
      expect(names.slice(0, firstInsert + 1)).toEqual([
        'drop',
        'delete mongo_bench_owner',
        'enableSharding',
        'shardCollection',
        'balancerStop',
        'split',
        'moveChunk',
        'delete docs',
        'insert',
      ]);
      expect(names).not.toContain('dropDatabase');
      // the loader kept the sharded collection
      expect(names.slice(names.indexOf('shardCollection'))).not.toContain('drop');
      expect(names).not.toContain('addShard'); // the cluster exists: only data distribution
      expect(state.collections.get('mongo_bench.docs')?.key).toEqual({ _id: 1 });
      // Split at 50; the chunk [50, MaxKey) moved to the second shard (the first was already on shA, its primary).
      expect(state.chunks.map((c) => c.shard)).toEqual(['shA', 'shB']);
      expect(state.chunks[1].min).toEqual({ _id: 50 });
      // The balancer's mode is read before it is stopped; it was running, so the run's end starts it again.
      const all = server.userCommands().map((c) => c.name);
      expect(all.indexOf('balancerStatus')).toBeGreaterThan(-1);
      expect(all.indexOf('balancerStatus')).toBeLessThan(all.indexOf('balancerStop'));
      expect(all.lastIndexOf('balancerStart')).toBeGreaterThan(all.lastIndexOf('insert'));
      expect(names.filter((n) => n === 'balancerStart')).toHaveLength(1);
      expect(names.at(-1)).toBe('balancerStart');
      expect(state.balancerMode).toBe('full');

      const setupJs = readFileSync(join(dir, 'first', 'setup.js'), 'utf8');
      for (const text of [
        'enableSharding',
        'shardCollection',
        'split: ',
        'moveChunk',
        'balancerStop',
      ])
        expect(setupJs).toContain(text);
      expect(setupJs).not.toContain('addShard');
      const log = readFileSync(join(dir, 'first', 'command-log.txt'), 'utf8');
      expect(log).toMatch(/\[--setup\] check mongos-0 \S+ admin \{"listShards":1\} -> ok/);
      expect(log).toMatch(
        /\[cluster state\] check mongos-0 \S+ admin \{"balancerStatus":1\} -> ok/,
      );
      expect(log).toMatch(/\[cluster state\] apply mongos-0 \S+ admin \{"balancerStart":1\} -> ok/);
      expect(log).toContain('cluster: set back the balancer started again');

      // Again: every step's check finds it done; nothing changes but the balancer, stopped for the
      // run as --stop-balancer asks (the first run's end started it again) and started at its end.
      server.clear();
      const second = captureContext();
      expect(
        await main([...args.filter((a) => a !== '--drop'), '--out', join(dir, 'second')], second),
      ).toBe(0);
      expect(
        server
          .userCommands()
          .filter(isChangingCommand)
          .map((c) => c.name),
      ).toEqual(['balancerStop', 'balancerStart']);
      expect(state.balancerMode).toBe('full');
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  /** A cluster of two shards behind the recording server posing as a mongos; `buildInfo` its version. */
  const startCluster = async (version = '7.0.0') => {
    const state = emptyClusterState();
    state.shards.push(
      { _id: 'shA', host: 'shA/127.0.0.1:1' },
      { _id: 'shB', host: 'shB/127.0.0.1:2' },
    );
    const server = await startRecordingServer({
      handlers: {
        ...fakeClusterHandlers(state),
        buildInfo: () => ({ version, versionArray: version.split('.').map(Number), ok: 1 }),
      },
      helloFields: { msg: 'isdbgrid' },
    });
    return { state, server };
  };
  const runOn = (uri: string, out: string, extra: string[]) =>
    main(
      [
        'node',
        'mongo-bench',
        'run',
        '--uri',
        uri,
        '--setup',
        '--drop',
        '--clients',
        '1',
        '--seconds',
        '1',
        '--warmup',
        '0',
        '--docs',
        '100',
        '--test-double',
        '--quiet',
        '--out',
        out,
        ...extra,
      ],
      captureContext(),
    );
  const changing = (server: Awaited<ReturnType<typeof startRecordingServer>>) =>
    server
      .userCommands()
      .filter(isChangingCommand)
      .map((c) => c.name);

  it('a balancer that was off before the run stays off: not started after the pre-split, nor at the end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-run-setup-off-'));
    const { state, server } = await startCluster();
    state.balancerMode = 'off';
    try {
      expect(await runOn(server.uri, join(dir, 'out'), ['--presplit', '0:100'])).toBe(0);
      const sent = changing(server);
      expect(sent).toContain('moveChunk');
      // Already off: the stop is skipped by its check, and nothing starts it.
      expect(sent).not.toContain('balancerStart');
      expect(sent).not.toContain('balancerStop');
      expect(state.balancerMode).toBe('off');
      expect(server.userCommands().map((c) => c.name)).toContain('balancerStatus');
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("before 6.0 the cluster's chunk size (config.settings) is set back: its old value, or removed when there was none", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-run-setup-chunk-'));
    const { state, server } = await startCluster('5.0.0');
    state.settings.set('chunksize', { _id: 'chunksize', value: 128 });
    try {
      expect(await runOn(server.uri, join(dir, 'first'), ['--chunk-size', '64'])).toBe(0);
      const updates = server
        .userCommands()
        .filter((c) => c.db === 'config' && c.name === 'update')
        .map((c) => (c.body.updates as { u: { $set: { value: number } } }[])[0].u.$set.value);
      expect(updates).toEqual([64, 128]);
      expect(state.settings.get('chunksize')).toEqual({ _id: 'chunksize', value: 128 });

      // None before: the run's setting is removed at its end.
      state.settings.delete('chunksize');
      server.clear();
      expect(await runOn(server.uri, join(dir, 'second'), ['--chunk-size', '64'])).toBe(0);
      expect(changing(server)).toEqual(['update', 'delete']);
      expect(state.settings.has('chunksize')).toBe(false);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('from 6.0 a collection sharded before the run gets its own chunk size back (the cluster default when it had none)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-run-setup-coll-chunk-'));
    const { state, server } = await startCluster('7.0.0');
    try {
      // The first run shards the collection: its chunk size is the run's, kept.
      const balancing = () =>
        server
          .userCommands()
          .filter((c) => c.name === 'configureCollectionBalancing')
          .map((c) => c.body.chunkSize);
      expect(await runOn(server.uri, join(dir, 'first'), ['--chunk-size', '64'])).toBe(0);
      expect(balancing()).toEqual([64]);
      expect(Number(state.collections.get('mongo_bench.docs')?.maxChunkSizeBytes)).toBe(
        64 * 1024 * 1024,
      );
      // Sharded before the next run, with no size of its own: the cluster default again at the end.
      delete state.collections.get('mongo_bench.docs')!.maxChunkSizeBytes;
      server.clear();
      expect(await runOn(server.uri, join(dir, 'second'), ['--chunk-size', '64'])).toBe(0);
      expect(balancing()).toEqual([64, 0]);
      expect(state.collections.get('mongo_bench.docs')?.maxChunkSizeBytes).toBeUndefined();
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
