/**
 * runMatrix: get the target (an existing --uri, or a server started as `mongo-bench run` starts it, once
 * for the whole matrix and stopped at the end, also on failure and interrupt), connect, ask the target
 * what it can do, then run the configurations one after another.
 * A configuration the target cannot honour is a "skipped" row with the reason. matrix.json is rewritten
 * atomically after every configuration; the combined report (summary.md, results.csv, bar charts) is
 * written at the end, also when the run was cut short. Progress leaves through hooks.onEvent.
 */
import { join, resolve } from 'node:path';
import { EXIT, RunError, UsageError } from '../config/errors';
import { CommandLog } from '../run/artifacts';
import { redactUri } from '../security/redact';
import { writeReport } from '../report/write-report';
import { toolInfo } from '../version';
import { connectTarget } from '../workload/target';
import { ResultDocument } from '../metrics/result';
import { neededProbes, skipReason } from './feasibility';
import { MATRIX_FILE, MATRIX_SCHEMA, MatrixDocument, writeMatrixFile } from './matrix-document';
import { MEASURES } from './measures';
import { MatrixPlan, MatrixRunOptions, planMatrix, PlannedConfiguration } from './plan';
import { acquireMatrixTarget, AcquiredMatrixTarget, describeTarget } from './matrix-target';
import { COLLECTIONS, runConfiguration } from './run-configuration';
import { probeCapped, probeTopology, probeUnacknowledgedWrites, readServerMemory, TargetCapabilities } from './target-probe';
import { writePresplitComparison } from './presplit-import';
import { PresplitImportResult } from '../experiments/presplit-import/result';
import { MatrixRow } from './types';
import { writeMatrixReport } from './write-matrix-report';

export type MatrixEvent =
  | { type: 'planned'; name: string; experiment: MatrixRunOptions['definition']['experiment']; configurations: number; scale: number; scaleNote: string; parameters: Record<string, unknown>; outDir: string }
  | { type: 'connected'; target: ResultDocument['target']; capabilities: TargetCapabilities }
  | { type: 'note'; text: string }
  | { type: 'config-start'; index: number; total: number; label: string; settings: string }
  | { type: 'config-progress'; index: number; text: string }
  | { type: 'config-done'; index: number; total: number; row: MatrixRow }
  | { type: 'written'; files: string[] };

export interface MatrixHooks {
  onEvent?: (event: MatrixEvent) => void;
  signal?: AbortSignal;
}

export const JOURNAL_NOTE =
  'WiredTiger always journals: the old --journal switch has no off position today. FSYNC_SAFE and --journal map to j:true, which waits for the journal commit of each write; without j the journal is flushed about every 100 ms (storage.journal.commitIntervalMs).';
export const MAPPING_NOTE = 'Old driver options: NORMAL = w:0, SAFE = w:1, FSYNC_SAFE / --journal = j:true, REPLICA_SAFE(n) = w:n, slaveOk = readPreference "secondary".';

export const PRESPLIT_NOTE =
  "Each way starts from the same cluster state (the collection dropped, the balancer running, the chunk size as found) and the balancer mode and chunk size are put back after it. Each row's folder holds the way's per-shard inserts/sec chart, its presplit-import.json and the setup commands sent (command-log.txt).";

function notesFor(experiment: MatrixRunOptions['definition']['experiment'], target: ResultDocument['target']): string[] {
  const notes: string[] = [];
  if (target.testDouble) notes.push('The target is a TEST DOUBLE (not MongoDB): its figures show that the harness works, not how MongoDB performs.');
  if (experiment === 'most' || experiment === 'write-concern-latency') notes.push(JOURNAL_NOTE, MAPPING_NOTE);
  if (experiment === 'presplit-import') notes.push(PRESPLIT_NOTE);
  return notes;
}

function pendingRow(p: PlannedConfiguration): MatrixRow {
  return {
    label: p.config.label,
    ...(p.config.description ? { description: p.config.description } : {}),
    settings: p.settings,
    status: 'not-run',
    measures: {},
    group: p.group,
    series: p.series,
    parameters: p.parameters,
    details: { writeConcern: p.config.writeConcern ?? null, capped: p.config.capped ?? false, readPreference: p.config.readPreference ?? 'primary' },
  };
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return typeof reason === 'string' ? reason : reason instanceof Error ? reason.message : 'aborted';
}

export async function runMatrix(options: MatrixRunOptions, hooks: MatrixHooks = {}): Promise<MatrixDocument> {
  const emit = (event: MatrixEvent) => hooks.onEvent?.(event);
  const plan = planMatrix(options);
  const { definition } = options;
  emit({ type: 'planned', name: definition.name, experiment: definition.experiment, configurations: plan.configurations.length, scale: options.scale, scaleNote: plan.scaleNote, parameters: plan.parameters, outDir: options.outDir });

  const target = options.target ?? { kind: 'uri', uri: options.uri };
  const signal = hooks.signal ?? new AbortController().signal;
  const log = new CommandLog(options.outDir);
  const tool = toolInfo();
  const note = (text: string) => {
    log.note(text);
    emit({ type: 'note', text });
  };
  log.note(`${tool.name} ${tool.version} matrix ${definition.name} started; output ${resolve(options.outDir)}`);
  if (options.commandLine) log.line(`# command: ${options.commandLine}`);
  note(`target: ${describeTarget(target)}`);
  for (const w of options.targetWarnings ?? []) note(`warning: ${w}`);

  let acquired: AcquiredMatrixTarget | undefined;
  try {
    try {
      acquired = await acquireMatrixTarget(target, log, options.outDir, { signal, note });
    } catch (err) {
      if (signal.aborted && !(err instanceof UsageError)) {
        log.note(`interrupted (${abortReason(signal)}) before the first configuration`);
        throw new RunError(`interrupted (${abortReason(signal)}) while starting the target: nothing was measured; every process started was stopped`, signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint);
      }
      throw err;
    }
    const doc = await runOnTarget({ ...options, uri: acquired.uri }, plan, { ...hooks, signal }, log, describeTarget(target));
    log.note(`matrix ${doc.complete ? 'complete' : `incomplete: ${doc.incompleteReason ?? ''}`}`);
    return doc;
  } catch (err) {
    if (!(err instanceof RunError && (err.exitCode === EXIT.sigint || err.exitCode === EXIT.sigterm))) log.note(`failed: ${(err as Error).message}`);
    throw err;
  } finally {
    await acquired?.release();
    log.note('matrix finished');
  }
}

/** The matrix on a server that is there: connect, probe, run every configuration, write the report. */
async function runOnTarget(options: MatrixRunOptions, plan: MatrixPlan, hooks: MatrixHooks & { signal: AbortSignal }, log: CommandLog, targetDescription: string): Promise<MatrixDocument> {
  const emit = (event: MatrixEvent) => hooks.onEvent?.(event);
  const { definition } = options;
  const total = plan.configurations.length;
  const maxClients = Math.max(
    1,
    ...plan.configurations.map((p) => (definition.experiment === 'most' ? Number(p.parameters.writers) + Number(p.parameters.readers) : 1)),
  );
  log.note(`connecting to ${redactUri(options.uri)}`);
  const { client, target } = await connectTarget(options.uri, { serverSelectionTimeoutMS: options.serverSelectionTimeoutMS, maxClients, testDouble: options.testDouble });
  // The server was reached: the folder now holds command-log.txt (and setup.js at the end).
  log.open();
  try {
    const probes = neededProbes(plan.configurations.map((p) => p.config));
    const capabilities: TargetCapabilities = { topology: await probeTopology(client) };
    if (probes.capped) capabilities.capped = await probeCapped(client, options.db);
    if (probes.unacknowledgedWrites) capabilities.unacknowledgedWrites = await probeUnacknowledgedWrites(client, options.db);
    emit({ type: 'connected', target, capabilities });

    let memSizeMB: number | undefined;
    if (plan.configurations.some((p) => p.parameters.datasetRatio !== undefined)) {
      const memory = await readServerMemory(client);
      if (memory.memSizeMB === undefined) {
        throw new UsageError(`option --dataset-ratio: cannot size the data by the server's RAM: the server does not report it (${memory.source}); give --docs N instead`);
      }
      memSizeMB = memory.memSizeMB;
      emit({ type: 'note', text: `server RAM: ${memSizeMB} MiB (${memory.source})` });
    }

    const doc: MatrixDocument = {
      schema: MATRIX_SCHEMA,
      tool: toolInfo(),
      name: definition.name,
      experiment: definition.experiment,
      source: definition.source,
      complete: false,
      startedAt: new Date().toISOString(),
      target,
      capabilities,
      scale: options.scale,
      scaleNote: plan.scaleNote,
      scaleApplied: plan.scaleApplied,
      parameters: plan.parameters,
      measures: MEASURES[definition.experiment].measures,
      rows: plan.configurations.map(pendingRow),
      notes: [...notesFor(definition.experiment, target), `Target: ${targetDescription}; command-log.txt and setup.js say what was started and applied.`],
    };
    if (memSizeMB !== undefined) doc.notes.push(`Data sizes are ratios of the server's RAM: ${memSizeMB} MiB (hostInfo.system.memSizeMB).`);
    for (const note of doc.notes) emit({ type: 'note', text: `note: ${note}` });
    const matrixPath = join(options.outDir, MATRIX_FILE);
    const save = () => writeMatrixFile(matrixPath, doc);
    await save();

    const results: ResultDocument[] = [];
    const presplitResults: PresplitImportResult[] = [];
    for (let i = 0; i < total; i++) {
      if (hooks.signal?.aborted) break;
      const planned = plan.configurations[i];
      const row = doc.rows[i];
      log.note(`[${i + 1}/${total}] ${row.label} (${row.settings})`);
      emit({ type: 'config-start', index: i, total, label: row.label, settings: row.settings });
      row.startedAt = new Date().toISOString();
      const skip = skipReason(planned.config, capabilities, definition.experiment);
      if (skip) {
        row.status = 'skipped';
        row.reason = skip;
      } else {
        const started = performance.now();
        try {
          const outcome = await runConfiguration({
            client,
            options,
            target,
            planned,
            memSizeMB,
            signal: hooks.signal,
            progress: (text) => emit({ type: 'config-progress', index: i, text }),
          });
          row.status = outcome.status;
          if (outcome.reason) row.reason = outcome.reason;
          row.measures = outcome.measures;
          row.details = { ...row.details, ...outcome.details };
          if (outcome.result) {
            row.resultFile = `${planned.dir}/results.json`;
            if (outcome.result.steps.length > 0) results.push(outcome.result);
          }
          if (outcome.resultFile) row.resultFile = outcome.resultFile;
          if (outcome.presplitResult && outcome.presplitResult.ways.length > 0) presplitResults.push(outcome.presplitResult);
        } catch (err) {
          if (err instanceof UsageError) throw err;
          row.status = 'failed';
          row.reason = (err as Error).message;
        }
        row.seconds = Math.round((performance.now() - started) / 10) / 100;
      }
      log.note(`[${i + 1}/${total}] ${row.label}: ${row.status}${row.reason ? ` (${row.reason})` : ''}`);
      emit({ type: 'config-done', index: i, total, row });
      await save();
    }

    if (definition.experiment === 'softlayer' && results.length > 1) {
      // The four SoftLayer charts with one line per configuration.
      await writeReport(results, join(options.outDir, 'comparison'));
      doc.notes.push('comparison/: the SoftLayer charts with one line per configuration.');
    }
    if (definition.experiment === 'presplit-import' && presplitResults.length > 1) doc.notes.push(await writePresplitComparison(presplitResults, options.outDir));
    doc.finishedAt = new Date().toISOString();
    if (hooks.signal?.aborted) {
      doc.complete = false;
      doc.incompleteReason = `interrupted (${abortReason(hooks.signal)}) after ${doc.rows.filter((r) => r.status !== 'not-run').length} of ${total} configurations`;
      for (const row of doc.rows) if (row.status === 'not-run') row.reason = 'not run: the matrix was interrupted';
    } else {
      doc.complete = true;
    }
    await save();
    const files = await writeMatrixReport(doc, options.outDir);
    emit({ type: 'written', files: [matrixPath, ...files] });
    return doc;
  } finally {
    await client.db(options.db).collection(COLLECTIONS.latency).drop().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}
