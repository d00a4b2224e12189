/**
 * runMatrix: get the target (an existing --uri, or a server started as `mongo-bench run` starts it, once
 * for the whole matrix and stopped at the end, also on failure and interrupt), connect, ask the target
 * what it can do, then run the configurations one after another.
 * A configuration the target cannot honour is a "skipped" row with the reason. matrix.json is rewritten
 * atomically after every configuration; the combined report (summary.md, results.csv, bar charts) is
 * written at the end, also when the run was cut short. Progress leaves through hooks.onEvent.
 * This file is the outline; each phase is a module of its own: matrix-connection (connect, claim the
 * collections, close), target-probe, open-matrix, run-configurations and finish-matrix, sharing one
 * MatrixSession (matrix-session).
 */
import { assertWritableDir } from '../common/dir-check';
import { fileEntries, FileWrites } from '../common/file-plan';
import { resolve } from 'node:path';
import { EXIT, RunError, UsageError } from '../config/errors';
import { CommandLog } from '../deployment/command-log';
import { toolInfo } from '../common/version';
import { messageOf } from '../common/values';
import { Target } from '../server/target';
import { finishMatrix, reportMatrix } from './finish-matrix';
import {
  claimCollections,
  closeConnection,
  connectToTarget,
  matrixGuard,
} from './matrix-connection';
import { MatrixDocument } from './matrix-document';
import { MatrixEvent, MatrixHooks } from './matrix-events';
import { abortReason } from './matrix-session';
import { acquireMatrixTarget, describeTarget } from './matrix-target';
import { openMatrix } from './open-matrix';
import { experimentOf, MatrixPlan, MatrixRunOptions, planMatrix } from './plan';
import { runConfigurations } from './run-configurations';
import { probeCapabilities } from './target-probe';
import { matrixFileNames } from './matrix-files';

export type { MatrixEvent, MatrixHooks } from './matrix-events';
export { JOURNAL_NOTE, MAPPING_NOTE } from '../experiments/write-concern-notes';

export async function runMatrix(
  options: MatrixRunOptions,
  hooks: MatrixHooks = {},
): Promise<MatrixDocument> {
  const emit = (event: MatrixEvent) => hooks.onEvent?.(event);
  const plan = planMatrix(options);
  // Before anything starts or connects: an output folder nothing can be created under is refused (exit 2).
  assertWritableDir(options.outDir, 'option --out');
  // So is a file of the user's the matrix would replace, before command-log.txt, setup.js or the target.
  const files = FileWrites.check(
    fileEntries(options.outDir, matrixFileNames(options, plan), 'matrix'),
    options,
  );
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
    await files.record();
  }
}

/**
 * The matrix on a server that is there: connect, claim the experiment's collections, probe what the
 * target can do, open matrix.json, run the configurations, finish it, write the report; the client is
 * closed whatever happens.
 */
async function runOnTarget(
  server: Target,
  options: MatrixRunOptions,
  plan: MatrixPlan,
  hooks: MatrixHooks & { signal: AbortSignal },
  log: CommandLog,
  targetDescription: string,
): Promise<MatrixDocument> {
  const emit = (event: MatrixEvent) => hooks.onEvent?.(event);
  const experiment = experimentOf(options.definition);
  const { client, target } = await connectToTarget(server, options, plan, experiment, log);
  const guard = matrixGuard(server.origin, options);
  // The clean-up drops only what the guard allows: with consent once the collections were claimed.
  let rowGuard = guard;
  try {
    rowGuard = await claimCollections(client, options, experiment, plan, server.origin, guard);
    // The probes' scratch collections are not the experiment's: the guard as given, without its consent.
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
    const session = await openMatrix(
      {
        ...{ options, plan, experiment, log, emit, signal: hooks.signal, client, rowGuard },
        clientOptions: server.clientOptions,
      },
      { target, capabilities, description: targetDescription },
    );
    await runConfigurations(session);
    await finishMatrix(session);
    await reportMatrix(session);
    return session.doc;
  } finally {
    await closeConnection(client, experiment, options.db, rowGuard);
  }
}
