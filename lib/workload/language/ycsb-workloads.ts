/**
 * YCSB's core workloads A-F (brianfrankcooper/YCSB, workloads/workloada..workloadf, run by
 * core/src/main/java/site/ycsb/workloads/CoreWorkload.java through the MongoDB binding,
 * mongodb/src/main/java/site/ycsb/db/MongoDbClient.java) as benchRun ops, and the set-up that loads
 * YCSB's records. Each value below names the property or code it comes from.
 *
 * Records (CoreWorkload defaults): `_id` "user" + FNV-64 hash of the key number 0..N-1 (buildKeyName;
 * insertorder=hashed, zeropadding=1), fields field0..field9 (fieldnameprefix=field, fieldcount=10), each
 * 100 characters (fieldlength=100, fieldlengthdistribution=constant). YCSB stores a field as 100 random
 * bytes (BSON binary, MongoDbClient.insert: `entry.getValue().toArray()`); here a string of 100 random
 * characters, the same 105 bytes in BSON.
 */
import type { WorkloadSetup } from './setup-spec';
import type { Namespace } from './op-spec';
import { dropUndefined } from '../../common/values';

export const YCSB_WORKLOAD_NAMES = [
  'ycsb-a',
  'ycsb-b',
  'ycsb-c',
  'ycsb-d',
  'ycsb-e',
  'ycsb-f',
] as const;
export type YcsbWorkloadName = (typeof YCSB_WORKLOAD_NAMES)[number];

/** CoreWorkload: fieldcount=10, fieldnameprefix=field. */
export const YCSB_FIELDS: readonly string[] = Array.from({ length: 10 }, (_, i) => `field${i}`);
/** CoreWorkload: fieldlength=100 (fieldlengthdistribution=constant). */
export const YCSB_FIELD_LENGTH = 100;
/** workloade: maxscanlength=100, scanlengthdistribution=uniform (CoreWorkload: minscanlength=1, UniformLongGenerator). */
export const YCSB_MAX_SCAN_LENGTH = 100;

export const YCSB_DESCRIPTIONS: Record<YcsbWorkloadName, string> = {
  'ycsb-a': "YCSB's workload A: 50% read, 50% update of one field, zipfian keys, over YCSB records",
  'ycsb-b': "YCSB's workload B: 95% read, 5% update of one field, zipfian keys, over YCSB records",
  'ycsb-c': "YCSB's workload C: 100% read, zipfian keys, over YCSB records",
  'ycsb-d': "YCSB's workload D: 95% read of the latest keys, 5% insert, over YCSB records",
  'ycsb-e':
    "YCSB's workload E: 95% scan of 1..100 records from a zipfian key, 5% insert, over YCSB records",
  'ycsb-f':
    "YCSB's workload F: 50% read, 50% read-modify-write of one field, zipfian keys, over YCSB records",
};

export function isYcsbWorkloadName(name: string): name is YcsbWorkloadName {
  return (YCSB_WORKLOAD_NAMES as readonly string[]).includes(name);
}

type Distribution = 'zipfian' | 'latest';

const key = (records: number, distribution: Distribution | 'insert') => ({
  '#YCSB_KEY': { '#YCSB_KEYNUM': { distribution, records } },
});

/** A whole record (CoreWorkload.buildValues: every field), `_id` first as MongoDbClient.insert builds it. */
function record(id: unknown): Record<string, unknown> {
  const doc: Record<string, unknown> = { _id: id };
  for (const field of YCSB_FIELDS) doc[field] = { '#RAND_STRING': [YCSB_FIELD_LENGTH] };
  return doc;
}

/** The read: MongoDbClient.read, `find({_id: key}).first()` with no projection (readallfields=true). */
function read(
  ns: string,
  records: number,
  distribution: Distribution,
  weight?: number,
): Record<string, unknown> {
  return {
    op: 'findOne',
    ns,
    query: { _id: key(records, distribution) },
    ...dropUndefined({ weight }),
  };
}

/**
 * The update: MongoDbClient.update, `updateOne({_id: key}, {$set: {fieldN: value}})` of one field drawn
 * uniformly (writeallfields=false: CoreWorkload.buildSingleValue).
 */
export function ycsbSingleFieldUpdate(): Record<string, unknown> {
  return {
    $set: {
      '#PICK_FIELD': { names: [...YCSB_FIELDS], value: { '#RAND_STRING': [YCSB_FIELD_LENGTH] } },
    },
  };
}

function update(ns: string, records: number, weight: number): Record<string, unknown> {
  return {
    op: 'update',
    ns,
    query: { _id: key(records, 'zipfian') },
    update: ycsbSingleFieldUpdate(),
    weight,
  };
}

/** The insert: CoreWorkload.doTransactionInsert, a whole record under a new key; MongoDbClient.insert's insertOne. */
function insert(ns: string, records: number, weight: number): Record<string, unknown> {
  return { op: 'insert', ns, doc: record(key(records, 'insert')), weight };
}

/**
 * The read-modify-write: CoreWorkload.doTransactionReadModifyWrite, a read of the record (all fields) then an
 * update of one field of it, timed as one op (the readModifyWrite op, ./ops/read-modify-write.ts).
 */
function readModifyWrite(ns: string, records: number, weight: number): Record<string, unknown> {
  return {
    op: 'readModifyWrite',
    ns,
    query: { _id: key(records, 'zipfian') },
    update: ycsbSingleFieldUpdate(),
    weight,
  };
}

/**
 * The scan: CoreWorkload.doTransactionScan (a start key from the request distribution, a length uniform in
 * [1, maxscanlength]) as MongoDbClient.scan sends it: `find({_id: {$gte: startkey}}).sort({_id: 1}).limit(len)`,
 * read to the end. A command op, because its limit changes per op.
 */
function scan(ns: Namespace, records: number, weight: number): Record<string, unknown> {
  return {
    op: 'command',
    ns: ns.db,
    command: {
      find: ns.coll,
      filter: { _id: { $gte: key(records, 'zipfian') } },
      sort: { _id: 1 },
      limit: { '#RAND_INT': [1, YCSB_MAX_SCAN_LENGTH + 1] },
    },
    weight,
  };
}

/**
 * The ops of one of YCSB's workloads over `records` loaded records. Proportions are the workload files'
 * readproportion, updateproportion, scanproportion, insertproportion, readmodifywriteproportion, as op
 * weights: each op drawn at random by weight, as CoreWorkload's operationchooser (a DiscreteGenerator) does.
 */
export function ycsbOps(
  name: YcsbWorkloadName,
  ns: Namespace,
  records: number,
): Record<string, unknown>[] {
  const text = `${ns.db}.${ns.coll}`;
  switch (name) {
    case 'ycsb-a': // workloada: readproportion=0.5, updateproportion=0.5, requestdistribution=zipfian
      return [read(text, records, 'zipfian', 50), update(text, records, 50)];
    case 'ycsb-b': // workloadb: readproportion=0.95, updateproportion=0.05, requestdistribution=zipfian
      return [read(text, records, 'zipfian', 95), update(text, records, 5)];
    case 'ycsb-c': // workloadc: readproportion=1, requestdistribution=zipfian
      return [read(text, records, 'zipfian')];
    case 'ycsb-d': // workloadd: readproportion=0.95, insertproportion=0.05, requestdistribution=latest
      return [read(text, records, 'latest', 95), insert(text, records, 5)];
    case 'ycsb-e': // workloade: scanproportion=0.95, insertproportion=0.05, requestdistribution=zipfian, maxscanlength=100
      return [scan(ns, records, 95), insert(text, records, 5)];
    case 'ycsb-f': // workloadf: readproportion=0.5, readmodifywriteproportion=0.5, requestdistribution=zipfian
      return [read(text, records, 'zipfian', 50), readModifyWrite(text, records, 50)];
  }
}

/**
 * YCSB's load phase (`ycsb load`: CoreWorkload.doInsert, keys 0..N-1 in order from keysequence =
 * CounterGenerator(insertstart=0)): the collection dropped (through the data guard, as the built-in loader),
 * then N whole records.
 */
export function ycsbSetup(ns: Namespace, records: number, batchSize: number): WorkloadSetup {
  return {
    steps: [
      { kind: 'command', db: ns.db, command: { drop: ns.coll } },
      {
        kind: 'generate',
        ns,
        count: records,
        doc: record({ '#YCSB_KEY': { '#SEQ_INT': { seq_id: 0, start: 0, step: 1 } } }),
        batchSize,
      },
    ],
  };
}
