/**
 * The whole experiment, end to end, against a fake sharded cluster made of recording servers (real
 * wire protocol, real driver): the mongos routes each inserted document to the shard whose chunk
 * holds its key and counts it in that shard's serverStatus, so the per-shard figures the experiment
 * reports come from what it really sent. The recorder stores no document.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describeNeeding } from '../../support/servers';
import { isChangingCommand } from '../../topology/fake-cluster';
import { startFakeShardedCluster } from './fake-sharded-cluster';
import { parseServerVersion } from '../../../lib/topology';
import {
  loadPresplitImportResult,
  PRESPLIT_IMPORT_SCHEMA,
  PresplitImportEvent,
  resolvePresplitImportOptions,
  runPresplitImport,
  wayMeasures,
  waySetupSteps,
  writePresplitImportReport,
} from '../../../lib/experiments/presplit-import';
import { RunError } from '../../../lib/config/errors';

const DOCS = 6400; // 100 times through g = 0..63
const SMALL = { docs: DOCS, docSize: 300, batchSize: 200, writers: 2, sampleIntervalMs: 100 };

describeNeeding('recording', 'presplit-import end to end on a fake 3-shard cluster', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'mongo-bench-presplit-import-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('imports three ways from the plan, measures each shard, and writes the report', async () => {
    const cluster = await startFakeShardedCluster({ shards: 3 });
    const events: PresplitImportEvent[] = [];
    try {
      const result = await runPresplitImport(
        { uri: cluster.mongos.uri, ...SMALL },
        { onEvent: (e) => events.push(e), testDouble: 'recording server' },
      );
      expect(result.schema).toBe(PRESPLIT_IMPORT_SCHEMA);
      expect(result.complete).toBe(true);
      expect(result.target.shards.map((s) => s.id)).toEqual(['shard0', 'shard1', 'shard2']);
      expect(result.ways.map((w) => w.way)).toEqual(['ranged', 'presplit', 'hashed']);
      // Every document of every way reached a shard, and each way's counts add up on every side.
      expect(cluster.mongosInserts()).toBe(3 * DOCS);
      for (const way of result.ways) {
        expect(way.complete).toBe(true);
        expect(way.import.insertedDocs).toBe(DOCS);
        expect(way.totals).toMatchObject({ shardsSum: DOCS, mongos: DOCS, client: DOCS });
        expect(way.readings.mongos.length).toBeGreaterThanOrEqual(2);
        // (Readings may miss under load, 100 ms apart on a busy machine; the totals bridge such gaps.)
        expect(way.readings.shards.shard0.at(-1)?.value).not.toBeNull();
      }
      const [ranged, presplit, hashed] = result.ways;

      // (a) one chunk on the primary shard takes every insert: the spread is the worst there is.
      expect(ranged.totals.perShard).toEqual({ shard0: DOCS, shard1: 0, shard2: 0 });
      expect(ranged.chunks.before?.perShard).toEqual({ shard0: 1, shard1: 0, shard2: 0 });
      expect(ranged.spread).toMatchObject({
        ratio: null,
        busiestShare: 1,
        busiest: { shard: 'shard0', inserts: DOCS },
      });
      expect(ranged.spread!.cv).toBeCloseTo(Math.SQRT2, 3);

      expect(wayMeasures(ranged)).toMatchObject({
        busiestSharePct: 100,
        busiestToIdlest: null,
        chunksAfter: 1,
        docsPerSec: ranged.import.docsPerSec,
      });

      // (b) one chunk per shard over [0, 64): g < 21.33 on shard0, < 42.67 on shard1, the rest on shard2.
      const expected = { shard0: 0, shard1: 0, shard2: 0 };
      for (let i = 0; i < DOCS; i++) {
        const g = i % 64;
        expected[g < 64 / 3 ? 'shard0' : g < 128 / 3 ? 'shard1' : 'shard2']++;
      }
      expect(presplit.totals.perShard).toEqual(expected);
      expect(presplit.chunks.before?.perShard).toEqual({ shard0: 1, shard1: 1, shard2: 1 });
      expect(presplit.chunks.after?.perShard).toEqual({ shard0: 1, shard1: 1, shard2: 1 });
      expect(presplit.spread!.cv).toBeLessThan(0.05);
      // Skipped by their checks: enableSharding (way (a) created the database) and the move to shard0 (its chunk starts there).
      const skippedByCheck = (c: Record<string, unknown>) =>
        'enableSharding' in c || ('moveChunk' in c && c.to === 'shard0');
      expect(presplit.setup.map((s) => s.status)).toEqual(
        presplit.setup.map((s) => (skippedByCheck(s.command) ? 'skipped' : 'applied')),
      );

      // (c) hashed _id: two chunks per shard to start with, every shard busy.
      expect(hashed.chunks.before?.perShard).toEqual({ shard0: 2, shard1: 2, shard2: 2 });
      expect(Object.values(hashed.totals.perShard).every((n) => n > DOCS / 6)).toBe(true);
      expect(hashed.spread!.cv).toBeLessThan(0.5);

      // Each way's per-second series: one point per reading after the first, per shard.
      for (const way of result.ways) {
        for (const id of way.shards)
          expect(way.perSecond.shards[id]).toHaveLength(way.readings.shards[id].length - 1);
        const fromRates = way.perSecond.mongos.reduce(
          (sum, p) => sum + (p.perSec ?? 0) * (p.seconds ?? 0),
          0,
        );
        expect(Math.abs(fromRates - DOCS)).toBeLessThan(DOCS * 0.01);
      }

      // The setup sent was the plan's: the changing commands of way (b), in order, minus the step its check skipped.
      const version = parseServerVersion(result.target.serverVersion);
      const settings = resolvePresplitImportOptions({ uri: cluster.mongos.uri, ...SMALL });
      const planned = waySetupSteps('presplit', settings, {
        shardIds: ['shard0', 'shard1', 'shard2'],
        serverVersion: version,
      }).steps;
      const sent = cluster.mongos
        .userCommands()
        .filter((c) => isChangingCommand(c) || c.name === 'split');
      const presplitSent = sent.filter(
        (c) =>
          ['split', 'moveChunk', 'balancerStop'].includes(c.name) ||
          (c.name === 'update' && c.db === 'config'),
      );
      const plannedChanging = planned.filter(
        (s) =>
          ['split', 'moveChunk', 'balancerStop', 'update'].some((k) => k in s.command) &&
          !s.expectSkip,
      );
      expect(presplitSent.map((c) => c.body)).toEqual(plannedChanging.map((s) => s.command));
      // Before each way: the collection dropped, the balancer started, the chunk size back to the default.
      expect(presplit.housekeeping.map((h) => Object.keys(h.command)[0])).toEqual([
        'drop',
        'balancerStart',
        'delete',
      ]);
      // And afterwards the cluster is as it was found: balancer on, no chunk size setting, no collection.
      expect(cluster.state.balancerMode).toBe('full');
      expect(cluster.state.settings.has('chunksize')).toBe(false);
      expect(cluster.state.collections.has(settings.ns)).toBe(false);

      // Progress: every way announced, its setup steps and import progress reported.
      expect(events.filter((e) => e.kind === 'way').map((e) => (e as { way: string }).way)).toEqual(
        ['ranged', 'presplit', 'hashed'],
      );
      const last = events.filter((e) => e.kind === 'import').pop() as {
        inserted: number;
        total: number;
      };
      expect(last).toMatchObject({ inserted: DOCS, total: DOCS });

      // The report: JSON (reloadable), a per-shard chart per way, the total chart, summary.md.
      const dir = path.join(tmp, 'report');
      const files = await writePresplitImportReport(result, dir);
      expect(files.map((f) => path.basename(f)).sort()).toEqual(
        [
          'hashed-per-shard.png',
          'presplit-import.json',
          'presplit-per-shard.png',
          'ranged-per-shard.png',
          'summary.md',
          'total.png',
        ].sort(),
      );
      for (const png of files.filter((f) => f.endsWith('.png')))
        expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
      expect(await loadPresplitImportResult(path.join(dir, 'presplit-import.json'))).toEqual(
        JSON.parse(JSON.stringify(result)),
      );
      const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
      expect(summary).toContain('Test double');
      expect(summary).toMatch(
        /\| \(a\) ranged key, no pre-split, balancer on \| complete \| 6,400 \|/,
      );
      expect(summary).toContain('∞ (shard1 took none)');
      expect(summary).toContain(
        '`mongo-bench scripts --topology sharded --shards 3 --db mongo_bench --collection presplit_import --shard-key g --presplit 0:64 --chunk-size 1024 --stop-balancer --server-version 7.0.0`',
      );
    } finally {
      await cluster.stop();
    }
  });

  it('stops when interrupted, keeps what it measured, and records a shard that does not answer as gaps', async () => {
    const cluster = await startFakeShardedCluster({
      shards: 2,
      // shard1 answers its first serverStatus only.
      shardServerStatus: (shard, call) =>
        shard.id === 'shard1' && call > 1
          ? { ok: 0, code: 1, codeName: 'InternalError', errmsg: 'serverStatus failed' }
          : undefined,
    });
    const controller = new AbortController();
    try {
      const result = await runPresplitImport(
        {
          uri: cluster.mongos.uri,
          ...SMALL,
          docs: 100_000,
          batchSize: 100,
          writers: 1,
          ways: ['presplit', 'hashed'],
        },
        {
          signal: controller.signal,
          onEvent: (e) => {
            if (e.kind === 'import' && e.inserted >= 2000) controller.abort();
          },
        },
      );
      expect(result.complete).toBe(false);
      expect(result.incompleteReason).toMatch(
        /way presplit interrupted after \d+ of 100000 documents; not run: hashed/,
      );
      expect(result.ways).toHaveLength(1);
      const [way] = result.ways;
      expect(way.complete).toBe(false);
      expect(way.import.insertedDocs).toBeGreaterThanOrEqual(2000);
      expect(way.import.insertedDocs).toBeLessThan(100_000);
      expect(way.totals.shardsSum).toBeLessThanOrEqual(way.import.insertedDocs);
      expect(way.totals.perShard.shard0).toBe(cluster.shards[0].inserts);
      // shard1 answered once: no rate at all, every later reading a gap, and a warning says so.
      expect(way.gaps.shard1).toBe(way.readings.shards.shard1.length - 1);
      expect(way.perSecond.shards.shard1.every((p) => p.perSec === null)).toBe(true);
      expect(result.warnings.some((w) => w.startsWith('way presplit: shard1 missed'))).toBe(true);
      expect(way.chunks.after?.perShard).toEqual({ shard0: 1, shard1: 1 });

      const files = await writePresplitImportReport(result, path.join(tmp, 'interrupted'));
      expect(files.some((f) => f.endsWith('presplit-per-shard.png'))).toBe(true);
      expect(readFileSync(path.join(tmp, 'interrupted', 'summary.md'), 'utf8')).toContain(
        '**Incomplete:**',
      );
    } finally {
      await cluster.stop();
    }
  });

  it('refuses a server that is not a mongos', async () => {
    const cluster = await startFakeShardedCluster({ shards: 1 });
    try {
      const shardUri = cluster.shards[0].server.uri + '/?directConnection=true';
      await expect(runPresplitImport({ uri: shardUri })).rejects.toThrow(RunError);
      await expect(runPresplitImport({ uri: shardUri })).rejects.toThrow(
        /is not a mongos: presplit-import needs a sharded cluster's router/,
      );
      expect(existsSync(tmp)).toBe(true);
    } finally {
      await cluster.stop();
    }
  });
});
