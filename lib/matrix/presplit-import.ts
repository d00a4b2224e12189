/**
 * The presplit-import experiment as matrix rows. Each configuration runs the experiment for its one
 * way (lib/experiments/presplit-import: reset, the way's setup from the topology plan, the import
 * with every shard sampled, the cluster put back), and writes the way's own report into its folder.
 * After the last row the ways are drawn together in comparison/ (per-shard charts sharing a y-axis top).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../config/errors';
import { redactUri } from '../security/redact';
import { formatOps } from '../report/format';
import { CommandLogEntry, formatCommandLogEntry } from '../topology/apply';
import { combineWayResults, whyNotCombinable } from '../experiments/presplit-import/combine';
import { PresplitImportEvent, runPresplitImport } from '../experiments/presplit-import/experiment';
import { wayMeasures } from '../experiments/presplit-import/measures';
import { PRESPLIT_IMPORT_DEFAULTS, PresplitImportInput, resolvePresplitImportOptions, WayName } from '../experiments/presplit-import/options';
import { PresplitImportResult } from '../experiments/presplit-import/result';
import { PRESPLIT_IMPORT_FILES, writePresplitImportReport } from '../experiments/presplit-import/write-report';
import { PresplitImportParameters } from './parameters';
import { describeWriteConcern } from './settings';
import { MatrixConfiguration, MatrixRow } from './types';

export const COMMAND_LOG_FILE = 'command-log.txt';
export const COMPARISON_DIR = 'comparison';

/** The experiment's input for one configuration: the matrix's database, the configuration's way and write concern. */
export function presplitInput(uri: string, db: string, parameters: Record<string, unknown>, config: MatrixConfiguration): PresplitImportInput {
  const { way, ...rest } = parameters as PresplitImportParameters;
  const w = config.writeConcern?.w;
  return { uri, db, ...rest, ...(way ? { ways: [way] } : {}), ...(w !== undefined ? { w: w as number | 'majority' } : {}) };
}

/**
 * Checks a configuration before anything connects: one way, a write concern the import can send,
 * and the experiment's own checks (range, hashed key) with the configuration's path in the message.
 */
export function checkPresplitConfiguration(uri: string, db: string, parameters: Record<string, unknown>, config: MatrixConfiguration, where: string): void {
  if (parameters.way === undefined) throw new UsageError(`${where}.way: required: the way this configuration imports (ranged, presplit or hashed)`);
  const wc = config.writeConcern;
  if (wc && (wc.j !== undefined || wc.wtimeoutMS !== undefined || (wc.w !== undefined && typeof wc.w !== 'number' && wc.w !== 'majority'))) {
    throw new UsageError(`${where.replace(/\.parameters$/, '')}.writeConcern: presplit-import sends only w (a member count or "majority"), got ${JSON.stringify(wc)}`);
  }
  try {
    resolvePresplitImportOptions(presplitInput(uri, db, parameters, config), 'config');
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`${where}.${err.message.replace(/^config /, '')}`);
    throw err;
  }
}

/** What the experiment changes on the cluster, for the --setup refusal. */
export function setupRefusal(uri: string, db: string, parameters: Record<string, unknown>): string {
  const collection = (parameters.collection as string | undefined) ?? PRESPLIT_IMPORT_DEFAULTS.collection;
  return (
    `option --setup: required by presplit-import, which changes the data distribution of the existing cluster at ${redactUri(uri)}: ` +
    `before each way it drops ${db}.${collection}, shards it, splits and moves its chunks, sets the chunk size and stops or starts the balancer ` +
    '(the balancer mode and chunk size are put back afterwards). Add --setup to allow these changes.'
  );
}

/** The settings column: the way's setup in words. */
export function describeWay(parameters: Record<string, unknown>, config: MatrixConfiguration): string {
  const p = parameters as PresplitImportParameters;
  const wc = config.writeConcern ? `, ${describeWriteConcern(config.writeConcern)}` : '';
  const ways: Record<WayName, string> = {
    ranged: `ranged key ${p.shardKey}, one initial chunk, balancer on`,
    presplit: `ranged key ${p.shardKey} pre-split over ${p.range}, a chunk per shard, chunk size ${p.chunkSize} MB, balancer stopped`,
    hashed: `hashed key ${p.hashedKey}`,
  };
  return `${p.way ? ways[p.way] : 'no way given'}${wc}`;
}

export interface PresplitRunContext {
  uri: string;
  db: string;
  parameters: Record<string, unknown>;
  config: MatrixConfiguration;
  /** The configuration's folder (absolute or relative to the working directory) and its name in the matrix folder. */
  dir: string;
  relativeDir: string;
  serverSelectionTimeoutMS: number;
  testDouble: boolean;
  signal?: AbortSignal;
  progress: (text: string) => void;
}

export interface PresplitOutcome {
  status: MatrixRow['status'];
  reason?: string;
  measures: MatrixRow['measures'];
  details: Record<string, unknown>;
  resultFile: string;
  result: PresplitImportResult;
}

/** Progress while a way runs: each setup step as it ends, then about once a second the inserts so far and their rate. */
function progressPrinter(progress: (text: string) => void): (event: PresplitImportEvent) => void {
  let last = { inserted: 0, seconds: 0 };
  return (event) => {
    if (event.kind === 'setup' && event.status !== 'running') progress(`setup ${event.step}/${event.steps}: ${event.description} (${event.status})`);
    if (event.kind !== 'import') return;
    if (event.seconds === 0) last = { inserted: 0, seconds: 0 };
    const span = event.seconds - last.seconds;
    if (event.inserted === 0 || (span < 1 && event.inserted < event.total)) return;
    const rate = span > 0 ? (event.inserted - last.inserted) / span : 0;
    progress(`${event.way}: ${formatOps(event.inserted)} of ${formatOps(event.total)} documents inserted, ${formatOps(rate)} inserts/s (last ${span.toFixed(1)} s)`);
    last = { inserted: event.inserted, seconds: event.seconds };
  };
}

export async function runPresplitConfiguration(ctx: PresplitRunContext): Promise<PresplitOutcome> {
  await mkdir(ctx.dir, { recursive: true });
  const commands: CommandLogEntry[] = [];
  let result: PresplitImportResult;
  try {
    result = await runPresplitImport(presplitInput(ctx.uri, ctx.db, ctx.parameters, ctx.config), {
      signal: ctx.signal,
      onEvent: progressPrinter(ctx.progress),
      onCommand: (entry) => commands.push(entry),
      clientOptions: { serverSelectionTimeoutMS: ctx.serverSelectionTimeoutMS },
      ...(ctx.testDouble ? { testDouble: 'the matrix target is a test double' } : {}),
    });
  } finally {
    if (commands.length > 0) await writeFile(join(ctx.dir, COMMAND_LOG_FILE), `${commands.map(formatCommandLogEntry).join('\n')}\n`).catch(() => undefined);
  }
  // The way's own report: presplit-import.json, its per-shard chart, the mongos total, summary.md.
  await writePresplitImportReport(result, ctx.dir);
  const resultFile = `${ctx.relativeDir}/${PRESPLIT_IMPORT_FILES.json}`;
  const way = result.ways[0];
  if (!way) return { status: 'interrupted', reason: result.incompleteReason ?? 'interrupted before the way began', measures: {}, details: {}, resultFile, result };
  const status: MatrixRow['status'] = way.error ? 'failed' : !way.complete && ctx.signal?.aborted ? 'interrupted' : 'ok';
  // A way stopped by its time limit is measured (rates and spread hold); the reason says it was cut short.
  const reason = way.error ?? way.incompleteReason;
  return {
    status,
    ...(reason ? { reason } : {}),
    measures: wayMeasures(way),
    details: {
      way: way.way,
      insertedDocs: way.import.insertedDocs,
      targetDocs: way.import.targetDocs,
      insertsPerShard: way.totals.perShard,
      chunksBefore: way.chunks.before?.perShard ?? null,
      chunksAfter: way.chunks.after?.perShard ?? null,
      scripts: `mongo-bench scripts ${way.scriptsArgs.join(' ')}`,
      warnings: result.warnings,
    },
    resultFile,
    result,
  };
}

/** comparison/: the ways drawn together, when they imported the same way into the same cluster. Returns a note for matrix.json. */
export async function writePresplitComparison(results: readonly PresplitImportResult[], outDir: string): Promise<string> {
  const why = whyNotCombinable(results);
  if (why) return `${COMPARISON_DIR}/ not written: ${why}.`;
  await writePresplitImportReport(combineWayResults(results), join(outDir, COMPARISON_DIR));
  return `${COMPARISON_DIR}/: the ways side by side: per-shard inserts/sec charts sharing one y-axis top, and the mongos total with a line per way.`;
}
