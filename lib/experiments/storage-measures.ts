/**
 * What a configuration's collection cost on disk, for the experiments with their own runners (most,
 * write-concern-latency, presplit-import): read once the configuration's load is done and before its
 * collection is dropped (lib/server/storage-stats.ts: the same figures as a run's steps[].storage), kept
 * in the configuration's result document and shown in the matrix beside its throughput.
 */
import type { MongoClient } from 'mongodb';
import type { ResultDocument, StepStorage } from '../result';
import { readStorage } from '../server/storage-stats';
import type { MeasureDefinition } from './experiment';

/** The matrix's storage columns (bytes; absent where the server does not report the figure). */
export const STORAGE_MEASURES: MeasureDefinition[] = [
  {
    key: 'bytesPerDocument',
    csv: 'bytes_per_document',
    title: 'On disk per document',
    unit: 'bytes',
  },
  {
    key: 'indexBytesPerDocument',
    csv: 'index_bytes_per_document',
    title: 'Indexes per document',
    unit: 'bytes',
  },
];

/** The collection's storage now; undefined when it could not be read at all (never throws). */
export async function readConfigurationStorage(
  client: MongoClient,
  ns: string,
): Promise<StepStorage | undefined> {
  try {
    return await readStorage(client, ns);
  } catch {
    return undefined;
  }
}

/** The storage measures of one configuration (null: not read, or not reported). */
export function storageMeasures(
  storage: StepStorage | undefined,
): Record<'bytesPerDocument' | 'indexBytesPerDocument', number | null> {
  return {
    bytesPerDocument: storage?.bytesPerDocument ?? null,
    indexBytesPerDocument: storage?.indexBytesPerDocument ?? null,
  };
}

/** The result's (only) step gets the storage read for it. */
export function withStorage(
  result: ResultDocument,
  storage: StepStorage | undefined,
): ResultDocument {
  if (storage && result.steps.length > 0) result.steps[result.steps.length - 1].storage = storage;
  return result;
}
