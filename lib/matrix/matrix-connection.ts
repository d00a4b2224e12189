/**
 * The matrix's client on its target: opened with a pool for the configuration that needs the most
 * connections, the experiment's collections checked by the write plan (matrix-write-plan.ts) before
 * anything is probed or written, and closed once the experiment has cleaned up.
 */
import { MongoClient } from 'mongodb';
import { CommandLog } from '../deployment/command-log';
import { Experiment } from '../experiments/experiment';
import { ResultDocument } from '../result';
import { redactUri } from '../security/redact';
import { connectTarget } from '../server/connect';
import { GuardPolicy, guardPolicy } from '../server/data-guard';
import { checkRunWrites } from '../run/write-check';
import { matrixWritePlan } from './matrix-write-plan';
import { Target } from '../server/target';
import { MatrixPlan, MatrixRunOptions } from './plan';

export interface MatrixConnection {
  client: MongoClient;
  target: ResultDocument['target'];
}

/** Connects to `server` (options.uri is its URI) and opens command-log.txt in the output folder. */
export async function connectToTarget(
  server: Target,
  options: MatrixRunOptions,
  plan: MatrixPlan,
  experiment: Experiment,
  log: CommandLog,
): Promise<MatrixConnection> {
  const maxClients = Math.max(
    1,
    ...plan.configurations.map((p) => experiment.clientsNeeded?.(p.parameters) ?? 1),
  );
  log.note(`connecting to ${redactUri(options.uri)}`);
  const { client, target } = await connectTarget(server.uri, {
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
    maxClients,
    testDouble: options.testDouble,
    clientOptions: server.clientOptions,
  });
  // The server was reached: the folder now holds command-log.txt (and setup.js at the end).
  log.open();
  return { client, target };
}

/** What the experiments may drop in --db: on --uri only what mongo-bench loaded, unless --drop. */
export function matrixGuard(origin: Target['origin'], options: MatrixRunOptions): GuardPolicy {
  return guardPolicy(
    origin,
    options.drop === true,
    '--drop',
    `the experiments' collections in ${options.db} are replaced whatever they hold`,
  );
}

/**
 * Checks the matrix's write plan (matrix-write-plan.ts: the experiment's collections and the probes') by the
 * run's one rule, and returns the guard its configurations run under. Refused (exit 2, naming each
 * collection and --drop) unless each is absent or mongo-bench's, or --drop was given. Settled once here: its
 * rows then drop and refill the experiment's collections without asking again (a w:0 row on a server that
 * answers w:0 writes anyway, FerretDB, leaves the shared client reading shifted replies).
 */
export async function claimCollections(
  client: MongoClient,
  options: Pick<MatrixRunOptions, 'db' | 'drop' | 'allowSetup'>,
  experiment: Experiment,
  plan: Pick<MatrixPlan, 'configurations'>,
  origin: Target['origin'],
  guard: GuardPolicy,
): Promise<GuardPolicy> {
  const writes = matrixWritePlan(options, experiment, origin, plan.configurations);
  await checkRunWrites(client, writes);
  return writes.entries.some((e) => e.kind === 'namespace' && e.source === 'experiment')
    ? { ...guard, consent: true }
    : guard;
}

/** The experiment drops what it left behind, then the client closes (a failure to close is no failure). */
export async function closeConnection(
  client: MongoClient,
  experiment: Experiment,
  db: string,
  rowGuard: GuardPolicy,
): Promise<void> {
  await experiment.cleanUp?.(client, db, rowGuard);
  await client.close().catch(() => undefined);
}
