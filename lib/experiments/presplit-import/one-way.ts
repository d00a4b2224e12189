/**
 * presplit-import as an Experiment: one configuration per way. Each runs the experiment for its one way
 * (reset, the way's setup from the topology plan, the import with every shard sampled, the cluster put
 * back) and writes the way's own report into its folder. After the last row the ways are drawn together
 * in comparison/ (per-shard charts sharing a y-axis top).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../config/errors';
import { redactUri } from '../../security/redact';
import { formatOps } from '../../report/format';
import { CommandLogEntry, formatCommandLogEntry } from '../../topology/apply';
import { describeWriteConcern } from '../configuration';
import { Experiment, MatrixConfiguration, RunContext, RunOutcome } from '../experiment';
import { docSize, positiveInt } from '../parameters';
import { combineWayResults, whyNotCombinable } from './combine';
import { PresplitImportEvent, runPresplitImport } from './experiment';
import { WAY_MEASURES, wayMeasures } from './measures';
import {
  PRESPLIT_IMPORT_DEFAULTS,
  PresplitImportInput,
  resolvePresplitImportOptions,
  WayName,
  WAYS,
} from './options';
import { PresplitImportResult } from './result';
import { WAY_DEFINITIONS, wayLabel } from './ways';
import {
  PRESPLIT_IMPORT_FILES,
  presplitImportReportFiles,
  writePresplitImportReport,
} from './write-report';

export const COMMAND_LOG_FILE = 'command-log.txt';
export const COMPARISON_DIR = 'comparison';

/** The experiment's own input names (options.ts), one way per configuration; the rest (range, hashed key) is checked by plan time. */
const PARAMETERS = z
  .object({
    way: z.enum(WAYS, { error: `expected one of ${WAYS.join(', ')}` }).optional(),
    docs: positiveInt('docs'),
    docSize: docSize(16 * 1024 * 1024 - 1024, 'docSize must be under 16 MiB (the BSON limit)'),
    batchSize: positiveInt('batchSize'),
    writers: positiveInt('writers'),
    shardKey: z.string().min(1, 'shardKey must not be empty'),
    range: z.string().min(1, 'range: expected MIN:MAX, e.g. 0:64'),
    chunkSize: z
      .number()
      .int('chunkSize must be an integer')
      .min(1, 'chunkSize must be from 1 to 1024 (MB)')
      .max(1024, 'chunkSize must be from 1 to 1024 (MB)'),
    hashedKey: z.string().min(1, 'hashedKey must not be empty'),
    sampleIntervalMs: z
      .number()
      .int()
      .min(100, 'sampleIntervalMs must be at least 100')
      .max(60_000, 'sampleIntervalMs must be at most 60000'),
    maxSecondsPerWay: z
      .number()
      .positive('maxSecondsPerWay must be > 0')
      .max(86_400, 'maxSecondsPerWay must be at most 86400'),
    collection: z.string().min(1, 'collection must not be empty'),
  })
  .strict();
type PresplitImportParameters = z.output<typeof PARAMETERS>;

/** The experiment's input for one configuration: the matrix's database, the configuration's way and write concern. */
export function presplitInput(
  uri: string,
  db: string,
  parameters: Record<string, unknown>,
  config: MatrixConfiguration,
): PresplitImportInput {
  const { way, ...rest } = parameters as PresplitImportParameters;
  const w = config.writeConcern?.w;
  return {
    uri,
    db,
    ...rest,
    ...(way ? { ways: [way] } : {}),
    ...(w !== undefined ? { w: w as number | 'majority' } : {}),
  };
}

/** Checked before anything connects: the experiment would change an existing cluster's distribution. */
function checkParameters(
  parameters: Record<string, unknown>,
  ctx: { uri: string; db: string; allowSetup: boolean },
): void {
  if (ctx.allowSetup) return;
  const collection =
    (parameters.collection as string | undefined) ?? PRESPLIT_IMPORT_DEFAULTS.collection;
  throw new UsageError(
    `option --setup: required by presplit-import, which changes the data distribution of the existing cluster at ${redactUri(ctx.uri)}: ` +
      `before each way it drops ${ctx.db}.${collection}, shards it, splits and moves its chunks, sets the chunk size and stops or starts the balancer ` +
      '(the balancer mode and chunk size are put back afterwards). Add --setup to allow these changes.',
  );
}

/** One way, a write concern the import can send, and the experiment's own checks (range, hashed key) with the configuration's path. */
function checkConfiguration(
  parameters: Record<string, unknown>,
  config: MatrixConfiguration,
  where: string,
  ctx: { uri: string; db: string },
): void {
  if (parameters.way === undefined)
    throw new UsageError(
      `${where}.way: required: the way this configuration imports (ranged, presplit or hashed)`,
    );
  const wc = config.writeConcern;
  if (
    wc &&
    (wc.j !== undefined ||
      wc.wtimeoutMS !== undefined ||
      (wc.w !== undefined && typeof wc.w !== 'number' && wc.w !== 'majority'))
  ) {
    throw new UsageError(
      `${where.replace(/\.parameters$/, '')}.writeConcern: presplit-import sends only w (a member count or "majority"), got ${JSON.stringify(wc)}`,
    );
  }
  try {
    resolvePresplitImportOptions(presplitInput(ctx.uri, ctx.db, parameters, config), 'config');
  } catch (err) {
    if (err instanceof UsageError)
      throw new UsageError(`${where}.${err.message.replace(/^config /, '')}`);
    throw err;
  }
}

/** The settings column: the way's setup in words. */
function describeWay(parameters: Record<string, unknown>, config: MatrixConfiguration): string {
  const p = parameters as PresplitImportParameters;
  const wc = config.writeConcern ? `, ${describeWriteConcern(config.writeConcern)}` : '';
  const ways: Record<WayName, string> = {
    ranged: `ranged key ${p.shardKey}, one initial chunk, balancer on`,
    presplit: `ranged key ${p.shardKey} pre-split over ${p.range}, a chunk per shard, chunk size ${p.chunkSize} MB, balancer stopped`,
    hashed: `hashed key ${p.hashedKey}`,
  };
  return `${p.way ? ways[p.way] : 'no way given'}${wc}`;
}

/** Progress while a way runs: each setup step as it ends, then about once a second the inserts so far and their rate. */
function progressPrinter(progress: (text: string) => void): (event: PresplitImportEvent) => void {
  let last = { inserted: 0, seconds: 0 };
  return (event) => {
    if (event.kind === 'setup' && event.status !== 'running')
      progress(`setup ${event.step}/${event.steps}: ${event.description} (${event.status})`);
    if (event.kind !== 'import') return;
    if (event.seconds === 0) last = { inserted: 0, seconds: 0 };
    const span = event.seconds - last.seconds;
    if (event.inserted === 0 || (span < 1 && event.inserted < event.total)) return;
    const rate = span > 0 ? (event.inserted - last.inserted) / span : 0;
    progress(
      `${event.way}: ${formatOps(event.inserted)} of ${formatOps(event.total)} documents inserted, ${formatOps(rate)} inserts/s (last ${span.toFixed(1)} s)`,
    );
    last = { inserted: event.inserted, seconds: event.seconds };
  };
}

async function run(ctx: RunContext): Promise<RunOutcome<PresplitImportResult>> {
  await mkdir(ctx.dir, { recursive: true });
  const commands: CommandLogEntry[] = [];
  let result: PresplitImportResult;
  try {
    result = await runPresplitImport(presplitInput(ctx.uri, ctx.db, ctx.parameters, ctx.config), {
      signal: ctx.signal,
      onEvent: progressPrinter(ctx.progress),
      onCommand: (entry) => commands.push(entry),
      clientOptions: { serverSelectionTimeoutMS: ctx.serverSelectionTimeoutMS },
      ...(ctx.target.testDouble === true
        ? { testDouble: 'the matrix target is a test double' }
        : {}),
    });
  } finally {
    if (commands.length > 0)
      await writeFile(
        join(ctx.dir, COMMAND_LOG_FILE),
        `${commands.map(formatCommandLogEntry).join('\n')}\n`,
      ).catch(() => undefined);
  }
  // The way's own report: presplit-import.json, its per-shard chart, the mongos total, summary.md.
  await writePresplitImportReport(result, ctx.dir);
  const resultFile = `${ctx.relativeDir}/${PRESPLIT_IMPORT_FILES.json}`;
  const way = result.ways[0];
  if (!way)
    return {
      status: 'interrupted',
      reason: result.incompleteReason ?? 'interrupted before the way began',
      measures: {},
      details: {},
      resultFile,
    };
  const status = way.error ? 'failed' : !way.complete && ctx.signal?.aborted ? 'interrupted' : 'ok';
  // A way stopped by its time limit is measured (rates and spread hold); the reason says it was cut short.
  const reason = way.error ?? way.incompleteReason;
  return {
    status,
    ...(reason ? { reason } : {}),
    measures: wayMeasures(way),
    details: {
      ...{
        way: way.way,
        insertedDocs: way.import.insertedDocs,
        targetDocs: way.import.targetDocs,
        insertsPerShard: way.totals.perShard,
      },
      ...{
        chunksBefore: way.chunks.before?.perShard ?? null,
        chunksAfter: way.chunks.after?.perShard ?? null,
      },
      ...{ scripts: `mongo-bench scripts ${way.scriptsArgs.join(' ')}`, warnings: result.warnings },
    },
    resultFile,
    kept: result,
  };
}

/** comparison/: the ways drawn together, when they imported the same way into the same cluster. Returns a note for matrix.json. */
async function finish(
  results: PresplitImportResult[],
  outDir: string,
): Promise<string | undefined> {
  if (results.length < 2) return undefined;
  const why = whyNotCombinable(results);
  if (why) return `${COMPARISON_DIR}/ not written: ${why}.`;
  await writePresplitImportReport(combineWayResults(results), join(outDir, COMPARISON_DIR));
  return `${COMPARISON_DIR}/: the ways side by side: per-shard inserts/sec charts sharing one y-axis top, and the mongos total with a line per way.`;
}

export const presplitImport: Experiment<PresplitImportResult> = {
  name: 'presplit-import',
  collectionsOf: (parameters) => [
    (parameters.collection as string | undefined) ?? PRESPLIT_IMPORT_DEFAULTS.collection,
  ],
  description:
    'Seeds 003/000 (Test Results 4-5): a bulk import into a sharded cluster (a mongos; needs --setup) three ways: ranged key, pre-split + balancer stopped, hashed key; inserts/sec on every shard over time, spread, chunks',
  parameters: PARAMETERS,
  sizing: {
    // MOST's sharded tests (seed 000, Test Results 4-5): 2^20 documents of 16 KiB in batches of 256; g = count & 63.
    full: {
      docs: 1_048_576,
      docSize: 16_384,
      batchSize: 256,
      writers: 6,
      shardKey: 'g',
      range: '0:64',
      chunkSize: 1024,
      hashedKey: '_id',
      sampleIntervalMs: 1000,
      maxSecondsPerWay: 600,
      collection: 'presplit_import',
    },
    scaled: 'docs',
    // 16,384 documents of 16 KiB = 256 MiB per way.
    defaultScale: 1 / 64,
    scaleNote: '--scale 1 = 1,048,576 documents of 16 KiB (16 GiB) per way, as the seed',
  },
  preset: WAYS.map((way) => ({
    label: wayLabel(way),
    description: WAY_DEFINITIONS[way].description,
    parameters: { way },
  })),
  needs: {
    topology: 'sharded',
    setup: {
      mayChange: 'each way may shard, split and move chunks and stop the balancer',
      loggedIn: 'logs its own setup per way in each row folder',
    },
  },
  checkParameters,
  checkConfiguration,
  describeSettings: describeWay,
  skipReason: ({ topology }) =>
    topology.kind === 'sharded'
      ? undefined
      : `not a mongos: presplit-import shards a collection and needs a sharded cluster's router; the target is a ${topology.kind === 'replicaSet' ? `replica set (${topology.setName})` : 'standalone'}`,
  run,
  files: {
    configuration: [COMMAND_LOG_FILE, ...presplitImportReportFiles()],
    finish: presplitImportReportFiles().map((name) => `${COMPARISON_DIR}/${name}`),
  },
  finish,
  measures: WAY_MEASURES,
  charts: [
    {
      file: 'import-inserts-per-sec.png',
      title: 'Import throughput by way',
      yTitle: 'documents/sec acknowledged (client)',
      measures: ['docsPerSec'],
      scale: 'linear',
    },
    {
      file: 'busiest-shard-share.png',
      title: "Busiest shard's share of the inserts by way",
      yTitle: 'inserts on the busiest shard (%)',
      measures: ['busiestSharePct'],
      scale: 'linear',
    },
    {
      file: 'spread-cv.png',
      title: 'Spread of the inserts over the shards by way',
      yTitle: 'coefficient of variation (0 = even)',
      measures: ['spreadCv'],
      scale: 'linear',
    },
  ],
  notes: [
    "Each way starts from the same cluster state (the collection dropped, the balancer running, the chunk size as found) and the balancer mode and chunk size are put back after it. Each row's folder holds the way's per-shard inserts/sec chart, its presplit-import.json and the setup commands sent (command-log.txt).",
  ],
  summaryLines: [
    "- Shares, spread and chunks come from each shard's serverStatus opcounters.insert and config.chunks. Spread (CV): 0 = every shard took the same share, sqrt(shards - 1) = one shard took everything; Busiest/idlest is – when the idlest shard took none.",
    "- Per-shard inserts/sec over time: each row's folder (one way), and comparison/ (the ways side by side, one y-axis top).",
  ],
};
