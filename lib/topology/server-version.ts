import { UsageError } from '../config/errors';

/** A MongoDB server version as the user gives it: "7.0" or "6.0.3". */
export interface ServerVersion {
  major: number;
  minor: number;
  patch: number;
  text: string;
}

/**
 * The oldest server mongo-bench plans for: the bundled Node driver (mongodb 7.x) refuses servers
 * below 4.4, wire version 9 (MIN_SUPPORTED_SERVER_VERSION in its src/cmap/wire_protocol/constants.ts).
 * From 4.4 on every command the plan sends exists (balancerStop since 3.4, enableSharding's
 * primaryShard since 4.2.2), so the plan has no branch for older servers.
 */
export const MIN_SERVER_VERSION = { major: 4, minor: 4, text: '4.4' } as const;

export function parseServerVersion(text: string, flag = '--server-version'): ServerVersion {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match)
    throw new UsageError(`option ${flag}: expected a version like 7.0 or 6.0.3, got "${text}"`);
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  const version = { major, minor, patch, text: text.trim() };
  if (!atLeast(version, MIN_SERVER_VERSION.major, MIN_SERVER_VERSION.minor)) {
    throw new UsageError(
      `option ${flag}: ${text.trim()} is older than ${MIN_SERVER_VERSION.text}, the oldest MongoDB version mongo-bench supports ` +
        `(its Node driver refuses older servers); use ${MIN_SERVER_VERSION.text} or later`,
    );
  }
  return version;
}

/** True when `v` is at least major.minor.patch. */
export function atLeast(
  v: Pick<ServerVersion, 'major' | 'minor' | 'patch'>,
  major: number,
  minor = 0,
  patch = 0,
): boolean {
  if (v.major !== major) return v.major > major;
  if (v.minor !== minor) return v.minor > minor;
  return v.patch >= patch;
}

/** What changes with the server version, in one place so the plan and the comments agree. */
export function versionFeatures(v: ServerVersion) {
  return {
    /**
     * The `hello` command exists from 4.4.2 (and 4.2.10); 4.4.0 and 4.4.1 only know `isMaster`
     * (src/mongo/db/repl/replication_info.cpp registers CmdHello from r4.4.2). The runtimes fall
     * back to isMaster when hello is unknown, so a plan that says "4.4" works on 4.4.0 too.
     */
    hello: atLeast(v, 4, 4, 2),
    /** The chunk auto-splitter is gone since 6.0.3: chunks only split when someone splits them. */
    autoSplit: !atLeast(v, 6, 0, 3),
    /**
     * Before 6.0 config.databases marks a database that enableSharding has run on with
     * `partitioned: true`; a database created by a plain write is listed too, with `partitioned: false`
     * (src/mongo/s/catalog/type_database.idl, r5.0; the field is gone in r6.0).
     */
    partitionedField: !atLeast(v, 6, 0),
    /** enableSharding only creates the database since 6.0 (sharding a collection no longer needs it). */
    enableShardingOptional: atLeast(v, 6, 0),
    /**
     * configureCollectionBalancing (per-collection chunk size, config.collections maxChunkSizeBytes)
     * exists from 5.3 (src/mongo/s/request_types/configure_collection_balancing.idl); 6.0 is the first
     * release with it, so the plan uses it from 6.0 and the cluster-wide config.settings before.
     */
    collectionChunkSize: atLeast(v, 6, 0),
    /**
     * Quiesce mode on a signalled shutdown, with the startup parameters
     * shutdownTimeoutMillisForSignaledShutdown (mongod, src/mongo/db/repl/repl_server_parameters.idl)
     * and mongosShutdownTimeoutMillisForSignaledShutdown (mongos, src/mongo/s/mongos_server_parameters.idl),
     * 15 s by default, new in 5.0 (SERVER-46952, SERVER-46958). A 4.4 server refuses them at start-up.
     */
    quiesceParameters: atLeast(v, 5, 0),
    /** sh.shardAndDistributeCollection(): shard and spread the chunks in one call, new in 8.0. */
    shardAndDistribute: atLeast(v, 8, 0),
  };
}
