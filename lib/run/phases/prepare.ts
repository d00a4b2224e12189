/**
 * Preparing the data a step starts from: the workload's own set-up, else the built-in loader
 * (--docs-like's template sampled once), else (--no-load) a warning, once, about the namespaces the
 * workload reads that hold nothing. Once before the sweep, or before every trial with
 * --reset each-step.
 */
import type { WriteConcernSettings } from 'mongodb';
import { loadData } from '../../prepare/loader';
import { runSetup } from '../../prepare/setup';
import { emptyNamespaces, emptyNamespacesAdvice } from '../../prepare/empty-namespaces';
import { resolveDocsLike } from '../../prepare/docs-like';
import { parseNamespace } from '../../workload/language/op-spec';
import { setupFor } from '../../workload/language/setup-spec';
import type { SweepState } from './state';

/** Prepares the data before the first step, in its turn (hooks.turn). Returns why it stopped short, if it did. */
export async function prepareFirst(state: SweepState): Promise<string | undefined> {
  const { options, hooks } = state;
  const releasePrepare = hooks.turn
    ? await hooks.turn('prepare', options.clients[0], 0)
    : undefined;
  return prepareData(state, options.clients[0]).finally(releasePrepare);
}

/**
 * The data a step starts from: the workload's own set-up, else the built-in loader (unless
 * --no-load). Returns why it stopped short, or undefined when done.
 */
export async function prepareData(state: SweepState, clients: number): Promise<string | undefined> {
  const { options, client, guard } = state;
  const { emit } = state.run;
  const signal = state.hooks.signal;
  if (options.setup) {
    const done = await runSetup(client, setupFor(options.setup, clients), {
      randomSeed: options.randomSeed,
      writeConcern: options.writeConcern,
      signal,
      guard,
    });
    emit({
      type: 'setup-done',
      clients,
      steps: done.steps,
      docs: done.documents,
      seconds: done.seconds,
    });
    return done.complete ? undefined : `interrupted during the set-up (${done.steps} steps done)`;
  }
  if (!options.load) {
    await warnEmptyOnce(state);
    return undefined;
  }
  return load(state);
}

/** --no-load: the namespaces the workload reads that hold nothing, said once a run. */
async function warnEmptyOnce(state: SweepState): Promise<void> {
  if (state.warnedEmpty) return;
  state.warnedEmpty = true;
  const empty = await emptyNamespaces(
    state.client,
    state.prepared.ops.map((op) => op.spec),
  );
  if (empty.length > 0)
    state.run.emit({
      type: 'empty-namespaces',
      namespaces: empty,
      advice: emptyNamespacesAdvice(empty),
    });
}

/** The built-in loader: --docs documents of --doc-size bytes (or like --docs-like's) into --ns. */
async function load(state: SweepState): Promise<string | undefined> {
  const { options, client, guard } = state;
  const { emit } = state.run;
  const ns = parseNamespace(options.ns, false)!;
  // --docs-like: sampled once, before the loader drops anything (the sample may be the load namespace itself).
  if (options.docsLike && !state.docsLike)
    state.docsLike = await resolveDocsLike(options.docsLike, client);
  const docsLike = state.docsLike;
  emit({
    type: 'load-start',
    ns: options.ns,
    docs: options.docs,
    docSize: options.docSize,
    batchSize: options.batchSize,
    ...(docsLike ? { like: docsLike.source } : {}),
  });
  const loaded = await loadData(
    client,
    {
      ns,
      docs: options.docs,
      docSize: options.docSize,
      batchSize: options.batchSize,
      writeConcern: toDriverWriteConcern(options.writeConcern),
      randomSeed: options.randomSeed,
      keepCollection: options.keepCollection,
      guard,
      ...(docsLike ? { documentTemplate: docsLike.template } : {}),
    },
    { onProgress: (p) => emit({ type: 'load-progress', ...p }), signal: state.hooks.signal },
  );
  emit({ type: 'load-done', docs: loaded.docs, seconds: loaded.seconds });
  return loaded.complete
    ? undefined
    : `interrupted while loading (${loaded.docs} of ${options.docs} documents)`;
}

function toDriverWriteConcern(
  wc: Record<string, unknown> | undefined,
): WriteConcernSettings | undefined {
  if (!wc) return undefined;
  const out: WriteConcernSettings = {};
  if (wc.w !== undefined) out.w = wc.w as WriteConcernSettings['w'];
  if (wc.j !== undefined) out.journal = Boolean(wc.j);
  const timeout = wc.wtimeoutMS ?? wc.wtimeout;
  if (timeout !== undefined) out.wtimeoutMS = Number(timeout);
  return out;
}
