/**
 * IDL command parsing as the stand-ins meet it. A command whose IDL definition is `strict: true`
 * refuses any field it does not declare, except the generic arguments every command takes
 * (src/mongo/idl/generic_argument.idl), with error 40415 "BSON field '<command>.<field>' is an
 * unknown field." (src/mongo/idl/idl_parser.cpp, IDLParserContext::throwUnknownField). A command
 * that is `strict: false` ignores undeclared fields: the real server answers ok and the field has no
 * effect, so the stand-in must not refuse it either (a refusal here would hide a field the tool
 * sends in vain).
 *
 * Each public command the stand-ins parse is listed per version with its strictness and declared
 * fields, read in the source; see docs/testing.md. No command listed is strict at 4.4 to 8.0.
 */
import { atLeast, type ServerVersion } from './version';

type Doc = Record<string, unknown>;

/** src/mongo/idl/generic_argument.idl (the fields drivers and mongosh add, and the common ones). */
const GENERIC_ARGUMENTS = new Set([
  '$db',
  'lsid',
  'txnNumber',
  'autocommit',
  'startTransaction',
  '$clusterTime',
  '$readPreference',
  'readConcern',
  'writeConcern',
  'maxTimeMS',
  'comment',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
  '$audit',
  '$client',
  '$configServerState',
  'allowImplicitCollectionCreation',
  'clientOperationKey',
  '$queryOptions',
  '$topologyTime',
  '$oplogQueryData',
  '$replData',
  'databaseVersion',
  'shardVersion',
  'mayBypassWriteBlocking',
  'help',
  'readOnly',
  'tracking_info',
  '$configTime',
  'usesDefaultMaxTimeMS',
  'rawData',
  'versionContext',
]);

export interface IdlSpec {
  /** First version this definition applies to. */
  since: string;
  /** The IDL's `strict`: true refuses undeclared fields, false ignores them. */
  strict: boolean;
  /** The fields the IDL declares (the command's own name included). */
  fields: string[];
}

/**
 * shardCollection, as the mongos parses it (src/mongo/s/commands/cluster_shard_collection_cmd.cpp,
 * `ShardCollection::parse(...)`), never strict:
 * - 4.4: `ShardCollection` in src/mongo/s/request_types/shard_collection.idl; its generated parser
 *   (shard_collection_gen.cpp, ShardCollection::parseProtected) has no branch for an unknown field;
 * - 5.0: moved to src/mongo/s/commands/cluster_commands.idl (`strict: false`, adds `timeseries`);
 * - 6.0 and 7.0: the same file, `strict: false`, adds `implicitlyCreateIndex`, `enforceUniquenessCheck`;
 * - 8.0 and later: src/mongo/db/global_catalog/ddl/shard_collection.idl (`ShardCollection`,
 *   `strict: false`, chained `ShardCollectionRequest`, adds `collectionUUID`, `skipHashedShardKeyIndexCreation`).
 *   Which 8.0.x first had the new file was not pinned; the field list is the newest read.
 * The mongos builds the shard's request from the parsed fields only, so an unknown one goes nowhere.
 *
 * configureCollectionBalancing (src/mongo/s/request_types/configure_collection_balancing.idl), the
 * public command `strict: false` at every version read (its internal
 * _configsvrConfigureCollectionBalancing is strict, but the mongos sends it only the parsed params,
 * src/mongo/s/commands/cluster_configure_collection_balancing.cpp `setCollBalancingParams`):
 * - 6.0: `chunkSize`, `enableAutoSplitter`, `defragmentCollection` (the stored 6.0-line file);
 * - 7.0 and later: `chunkSize`, `enableAutoMerger`, `defragmentCollection`.
 * `balancerShouldMergeChunks` was never one of its fields: it belonged to the 5.x development command
 * configureCollectionAutoSplitter (jstests of that era), so it is ignored like any unknown field.
 */
export const IDL: Record<string, IdlSpec[]> = {
  shardCollection: [
    {
      since: '4.4.0',
      strict: false,
      fields: [
        'shardCollection',
        'shardcollection',
        'key',
        'unique',
        'numInitialChunks',
        'presplitHashedZones',
        'collation',
      ],
    },
    {
      since: '5.0.0',
      strict: false,
      fields: [
        'shardCollection',
        'shardcollection',
        'key',
        'unique',
        'numInitialChunks',
        'presplitHashedZones',
        'collation',
        'timeseries',
      ],
    },
    {
      since: '6.0.0',
      strict: false,
      fields: [
        'shardCollection',
        'shardcollection',
        'key',
        'unique',
        'numInitialChunks',
        'presplitHashedZones',
        'collation',
        'timeseries',
        'implicitlyCreateIndex',
        'enforceUniquenessCheck',
      ],
    },
    {
      since: '8.0.0',
      strict: false,
      fields: [
        'shardCollection',
        'shardcollection',
        'key',
        'unique',
        'numInitialChunks',
        'presplitHashedZones',
        'collation',
        'timeseries',
        'implicitlyCreateIndex',
        'enforceUniquenessCheck',
        'collectionUUID',
        'skipHashedShardKeyIndexCreation',
      ],
    },
  ],
  configureCollectionBalancing: [
    {
      since: '6.0.0',
      strict: false,
      fields: [
        'configureCollectionBalancing',
        'chunkSize',
        'enableAutoSplitter',
        'defragmentCollection',
      ],
    },
    {
      since: '7.0.0',
      strict: false,
      fields: [
        'configureCollectionBalancing',
        'chunkSize',
        'enableAutoMerger',
        'defragmentCollection',
      ],
    },
  ],
};

/** The IDL definition of `command` at `version`, if the stand-ins model one. */
export function idlSpec(command: string, version: ServerVersion): IdlSpec | undefined {
  const specs = (IDL[command] ?? []).filter((s) => atLeast(version, s.since));
  return specs[specs.length - 1];
}

/** The fields of `body` the command's IDL does not declare (generic arguments aside): ignored unless strict. */
export function undeclaredFields(command: string, body: Doc, version: ServerVersion): string[] {
  const spec = idlSpec(command, version);
  if (!spec) return [];
  return Object.keys(body).filter(
    (field) => !spec.fields.includes(field) && !GENERIC_ARGUMENTS.has(field),
  );
}

/** The 40415 error for the first undeclared field of a strict command, or undefined when the command takes it. */
export function unknownField(command: string, body: Doc, version: ServerVersion): Doc | undefined {
  if (!idlSpec(command, version)?.strict) return undefined;
  const field = undeclaredFields(command, body, version)[0];
  if (field === undefined) return undefined;
  return {
    ok: 0,
    errmsg: `BSON field '${command}.${field}' is an unknown field.`,
    code: 40415,
    codeName: 'Location40415',
  };
}
