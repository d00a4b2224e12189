/**
 * matrix.json: the combined, versioned document of a matrix run (schema "mongo-bench/matrix@1"),
 * rewritten atomically after every configuration so an interrupted run keeps what finished.
 */
import { readFile } from 'node:fs/promises';
import { writeJsonAtomically } from '../common/atomic-write';
import { ResultDocument } from '../result';
import { TargetCapabilities } from './target-probe';
import { ExperimentName, MatrixRow, MeasureDefinition } from './types';

export const MATRIX_SCHEMA = 'mongo-bench/matrix@1' as const;
export const MATRIX_FILE = 'matrix.json';

export interface MatrixDocument {
  schema: typeof MATRIX_SCHEMA;
  tool: { name: string; version: string };
  /** Preset or matrix-file name. */
  name: string;
  experiment: ExperimentName;
  source: string;
  complete: boolean;
  incompleteReason?: string;
  startedAt: string;
  finishedAt?: string;
  target: ResultDocument['target'];
  capabilities: TargetCapabilities;
  scale: number;
  scaleNote: string;
  /** False when the scaled parameter was given explicitly (the scale changed nothing). */
  scaleApplied: boolean;
  /** The experiment's parameters after defaults, scale and overrides (configurations may override some). */
  parameters: Record<string, unknown>;
  measures: MeasureDefinition[];
  /** --trials N (absent: 1): every configuration ran N times, in interleaved rounds. */
  trials?: number;
  rows: MatrixRow[];
  /** Things a reader must know (journaling, test double, how the old options map). */
  notes: string[];
}

/** The parameters every configuration shares; one a configuration overrides reads "varies". */
export function sharedParameters(
  doc: Pick<MatrixDocument, 'parameters' | 'rows'>,
): Array<[string, unknown]> {
  return Object.entries(doc.parameters).map(([key, value]) => {
    const differs = doc.rows.some(
      (r) =>
        r.parameters !== undefined && JSON.stringify(r.parameters[key]) !== JSON.stringify(value),
    );
    return [key, differs ? 'varies' : value];
  });
}

export async function writeMatrixFile(path: string, doc: MatrixDocument): Promise<void> {
  await writeJsonAtomically(path, doc);
}

export async function readMatrixDocument(path: string): Promise<MatrixDocument> {
  const doc = JSON.parse(await readFile(path, 'utf8')) as MatrixDocument;
  if (doc.schema !== MATRIX_SCHEMA)
    throw new Error(
      `${path}: not a ${MATRIX_SCHEMA} document (schema ${JSON.stringify(doc.schema)})`,
    );
  return doc;
}
