/**
 * IDL strict command parsing: a command whose IDL definition is `strict: true` refuses any field it
 * does not declare, except the generic arguments every command takes (src/mongo/idl/generic_argument.idl),
 * with error 40415 "BSON field '<command>.<field>' is an unknown field." (src/mongo/idl/idl_parser.cpp,
 * IDLParserContext::throwUnknownField).
 *
 * Only commands we are confident are IDL-strict at the given versions are listed; see docs/testing.md.
 */
import { atLeast, type ServerVersion } from './version';

type Doc = Record<string, unknown>;

/** src/mongo/idl/generic_argument.idl (the fields drivers and mongosh add, and the common ones). */
const GENERIC_ARGUMENTS = new Set([
  '$db', 'lsid', 'txnNumber', 'autocommit', 'startTransaction', '$clusterTime', '$readPreference',
  'readConcern', 'writeConcern', 'maxTimeMS', 'comment', 'apiVersion', 'apiStrict', 'apiDeprecationErrors',
  '$audit', '$client', '$configServerState', 'allowImplicitCollectionCreation', 'clientOperationKey',
  '$queryOptions', '$topologyTime', '$oplogQueryData', '$replData', 'databaseVersion', 'shardVersion',
  'mayBypassWriteBlocking', 'help', 'readOnly', 'tracking_info', '$configTime', 'usesDefaultMaxTimeMS',
  'rawData', 'versionContext',
]);

interface StrictSpec {
  /** First version where the command is parsed strictly by IDL. */
  since: string;
  fields: string[];
}

/**
 * shardCollection: src/mongo/s/request_types/sharded_ddl_commands.idl (ShardCollection, strict) since 4.4
 * (src/mongo/s/commands/cluster_shard_collection_cmd.cpp parses it with ShardCollection::parse).
 * configureCollectionBalancing: src/mongo/s/request_types/configure_collection_balancing.idl (6.0+).
 */
const STRICT: Record<string, StrictSpec[]> = {
  shardCollection: [
    { since: '4.4.0', fields: ['shardCollection', 'key', 'unique', 'numInitialChunks', 'presplitHashedZones', 'collation'] },
    { since: '5.0.0', fields: ['shardCollection', 'key', 'unique', 'numInitialChunks', 'presplitHashedZones', 'collation', 'timeseries'] },
    {
      since: '6.0.0',
      fields: ['shardCollection', 'key', 'unique', 'numInitialChunks', 'presplitHashedZones', 'collation', 'timeseries', 'implicitlyCreateIndex', 'enforceUniquenessCheck'],
    },
  ],
  configureCollectionBalancing: [
    { since: '6.0.0', fields: ['configureCollectionBalancing', 'chunkSize', 'defragmentCollection', 'enableAutoSplitter'] },
    { since: '7.0.0', fields: ['configureCollectionBalancing', 'chunkSize', 'defragmentCollection', 'enableAutoMerger', 'balancerShouldMergeChunks'] },
  ],
};

/** The 40415 error for the first undeclared field, or undefined when the command is fine. */
export function unknownField(command: string, body: Doc, version: ServerVersion): Doc | undefined {
  const specs = (STRICT[command] ?? []).filter((s) => atLeast(version, s.since));
  const spec = specs[specs.length - 1];
  if (!spec) return undefined;
  for (const field of Object.keys(body)) {
    if (spec.fields.includes(field) || GENERIC_ARGUMENTS.has(field)) continue;
    return { ok: 0, errmsg: `BSON field '${command}.${field}' is an unknown field.`, code: 40415, codeName: 'Location40415' };
  }
  return undefined;
}
