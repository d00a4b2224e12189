/**
 * `run --uri ... --setup` on an existing "cluster": the recording server posing as a mongos, with
 * the cluster-metadata model of test/topology/fake-cluster.ts behind it (two shards already added).
 * Checks that only the data-distribution steps are applied, in order, before the load; that the
 * load keeps the sharded collection (deleteMany, no drop); and that a second run finds everything
 * done. The model stores no documents: the benchmark's numbers mean nothing (marked test double).
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
      expect(state.balancerMode).toBe('off');

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

      // Again: every step's check finds it done; nothing changes.
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
      ).toEqual([]);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
