/**
 * runMatrix: get the target (an existing --uri, or a server started as `mongo-bench run` starts it, once
 * for the whole matrix and stopped at the end, also on failure and interrupt), connect, ask the target
 * what it can do, then run the configurations one after another.
 * A configuration the target cannot honour is a "skipped" row with the reason. matrix.json is rewritten
 * atomically after every configuration; the combined report (summary.md, results.csv, bar charts) is
 * written at the end, also when the run was cut short. Progress leaves through hooks.onEvent.
 */
import { assertWritableDir } from '../run/out-dir';
import { join, resolve } from 'node:path';
import { EXIT, RunError, UsageError } from '../config/errors';
import { CommandLog } from '../deployment/command-log';
import { toolInfo } from '../common/version';
import { ResultDocument } from '../result';
import { skipReason } from './feasibility';
import { MATRIX_FILE, MATRIX_SCHEMA, MatrixDocument, writeMatrixFile } from './matrix-document';
import { Experiment } from '../experiments/experiment';
import {
  experimentOf,
  MatrixPlan,
  MatrixRunOptions,
  planMatrix,
  PlannedConfiguration,
} from './plan';
import { acquireMatrixTarget, describeTarget } from './matrix-target';
import { Target } from '../server/target';
import { probeCapabilities } from './target-probe';
import { MatrixRow, MatrixTrial } from './types';
import { interleavedRounds, interleavingNote, summariseTrials, trialView } from './trials';
import { dropUndefined, messageOf } from '../common/values';
import { writeMatrixReport } from './write-matrix-report';
import {
  claimCollections,
  closeConnection,
  connectToTarget,
  matrixGuard,
} from './matrix-connection';
import { MatrixEvent, MatrixHooks } from './matrix-events';

export type { MatrixEvent, MatrixHooks } from './matrix-events';
export { JOURNAL_NOTE, MAPPING_NOTE } from '../experiments/write-concern-notes';

function notesFor(experiment: Experiment, target: ResultDocument['target']): string[] {
  const testDouble =
    'The target is a TEST DOUBLE (not MongoDB): its figures show that the harness works, not how MongoDB performs.';
  return [...(target.testDouble ? [testDouble] : []), ...(experiment.notes ?? [])];
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
    details: {
      writeConcern: p.config.writeConcern ?? null,
      capped: p.config.capped ?? false,
      readPreference: p.config.readPreference ?? 'primary',
    },
  };
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return typeof reason === 'string' ? reason : reason instanceof Error ? reason.message : 'aborted';
}

export async function runMatrix(
  options: MatrixRunOptions,
  hooks: MatrixHooks = {},
): Promise<MatrixDocument> {
  const emit = (event: MatrixEvent) => hooks.onEvent?.(event);
  const plan = planMatrix(options);
  // Before anything starts or connects: an output folder nothing can be created under is refused (exit 2).
  assertWritableDir(options.outDir, 'option --out');
  const { definition } = options;
  emit({
    type: 'planned',
    name: definition.name,
    experiment: definition.experiment,
    configurations: plan.configurations.length,
    scale: options.scale,
    scaleNote: plan.scaleNote,
    parameters: plan.parameters,
    outDir: options.outDir,
  });

  const target = options.target ?? { kind: 'uri', uri: options.uri };
  const signal = hooks.signal ?? new AbortController().signal;
  const log = new CommandLog(options.outDir);
  const tool = toolInfo();
  const note = (text: string) => {
    log.note(text);
    emit({ type: 'note', text });
  };
  log.note(
    `${tool.name} ${tool.version} matrix ${definition.name} started; output ${resolve(options.outDir)}`,
  );
  if (options.commandLine) log.line(`# command: ${options.commandLine}`);
  note(`target: ${describeTarget(target)}`);
  for (const w of options.targetWarnings ?? []) note(`warning: ${w}`);

  let acquired: Target | undefined;
  try {
    try {
      acquired = await acquireMatrixTarget(target, log, options.outDir, { signal, note });
    } catch (err) {
      if (signal.aborted && !(err instanceof UsageError)) {
        log.note(`interrupted (${abortReason(signal)}) before the first configuration`);
        throw new RunError(
          `interrupted (${abortReason(signal)}) while starting the target: nothing was measured; every process started was stopped`,
          signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint,
        );
      }
      throw err;
    }
    const doc = await runOnTarget(
      acquired,
      { ...options, uri: acquired.uri },
      plan,
      { ...hooks, signal },
      log,
      describeTarget(target),
    );
    log.note(`matrix ${doc.complete ? 'complete' : `incomplete: ${doc.incompleteReason ?? ''}`}`);
    return doc;
  } catch (err) {
    if (!(
      err instanceof RunError &&
      (err.exitCode === EXIT.sigint || err.exitCode === EXIT.sigterm)
    ))
      log.note(`failed: ${messageOf(err)}`);
    throw err;
  } finally {
    await acquired?.release();
    log.note('matrix finished');
  }
}

/** The matrix on a server that is there: connect, probe, run every configuration, write the report. */
async function runOnTarget(
  server: Target,
  options: MatrixRunOptions,
  plan: MatrixPlan,
  hooks: MatrixHooks & { signal: AbortSignal },
  log: CommandLog,
  targetDescription: string,
): Promise<MatrixDocument> {
  const emit = (event: MatrixEvent) => hooks.onEvent?.(event);
  const { definition } = options;
  const experiment = experimentOf(definition);
  const total = plan.configurations.length;
  const { client, target } = await connectToTarget(server, options, plan, experiment, log);
  const guard = matrixGuard(server.origin, options);
  let rowGuard = guard;
  try {
    rowGuard = await claimCollections(client, options.db, experiment, guard);
    const capabilities = await probeCapabilities(
      client,
      {
        uri: server.uri,
        clientOptions: server.clientOptions,
        serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
      },
      options.db,
      guard,
      plan.configurations.map((p) => p.config),
    );
    emit({ type: 'connected', target, capabilities });

    const prepared =
      (await experiment.prepare?.(
        client,
        plan.configurations.map((p) => p.parameters),
      )) ?? {};
    for (const text of prepared.progress ?? []) emit({ type: 'note', text });

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
      measures: experiment.measures,
      rows: plan.configurations.map(pendingRow),
      notes: [
        ...notesFor(experiment, target),
        `Target: ${targetDescription}; command-log.txt and setup.js say what was started and applied.`,
        ...(prepared.notes ?? []),
      ],
    };
    for (const note of doc.notes) emit({ type: 'note', text: `note: ${note}` });
    const matrixPath = join(options.outDir, MATRIX_FILE);
    const save = () => writeMatrixFile(matrixPath, doc);
    await save();

    const kept: unknown[] = [];
    const trials = options.trials ?? 1;
    if (trials > 1) {
      doc.trials = trials;
      doc.notes.push(interleavingNote(trials));
    }
    // One run of configuration i: trial 1 of 1 fills its row as it always has; with --trials N each run is a
    // trial in its own folder, and the row holds their medians.
    const runOne = async (i: number, round: number): Promise<void> => {
      const planned = plan.configurations[i];
      const row = doc.rows[i];
      const trial = trials > 1 ? { trial: round + 1, trials } : undefined;
      const tag = trial ? ` (trial ${trial.trial}/${trials})` : '';
      log.note(`[${i + 1}/${total}] ${row.label}${tag} (${row.settings})`);
      emit({
        type: 'config-start',
        index: i,
        total,
        label: row.label,
        settings: row.settings,
        ...trial,
      });
      const skip = skipReason(planned.config, capabilities, experiment);
      const startedAt = new Date().toISOString();
      row.startedAt ??= startedAt;
      if (skip) {
        row.status = 'skipped';
        row.reason = skip;
      } else {
        const started = performance.now();
        const dir = trial ? `${planned.dir}/trial-${trial.trial}` : planned.dir;
        let run: MatrixTrial;
        try {
          const outcome = await experiment.run({
            ...{
              client,
              target,
              shared: prepared.shared ?? {},
              signal: hooks.signal,
              matrixName: definition.name,
            },
            ...{
              uri: options.uri,
              db: options.db,
              serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
              testDouble: options.testDouble,
            },
            ...{
              config: planned.config,
              parameters: planned.parameters,
              dir: join(options.outDir, dir),
              relativeDir: dir,
            },
            progress: (text) => emit({ type: 'config-progress', index: i, text }),
            guard: rowGuard,
          });
          run = {
            trial: round + 1,
            startedAt,
            seconds: 0,
            status: outcome.status,
            measures: outcome.measures,
            ...dropUndefined({ reason: outcome.reason, resultFile: outcome.resultFile }),
          };
          row.details = { ...row.details, ...outcome.details };
          // The experiment draws its configurations together from one run of each: the first round's.
          if (outcome.kept !== undefined && round === 0) kept.push(outcome.kept);
        } catch (err) {
          if (err instanceof UsageError) throw err;
          run = {
            trial: round + 1,
            startedAt,
            seconds: 0,
            status: 'failed',
            reason: messageOf(err),
            measures: {},
          };
        }
        run.seconds = Math.round((performance.now() - started) / 10) / 100;
        if (trial) {
          row.trials = [...(row.trials ?? []), run];
          const summary = summariseTrials(row.trials);
          delete row.reason;
          delete row.resultFile;
          Object.assign(row, summary);
        } else {
          row.status = run.status;
          if (run.reason) row.reason = run.reason;
          row.measures = run.measures;
          if (run.resultFile) row.resultFile = run.resultFile;
          row.seconds = run.seconds;
        }
      }
      log.note(
        `[${i + 1}/${total}] ${row.label}${tag}: ${row.status}${row.reason ? ` (${row.reason})` : ''}`,
      );
      const shown =
        trial && row.trials ? { ...row, ...trialView(row.trials[row.trials.length - 1]) } : row;
      emit({ type: 'config-done', index: i, total, row: shown, ...trial });
      await save();
    };
    for (const [round, order] of interleavedRounds(total, trials).entries()) {
      for (const i of order) {
        if (hooks.signal?.aborted) break;
        // A configuration the target cannot run is skipped once, not once per round.
        if (round > 0 && doc.rows[i].status === 'skipped') continue;
        await runOne(i, round);
      }
    }

    // The experiment draws its configurations together (e.g. comparison/) and says so in a note.
    const finished = await experiment.finish?.(kept, options.outDir);
    if (finished) doc.notes.push(finished);
    doc.finishedAt = new Date().toISOString();
    if (hooks.signal?.aborted) {
      doc.complete = false;
      doc.incompleteReason = `interrupted (${abortReason(hooks.signal)}) after ${doc.rows.filter((r) => r.status !== 'not-run').length} of ${total} configurations`;
      for (const row of doc.rows)
        if (row.status === 'not-run') row.reason = 'not run: the matrix was interrupted';
    } else {
      doc.complete = true;
    }
    await save();
    const files = await writeMatrixReport(doc, options.outDir);
    emit({ type: 'written', files: [matrixPath, ...files] });
    return doc;
  } finally {
    await closeConnection(client, experiment, options.db, rowGuard);
  }
}
