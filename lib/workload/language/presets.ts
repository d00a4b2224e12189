/**
 * Built-in workloads, as benchRun ops over the loader's documents (integer `_id` 0..docs-1).
 * `6to1` is the SoftLayer/10gen harness: six findOne by random _id to one update of a random document.
 * `ycsb-a`.. are YCSB's core workloads (./ycsb-workloads), over YCSB's records, which their own set-up
 * loads in place of the built-in loader (presetSetup).
 */
import { UsageError } from '../../config/errors';
import { closest } from '../../config/validate';
import { documentPaddingLength } from './documents';
import { parseNamespace } from './op-spec';
import type { WorkloadSetup } from './setup-spec';
import {
  isYcsbWorkloadName,
  YCSB_DESCRIPTIONS,
  YCSB_WORKLOAD_NAMES,
  ycsbOps,
  ycsbSetup,
} from './ycsb-workloads';

export const PRESET_NAMES = [
  '6to1',
  'read-only',
  'update-only',
  'insert-only',
  ...YCSB_WORKLOAD_NAMES,
] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

export interface PresetParams {
  /** "database.collection" of the loaded documents. */
  ns: string;
  /** How many documents were loaded: random `_id`s are drawn from [0, docs). */
  docs: number;
  /** Approximate BSON size of inserted documents (insert-only). */
  docSize: number;
}

export const PRESET_DESCRIPTIONS: Record<PresetName, string> = {
  '6to1':
    'six findOne by random _id : one update ($set a field, $inc a counter) of a random document',
  'read-only': 'findOne by random _id',
  'update-only': 'update ($set a field, $inc a counter) of a random document',
  'insert-only': 'insert a new document of about --doc-size bytes',
  ...YCSB_DESCRIPTIONS,
};

export function isPresetName(name: string): name is PresetName {
  return (PRESET_NAMES as readonly string[]).includes(name);
}

/** The preset's ops; throws a UsageError (naming --workload) for an unknown name. */
export function presetOps(name: string, params: PresetParams): Record<string, unknown>[] {
  if (!isPresetName(name)) {
    const suggestion = closest(name, PRESET_NAMES);
    throw new UsageError(
      `option --workload: unknown workload "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; presets: ${PRESET_NAMES.join(', ')}`,
    );
  }
  const { ns, docs } = params;
  if (isYcsbWorkloadName(name)) return ycsbOps(name, presetNamespace(ns), docs);
  const randomId = { _id: { '#RAND_INT': [0, docs] } };
  const findOne = { op: 'findOne', ns, query: randomId };
  const update = {
    op: 'update',
    ns,
    query: randomId,
    update: { $set: { touched: { '#RAND_INT': [0, 1_000_000_000] } }, $inc: { counter: 1 } },
  };
  switch (name) {
    case '6to1':
      // Separate objects per op, so editing one op of the result never changes another.
      return [findOne, findOne, findOne, findOne, findOne, findOne, update].map(
        (op) => JSON.parse(JSON.stringify(op)) as Record<string, unknown>,
      );
    case 'read-only':
      return [findOne];
    case 'update-only':
      return [update];
    default:
      return [
        {
          op: 'insert',
          ns,
          doc: {
            k: { '#RAND_INT': [0, Math.max(docs, 1)] },
            group: { '#RAND_INT': [0, 100] },
            counter: 0,
            pad: { '#RAND_STRING': [Math.max(1, documentPaddingLength(params.docSize))] },
          },
        },
      ];
  }
}

function presetNamespace(ns: string) {
  const parsed = parseNamespace(ns, false);
  if (!parsed) throw new UsageError(`option --ns: expected "database.collection", got "${ns}"`);
  return parsed;
}

/**
 * The set-up a preset loads its data with, in place of the built-in loader's documents: YCSB's records for
 * the ycsb-* presets (`docs` of them); undefined for the others (the built-in loader).
 */
export function presetSetup(
  name: string,
  params: PresetParams & { batchSize: number },
): WorkloadSetup | undefined {
  return isYcsbWorkloadName(name)
    ? ycsbSetup(presetNamespace(params.ns), params.docs, params.batchSize)
    : undefined;
}
