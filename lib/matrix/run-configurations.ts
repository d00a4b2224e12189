/**
 * The configurations, run round by round in the order trials.ts gives: each run is announced, skipped
 * when the target cannot honour it or else measured by the experiment, recorded in its row, announced
 * again, and matrix.json saved. Trial 1 of 1 fills its row as it always has; with --trials N each run is
 * a trial in its own folder and the row holds their medians. An interrupt stops before the next run.
 */
import { join } from 'node:path';
import { UsageError } from '../config/errors';
import { dropUndefined, messageOf } from '../common/values';
import { RunContext } from '../experiments/experiment';
import { skipReason } from './feasibility';
import { MatrixSession, saveMatrix, trialCount } from './matrix-session';
import { interleavedRounds, interleavingNote, summariseTrials, trialView } from './trials';
import { MatrixRow, MatrixTrial } from './types';

/** Which trial of how many a run is; undefined without --trials. */
type TrialOf = { trial: number; trials: number } | undefined;

export async function runConfigurations(session: MatrixSession): Promise<void> {
  const { doc } = session;
  const trials = trialCount(session);
  if (trials > 1) {
    doc.trials = trials;
    doc.notes.push(interleavingNote(trials));
  }
  for (const [round, order] of interleavedRounds(doc.rows.length, trials).entries()) {
    for (const i of order) {
      if (session.signal.aborted) break;
      // A configuration the target cannot run is skipped once, not once per round.
      if (round > 0 && doc.rows[i].status === 'skipped') continue;
      await runConfiguration(session, i, round);
    }
  }
}

/** One run of configuration i in round `round` (0-based). */
async function runConfiguration(session: MatrixSession, i: number, round: number): Promise<void> {
  const { doc, log, emit } = session;
  const total = doc.rows.length;
  const row = doc.rows[i];
  const trials = trialCount(session);
  const trial: TrialOf = trials > 1 ? { trial: round + 1, trials } : undefined;
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
  const skip = skipReason(
    session.plan.configurations[i].config,
    doc.capabilities,
    session.experiment,
  );
  const startedAt = new Date().toISOString();
  row.startedAt ??= startedAt;
  if (skip) {
    row.status = 'skipped';
    row.reason = skip;
  } else {
    recordRun(row, await measure(session, i, round, trial, startedAt), trial);
  }
  log.note(
    `[${i + 1}/${total}] ${row.label}${tag}: ${row.status}${row.reason ? ` (${row.reason})` : ''}`,
  );
  const shown =
    trial && row.trials ? { ...row, ...trialView(row.trials[row.trials.length - 1]) } : row;
  emit({ type: 'config-done', index: i, total, row: shown, ...trial });
  await saveMatrix(session);
}

/** The experiment's run of configuration i as a trial; any failure but a usage error is the trial's reason. */
async function measure(
  session: MatrixSession,
  i: number,
  round: number,
  trial: TrialOf,
  startedAt: string,
): Promise<MatrixTrial> {
  const row = session.doc.rows[i];
  const started = performance.now();
  let run: MatrixTrial;
  try {
    const outcome = await session.experiment.run(runContext(session, i, trial));
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
    if (outcome.kept !== undefined && round === 0) session.kept.push(outcome.kept);
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
  return run;
}

/** What the experiment gets for configuration i: the shared client, its folder, the row's guard. */
function runContext(session: MatrixSession, i: number, trial: TrialOf): RunContext {
  const { options, doc } = session;
  const planned = session.plan.configurations[i];
  const dir = trial ? `${planned.dir}/trial-${trial.trial}` : planned.dir;
  return {
    client: session.client,
    clientOptions: session.clientOptions,
    target: doc.target,
    shared: session.shared ?? {},
    signal: session.signal,
    matrixName: options.definition.name,
    uri: options.uri,
    db: options.db,
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
    testDouble: options.testDouble,
    config: planned.config,
    parameters: planned.parameters,
    dir: join(options.outDir, dir),
    relativeDir: dir,
    progress: (text) => session.emit({ type: 'config-progress', index: i, text }),
    guard: session.rowGuard,
  };
}

/** A run into its row: the row is the run, or with --trials N the medians of its trials so far. */
function recordRun(row: MatrixRow, run: MatrixTrial, trial: TrialOf): void {
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
