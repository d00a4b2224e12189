/**
 * Runs a workload's set-up steps (./setup-spec) through the driver, in order. As the shell helpers
 * mongo-perf's pre() functions call: dropping what is not there is not an error (`coll.drop()`
 * returns false, src/mongo/shell/collection.js, DBCollection.prototype.drop), nor is creating a
 * collection that exists (mongo-perf's initCollections relies on that, util/utils.js). Anything else
 * that fails stops the run with a message naming the step.
 */
import { Document, MongoClient, MongoServerError, WriteConcernSettings } from 'mongodb';
import { RunError } from '../config/errors';
import { SetupStep } from '../workload/language/setup-spec';
import { compileTemplate, TemplateScope } from '../workload/language/template';
import { dropCollection, dropDatabase, GuardPolicy } from '../server/data-guard';
import { messageOf } from '../common/values';

const NAMESPACE_NOT_FOUND = 26;
const NAMESPACE_EXISTS = 48;
const INDEX_NOT_FOUND = 27;

export interface SetupHooks {
  /** Template state for generated documents: client 0 with this seed (the same data every time). */
  randomSeed: number;
  writeConcern?: Record<string, unknown>;
  signal?: AbortSignal;
  /**
   * What a `drop` or `dropDatabase` step may destroy (lib/server/data-guard): a run gives its consent once
   * its write plan passed (lib/run/write-check.ts); default: only what mongo-bench loaded.
   */
  guard?: GuardPolicy;
}

const STRICT: GuardPolicy = { ours: false, consent: false, consentFlag: '--drop' };

/** A drop or dropDatabase step, through the guard (the dropped collection is marked as the tool's). */
async function runCommandStep(
  client: MongoClient,
  step: Extract<SetupStep, { kind: 'command' }>,
  guard: GuardPolicy,
): Promise<void> {
  const name = Object.keys(step.command)[0];
  if (name === 'drop')
    await dropCollection(client, step.db, String(step.command.drop), guard, { claim: true });
  else if (name === 'dropDatabase') await dropDatabase(client, step.db, guard);
  else await client.db(step.db).command(step.command);
}

export interface SetupOutcome {
  steps: number;
  documents: number;
  seconds: number;
  /** False when the signal stopped it. */
  complete: boolean;
}

function tolerated(step: SetupStep, err: unknown): boolean {
  if (step.kind !== 'command' || !(err instanceof MongoServerError)) return false;
  const name = Object.keys(step.command)[0];
  if (name === 'drop' || name === 'dropDatabase')
    return err.code === NAMESPACE_NOT_FOUND || /ns not found/i.test(err.message);
  if (name === 'dropIndexes')
    return err.code === NAMESPACE_NOT_FOUND || err.code === INDEX_NOT_FOUND;
  if (name === 'create')
    return err.code === NAMESPACE_EXISTS || /already exists/i.test(err.message);
  return false;
}

function describe(step: SetupStep): string {
  if (step.kind === 'command')
    return `command ${JSON.stringify(step.command).slice(0, 120)} on ${step.db}`;
  const n = step.kind === 'documents' ? step.documents.length : step.count;
  return `insert of ${n} document${n === 1 ? '' : 's'} into ${step.ns.db}.${step.ns.coll}`;
}

async function insertAll(
  client: MongoClient,
  step: Extract<SetupStep, { kind: 'documents' | 'generate' }>,
  hooks: SetupHooks,
): Promise<number> {
  const coll = client.db(step.ns.db).collection(step.ns.coll);
  const wc = hooks.writeConcern ? { writeConcern: hooks.writeConcern as WriteConcernSettings } : {};
  // insertMany splits a batch by the server's size limits (large documents in a pre() exceed 16 MB per command).
  const send = async (documents: Document[]) => {
    await coll.insertMany(documents, { ordered: true, ...wc });
  };
  if (step.kind === 'documents') {
    for (let i = 0; i < step.documents.length && !hooks.signal?.aborted; i += 1000)
      await send(step.documents.slice(i, i + 1000).map((d) => ({ ...d })));
    return step.documents.length;
  }
  const scope = new TemplateScope();
  const make = compileTemplate(step.doc, 'setup', scope);
  const state = scope.newClientState(0, hooks.randomSeed);
  let made = 0;
  while (made < step.count && !hooks.signal?.aborted) {
    const batch: Document[] = [];
    for (const end = Math.min(step.count, made + step.batchSize); made < end; made++)
      batch.push({ ...(make(state) as Document) });
    await send(batch);
  }
  return made;
}

export async function runSetup(
  client: MongoClient,
  steps: SetupStep[],
  hooks: SetupHooks,
): Promise<SetupOutcome> {
  const started = performance.now();
  let documents = 0;
  for (let i = 0; i < steps.length; i++) {
    if (hooks.signal?.aborted)
      return {
        steps: i,
        documents,
        seconds: (performance.now() - started) / 1000,
        complete: false,
      };
    const step = steps[i];
    try {
      if (step.kind === 'command') await runCommandStep(client, step, hooks.guard ?? STRICT);
      else documents += await insertAll(client, step, hooks);
    } catch (err) {
      if (tolerated(step, err)) continue;
      throw new RunError(
        `set-up step ${i + 1} of ${steps.length} (${describe(step)}) failed: ${messageOf(err)}`,
      );
    }
  }
  return {
    steps: steps.length,
    documents,
    seconds: (performance.now() - started) / 1000,
    complete: !hooks.signal?.aborted,
  };
}
