/**
 * The one object the phases of a matrix on a connected target share (opening, running the
 * configurations, finishing, reporting): what was asked, where it runs, and matrix.json as it fills.
 * The phases change only the document and `kept`.
 */
import { MongoClient, MongoClientOptions } from 'mongodb';
import { join } from 'node:path';
import { CommandLog } from '../deployment/command-log';
import { Experiment } from '../experiments/experiment';
import { GuardPolicy } from '../server/data-guard';
import { MATRIX_FILE, MatrixDocument, writeMatrixFile } from './matrix-document';
import { MatrixEvent } from './matrix-events';
import { MatrixPlan, MatrixRunOptions } from './plan';

export interface MatrixSession {
  /** As asked; `uri` is the acquired server's. */
  readonly options: MatrixRunOptions;
  readonly plan: MatrixPlan;
  readonly experiment: Experiment;
  readonly log: CommandLog;
  readonly emit: (event: MatrixEvent) => void;
  readonly signal: AbortSignal;
  readonly client: MongoClient;
  /** The options `client` was opened with (TLS, credentials): for a client of an experiment's own. */
  readonly clientOptions: MongoClientOptions;
  /** What each configuration may drop in --db (settled before anything was probed). */
  readonly rowGuard: GuardPolicy;
  /** What the experiment's prepare() learnt for every configuration. */
  readonly shared: Record<string, unknown> | undefined;
  /** matrix.json as it stands; it also holds the target and its capabilities. */
  readonly doc: MatrixDocument;
  /** What each configuration's first run kept for the experiment's finish(). */
  readonly kept: unknown[];
}

export function matrixPath(session: MatrixSession): string {
  return join(session.options.outDir, MATRIX_FILE);
}

/** Rewrites matrix.json atomically, so an interrupted run keeps what finished. */
export async function saveMatrix(session: MatrixSession): Promise<void> {
  await writeMatrixFile(matrixPath(session), session.doc);
}

/** The interrupt's reason in words: "SIGINT", "SIGTERM", an error's message, or "aborted". */
export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return typeof reason === 'string' ? reason : reason instanceof Error ? reason.message : 'aborted';
}

/** --trials N; 1 when not given. */
export function trialCount(session: MatrixSession): number {
  return session.options.trials ?? 1;
}
