/**
 * The matrix's start on a probed target: the experiment prepares once, matrix.json is written with every
 * configuration not run yet and the notes a reader needs, and the phases get the session they share.
 */
import { Experiment } from '../experiments/experiment';
import { toolInfo } from '../common/version';
import { ResultDocument } from '../result';
import { MATRIX_SCHEMA, MatrixDocument } from './matrix-document';
import { MatrixSession, saveMatrix } from './matrix-session';
import { PlannedConfiguration } from './plan';
import { TargetCapabilities } from './target-probe';
import { MatrixRow } from './types';

/** The session before the experiment prepared and the document exists. */
export type SessionBase = Omit<MatrixSession, 'shared' | 'doc' | 'kept'>;

/** What connecting and probing found. */
export interface FoundTarget {
  target: ResultDocument['target'];
  capabilities: TargetCapabilities;
  /** Where the server comes from, in words (matrix-target's describeTarget). */
  description: string;
}

export async function openMatrix(base: SessionBase, found: FoundTarget): Promise<MatrixSession> {
  const { experiment, plan, emit } = base;
  const prepared =
    (await experiment.prepare?.(
      base.client,
      plan.configurations.map((p) => p.parameters),
    )) ?? {};
  for (const text of prepared.progress ?? []) emit({ type: 'note', text });
  const doc = firstDocument(base, found, [
    ...notesFor(experiment, found.target),
    `Target: ${found.description}; command-log.txt and setup.js say what was started and applied.`,
    ...(prepared.notes ?? []),
  ]);
  for (const note of doc.notes) emit({ type: 'note', text: `note: ${note}` });
  const session: MatrixSession = { ...base, shared: prepared.shared, doc, kept: [] };
  await saveMatrix(session);
  return session;
}

/** matrix.json before anything ran: every row "not-run". */
function firstDocument(base: SessionBase, found: FoundTarget, notes: string[]): MatrixDocument {
  const { options, plan, experiment } = base;
  const { definition } = options;
  return {
    schema: MATRIX_SCHEMA,
    tool: toolInfo(),
    name: definition.name,
    experiment: definition.experiment,
    source: definition.source,
    complete: false,
    startedAt: new Date().toISOString(),
    target: found.target,
    capabilities: found.capabilities,
    scale: options.scale,
    scaleNote: plan.scaleNote,
    scaleApplied: plan.scaleApplied,
    parameters: plan.parameters,
    measures: experiment.measures,
    rows: plan.configurations.map(pendingRow),
    notes,
  };
}

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
