/**
 * The presplit-import experiment: against an existing sharded cluster (a mongos URI), for each way
 * in turn: put the cluster back to a common start, apply the way's setup (the plan's
 * data-distribution steps, through applyPlan), read the chunk distribution, import while sampling
 * every shard's insert counter, read the chunk distribution again. Returns a result document; a
 * way cut short (signal, time limit, failure) still leaves what it measured in it.
 */
import { MongoClient, MongoClientOptions } from 'mongodb';
import { RunError } from '../../config/errors';
import { redactUri } from '../../security/redact';
import { applyPlan, CommandLogEntry, StepOutcome } from '../../topology/apply';
import { parseServerVersion, ServerVersion } from '../../topology/server-version';
import { toolInfo } from '../../common/version';
import { ChunkDistribution, readChunkDistribution } from './chunks';
import {
  ConnectShard,
  CounterSampler,
  CounterSource,
  driverShardConnector,
  insertCounterSource,
} from './counter-sources';
import { documentMaker, ImportDocument } from './documents';
import { ClusterBaseline, readBaseline, resetForWay, restoreBaseline } from './housekeeping';
import { importDocuments, ImportOutcome } from './importer';
import {
  PresplitImportInput,
  PresplitImportSettings,
  resolvePresplitImportOptions,
  WayName,
} from './options';
import {
  clientRates,
  CounterReading,
  counterTotal,
  peakRate,
  ratesFromReadings,
  round3,
  spreadOf,
} from './rates';
import { PRESPLIT_IMPORT_SCHEMA, PresplitImportResult, SetupStepRecord, WayResult } from './result';
import { listShards, ShardInfo } from '../../server-stats/shards';
import { WAY_DEFINITIONS, waySetupSteps, wayScriptsArgs } from './ways';
import { dropUndefined, messageOf } from '../../common/values';
import { readConfigurationStorage } from '../storage-measures';

export type PresplitImportEvent =
  | { kind: 'way'; way: WayName; index: number; ways: number }
  | {
      kind: 'setup';
      way: WayName;
      step: number;
      steps: number;
      description: string;
      status: 'running' | StepOutcome['status'];
    }
  | { kind: 'import'; way: WayName; inserted: number; total: number; seconds: number }
  | { kind: 'way-done'; way: WayName; result: WayResult };

export interface PresplitImportHooks {
  signal?: AbortSignal;
  onEvent?: (event: PresplitImportEvent) => void;
  /** Every setup command applyPlan sends (for command-log.txt). */
  onCommand?: (entry: CommandLogEntry) => void;
  /** How to reach a shard's primary (default: the driver, through the shard's replica set). */
  connectShard?: ConnectShard;
  /** Options for the mongos client. */
  clientOptions?: MongoClientOptions;
  /** Marks the result as measured on a test double (tests). */
  testDouble?: string;
}

const SOURCE_MONGOS = 'mongos';

export async function runPresplitImport(
  input: PresplitImportInput,
  hooks: PresplitImportHooks = {},
): Promise<PresplitImportResult> {
  const settings = resolvePresplitImportOptions(input);
  const startedAt = new Date().toISOString();
  const client = new MongoClient(settings.uri, {
    serverSelectionTimeoutMS: 10_000,
    ...hooks.clientOptions,
  });
  const shardConnections: Array<ReturnType<ConnectShard>> = [];
  try {
    try {
      await client.connect();
    } catch (err) {
      throw new RunError(`cannot connect to ${redactUri(settings.uri)}: ${messageOf(err)}`);
    }
    const admin = client.db('admin');
    const hello = await admin.command({ hello: 1 });
    if (hello.msg !== 'isdbgrid') {
      throw new RunError(
        `${redactUri(settings.uri)} is not a mongos: presplit-import needs a sharded cluster's router (hello.msg is not "isdbgrid")`,
      );
    }
    const serverVersion = await detectVersion(client, settings);
    const shards = await listShards(admin);
    if (shards.length === 0)
      throw new RunError(
        `the cluster at ${redactUri(settings.uri)} has no shards (listShards is empty)`,
      );
    const baseline = await readBaseline(client);

    // One counter per shard primary, plus the router's.
    const connectShard = hooks.connectShard ?? driverShardConnector(settings.sampleIntervalMs);
    const sources: CounterSource[] = [
      insertCounterSource(SOURCE_MONGOS, (cmd) => admin.command(cmd)),
    ];
    for (const shard of shards) {
      const connection = connectShard(shard);
      shardConnections.push(connection);
      sources.push(insertCounterSource(shard.id, connection.command));
    }

    const ways: WayResult[] = [];
    const warnings: string[] = [];
    // Connect to every shard before the first baseline reading, so a slow first connection is not a gap.
    await Promise.all(
      shards.map((shard, i) =>
        shardConnections[i].command({ ping: 1 }).catch((err: unknown) => {
          warnings.push(
            `shard ${shard.id} (${shard.host}) did not answer a ping: ${messageOf(err)}; its series will have gaps`,
          );
        }),
      ),
    );
    let stopReason: string | undefined;
    for (const [index, way] of settings.ways.entries()) {
      if (hooks.signal?.aborted) {
        stopReason = 'interrupted';
        break;
      }
      hooks.onEvent?.({ kind: 'way', way, index, ways: settings.ways.length });
      const result = await runWay(way, {
        client,
        settings,
        serverVersion,
        shards,
        baseline,
        sources,
        hooks,
      });
      ways.push(result);
      hooks.onEvent?.({ kind: 'way-done', way, result });
      for (const [source, gaps] of Object.entries(result.gaps)) {
        if (gaps > 0)
          warnings.push(`way ${way}: ${source} missed ${gaps} reading(s) (gaps in its series)`);
      }
      if (!result.complete) {
        stopReason = result.error
          ? `way ${way} failed: ${result.error}`
          : `way ${way} ${result.incompleteReason ?? 'was cut short'}`;
        if (result.error || hooks.signal?.aborted) break;
      }
    }
    const notRun = settings.ways.filter((w) => !ways.some((r) => r.way === w));
    if (notRun.length > 0) stopReason = `${stopReason ?? 'stopped'}; not run: ${notRun.join(', ')}`;

    const restored = await restoreBaseline(
      client,
      { db: settings.db, collection: settings.collection, keepData: settings.keepData },
      baseline,
      serverVersion,
    );
    warnings.push(...restored.warnings);

    const recordedSettings: Partial<PresplitImportSettings> = { ...settings };
    delete recordedSettings.uri; // the target records it without credentials
    return {
      schema: PRESPLIT_IMPORT_SCHEMA,
      tool: toolInfo(),
      startedAt,
      finishedAt: new Date().toISOString(),
      complete: stopReason === undefined && ways.every((w) => w.complete),
      ...dropUndefined({ incompleteReason: stopReason }),
      target: {
        uri: redactUri(settings.uri),
        serverVersion: serverVersion.text,
        shards: shards.map((s) => ({ id: s.id, host: s.host })),
        baseline,
        ...(hooks.testDouble ? { testDouble: hooks.testDouble } : {}),
      },
      settings: recordedSettings as Omit<PresplitImportSettings, 'uri'>,
      ways,
      warnings,
    };
  } finally {
    await Promise.all(shardConnections.map((c) => c.close().catch(() => undefined)));
    await client.close();
  }
}

/** The version to plan for: the option, else buildInfo's (pre-release suffixes dropped). */
async function detectVersion(
  client: MongoClient,
  settings: PresplitImportSettings,
): Promise<ServerVersion> {
  if (settings.serverVersion) return parseServerVersion(settings.serverVersion);
  const info = await client.db('admin').command({ buildInfo: 1 });
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(String(info.version ?? ''));
  if (!match)
    throw new RunError(
      `cannot tell the server version from buildInfo ("${String(info.version)}"); give --server-version`,
    );
  return parseServerVersion(`${match[1]}.${match[2]}.${match[3] ?? 0}`, 'buildInfo.version');
}

interface WayContext {
  client: MongoClient;
  settings: PresplitImportSettings;
  serverVersion: ServerVersion;
  shards: ShardInfo[];
  baseline: ClusterBaseline;
  sources: CounterSource[];
  hooks: PresplitImportHooks;
}

async function runWay(way: WayName, ctx: WayContext): Promise<WayResult> {
  const { client, settings, serverVersion, hooks } = ctx;
  const def = WAY_DEFINITIONS[way];
  const shardIds = ctx.shards.map((s) => s.id);
  const setup = waySetupSteps(way, settings, { shardIds, serverVersion });
  const setupRecords: SetupStepRecord[] = setup.steps.map((s, i) => ({
    step: i + 1,
    description: s.description,
    db: s.db,
    command: s.command,
    status: 'not run',
  }));
  const partial: Omit<
    WayResult,
    | 'complete'
    | 'import'
    | 'readings'
    | 'perSecond'
    | 'totals'
    | 'gaps'
    | 'spread'
    | 'peakPerSec'
    | 'chunks'
  > = {
    way,
    letter: def.letter,
    title: def.title,
    description: def.description,
    scriptsArgs: wayScriptsArgs(way, settings, shardIds.length, serverVersion),
    housekeeping: [],
    setup: setupRecords,
    setupWarnings: setup.warnings,
    shards: shardIds,
  };
  let chunksBefore: ChunkDistribution | null = null;
  try {
    partial.housekeeping = await resetForWay(client, settings, ctx.baseline, serverVersion).catch(
      (err: unknown) => {
        throw new Error(`could not reset the cluster before the way: ${messageOf(err)}`);
      },
    );
    const runner = {
      command: (db: string, command: Record<string, unknown>) => client.db(db).command(command),
    };
    const outcomes = await applyPlan({ steps: setup.steps }, async () => runner, {
      onCommand: hooks.onCommand,
      onStep: (e) => {
        if (e.status !== 'running') setupRecords[e.step - 1].status = e.status;
        hooks.onEvent?.({ kind: 'setup', way, ...e });
      },
    });
    outcomes.forEach((o, i) => (setupRecords[i].status = o.status));
    chunksBefore = await readChunkDistribution(client, settings.ns, shardIds);
  } catch (err) {
    return finishWay(partial, settings, {
      chunksBefore,
      chunksAfter: null,
      readings: {},
      outcome: null,
      error: messageOf(err),
    });
  }

  const sampler = new CounterSampler(ctx.sources, { intervalMs: settings.sampleIntervalMs });
  await sampler.start();
  const makeDocument = documentMaker(settings.shardKey, settings.range, settings.docSize);
  const outcome = await importDocuments(
    client.db(settings.db).collection<ImportDocument>(settings.collection),
    {
      docs: settings.docs,
      batchSize: settings.batchSize,
      writers: settings.writers,
      makeDocument,
      maxSeconds: settings.maxSecondsPerWay,
      ...(settings.w !== undefined ? { writeConcern: { w: settings.w } } : {}),
    },
    {
      signal: hooks.signal,
      clock: () => sampler.now(),
      onProgress: (p) => hooks.onEvent?.({ kind: 'import', way, ...p }),
    },
  );
  const importEnd = sampler.now();
  const readings = await sampler.stop();
  let chunksAfter: ChunkDistribution | null = null;
  let error = outcome.error;
  try {
    chunksAfter = await readChunkDistribution(client, settings.ns, shardIds);
  } catch (err) {
    error ??= `could not read the chunk distribution after the import: ${messageOf(err)}`;
  }
  // What the import cost on disk, each shard's share too (after the sampler stopped: not in its counts).
  const storage = await readConfigurationStorage(client, settings.ns);
  return {
    ...finishWay(partial, settings, {
      chunksBefore,
      chunksAfter,
      readings,
      outcome,
      error,
      importEnd,
    }),
    ...(storage ? { storage } : {}),
  };
}

function finishWay(
  partial: Omit<
    WayResult,
    | 'complete'
    | 'import'
    | 'readings'
    | 'perSecond'
    | 'totals'
    | 'gaps'
    | 'spread'
    | 'peakPerSec'
    | 'chunks'
  >,
  settings: PresplitImportSettings,
  measured: {
    chunksBefore: ChunkDistribution | null;
    chunksAfter: ChunkDistribution | null;
    readings: Record<string, CounterReading[]>;
    outcome: ImportOutcome | null;
    error?: string;
    importEnd?: number;
  },
): WayResult {
  const { outcome, readings } = measured;
  const mongosReadings = readings[SOURCE_MONGOS] ?? [];
  const shardReadings: Record<string, CounterReading[]> = Object.fromEntries(
    partial.shards.map((id) => [id, readings[id] ?? []]),
  );
  const perShardRates = Object.fromEntries(
    partial.shards.map((id) => [id, ratesFromReadings(shardReadings[id])]),
  );
  const perShardTotals = Object.fromEntries(
    partial.shards.map((id) => [id, counterTotal(shardReadings[id]).total]),
  );
  const mongosTotal = counterTotal(mongosReadings);
  const intervalSec = settings.sampleIntervalMs / 1000;
  const client = outcome
    ? clientRates(outcome.acks, intervalSec, measured.importEnd ?? outcome.seconds)
    : [];
  const mongos = ratesFromReadings(mongosReadings);
  const gaps: Record<string, number> = {};
  if (outcome) {
    gaps[SOURCE_MONGOS] = mongosTotal.gaps;
    for (const id of partial.shards) gaps[id] = counterTotal(shardReadings[id]).gaps;
  }
  const incompleteReason = measured.error
    ? 'failed'
    : outcome?.stoppedBy === 'signal'
      ? `interrupted after ${outcome.inserted} of ${settings.docs} documents`
      : outcome?.stoppedBy === 'time-limit'
        ? `stopped at the ${settings.maxSecondsPerWay} s time limit after ${outcome.inserted} of ${settings.docs} documents`
        : undefined;
  const complete = outcome !== null && outcome.complete && measured.error === undefined;
  return {
    ...partial,
    complete,
    ...(incompleteReason && !complete ? { incompleteReason } : {}),
    ...(measured.error ? { error: measured.error } : {}),
    import: {
      targetDocs: settings.docs,
      insertedDocs: outcome?.inserted ?? 0,
      batches: outcome?.batches ?? 0,
      seconds: outcome?.seconds ?? 0,
      docsPerSec: outcome && outcome.seconds > 0 ? round3(outcome.inserted / outcome.seconds) : 0,
    },
    chunks: { before: measured.chunksBefore, after: measured.chunksAfter },
    readings: { mongos: mongosReadings, shards: shardReadings },
    perSecond: { shards: perShardRates, mongos, client },
    totals: {
      perShard: perShardTotals,
      shardsSum: Object.values(perShardTotals).reduce((a, b) => a + b, 0),
      mongos:
        mongosTotal.coveredSeconds > 0 || mongosReadings.filter((r) => r.value !== null).length >= 2
          ? mongosTotal.total
          : null,
      client: outcome?.inserted ?? 0,
    },
    gaps,
    spread: outcome ? spreadOf(perShardTotals) : null,
    peakPerSec: {
      shards: Object.fromEntries(partial.shards.map((id) => [id, peakRate(perShardRates[id])])),
      mongos: peakRate(mongos),
      client: peakRate(client),
    },
  };
}
