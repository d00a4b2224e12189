/**
 * What follows a run once its result is written: keep it in the results store (--store), and map
 * the objectives' verdicts (--slo) to the exit code (99 when one failed). Shared by the run command
 * and the API's run(), so both keep and judge a result the same way.
 */
import type { ResultDocument } from '../result';
import { redactText } from '../security/redact';
import { sloOutcome } from '../slo/outcome';
import { openStore } from '../store';
import type { RunOutcome } from './execute';
import { messageOf } from '../common/values';

export interface AfterRunNotes {
  /** One line each: where the result was stored, or why it could not be. */
  note(text: string): void;
}

/** Stores the result (when there is one and a store is set) and applies the objectives' exit code. */
export async function afterRun(
  outcome: RunOutcome,
  store: string | undefined,
  notes: AfterRunNotes,
): Promise<RunOutcome> {
  let exitCode = outcome.exitCode;
  let message = outcome.message;
  if (store !== undefined && outcome.result && outcome.result.steps.length > 0) {
    try {
      const kept = await keepResult(store, outcome.result);
      notes.note(
        `${kept.created ? 'stored' : 'already stored'} in ${kept.description} (${kept.id})`,
      );
    } catch (err) {
      const why = redactText(messageOf(err));
      notes.note(`could not store the result in the results store: ${why}`);
      if (exitCode === 0) {
        exitCode = 1;
        message = `the result could not be stored (${why}); it is in ${outcome.outDir}/results.json`;
      }
    }
  }
  const slo = sloOutcome(outcome.result, exitCode);
  return {
    ...outcome,
    exitCode: slo.exitCode,
    ...(slo.message !== undefined
      ? { message: message ? `${message}; ${slo.message}` : slo.message }
      : message !== undefined
        ? { message }
        : {}),
  };
}

async function keepResult(
  spec: string,
  result: ResultDocument,
): Promise<{ description: string; id: string; created: boolean }> {
  const store = await openStore(spec);
  try {
    const put = await store.put(result);
    return { description: store.description, ...put };
  } finally {
    await store.close();
  }
}
